import type { Migration } from '../migrator.js';

/**
 * An index on `users.premium_until`, so counting the users whose premium is active
 * (`premium_until > now`: the `wallet_premium_active_users` gauge) reads a range of the index
 * instead of the whole table. A plain index on both dialects; users never premium are NULL there.
 */
export const usersPremiumUntilIndex: Migration = {
  id: '008_users_premium_until',
  async up(trx) {
    await trx.schema.alterTable('users', (t) => {
      t.index(['premium_until'], 'users_premium_until');
    });
  },
};
