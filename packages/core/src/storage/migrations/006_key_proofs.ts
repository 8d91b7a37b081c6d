import type { Migration } from '../migrator.js';

/**
 * Proof of possession for receiving keys (docs/decisions.md, "Key ownership"): a key resolves a
 * request to a user only through a row whose owner proved it. Existing rows start unproven:
 * nothing on file says who really holds them.
 */
export const keyProofsSchema: Migration = {
  id: '006_key_proofs',
  async up(trx) {
    await trx.schema.alterTable('user_keys', (t) => {
      t.timestamp('proven_at', { useTz: true }).nullable();
    });
    // At most one account holds a key as proven; the same partial-index SQL on both dialects.
    await trx.raw('CREATE UNIQUE INDEX user_keys_proven_key ON user_keys (asset, key_type, public_key) WHERE proven_at IS NOT NULL');
  },
};
