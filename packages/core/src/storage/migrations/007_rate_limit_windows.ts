import type { Migration } from '../migrator.js';

/**
 * The shared store of the unauthenticated limiter (`RATE_LIMIT_STORAGE=database`): one fixed window
 * per limiter key, so every process behind one load balancer spends the same per-IP budget. Keys
 * are salted IP hashes, never addresses. Window ends are epoch milliseconds from the injected
 * clock (the rule against SQL `now()`), not timestamps, so the upsert compares plain numbers.
 */
export const rateLimitWindowsSchema: Migration = {
  id: '007_rate_limit_windows',
  async up(trx) {
    await trx.schema.createTable('rate_limit_windows', (t) => {
      t.string('limiter_key', 128).primary();
      t.bigInteger('window_ends_ms').notNullable();
      t.integer('hits').notNullable();
      t.index(['window_ends_ms'], 'rate_limit_windows_ends');
    });
  },
};
