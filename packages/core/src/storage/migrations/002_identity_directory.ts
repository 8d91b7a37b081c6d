import type { Migration } from '../migrator.js';

/** Receiving keys, login events, restore attempts and spent proofs: identity and directory. */
export const identityDirectorySchema: Migration = {
  id: '002_identity_directory',
  async up(trx) {
    await trx.schema.createTable('user_keys', (t) => {
      t.uuid('id').primary();
      t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.string('asset', 8).notNullable();
      // `primary` (signing/receiving key) or `slatepack_address` (Grin's second row).
      t.string('key_type', 32).notNullable();
      t.string('public_key', 200).notNullable();
      t.string('public_spend_key', 64).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.unique(['user_id', 'asset', 'key_type']);
      t.index(['asset', 'public_key']);
      t.index(['asset', 'public_spend_key']);
    });
    await trx.schema.createTable('login_events', (t) => {
      t.uuid('id').primary();
      // Set null, not cascade: erasure decides whether events are purged or anonymised.
      t.uuid('user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
      t.string('platform', 16).notNullable();
      t.string('ip_hash', 64).notNullable();
      t.string('fingerprint', 64).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().index();
      t.index(['user_id']);
    });
    await trx.schema.createTable('restore_attempts', (t) => {
      t.uuid('id').primary();
      t.string('ip_hash', 64).notNullable();
      t.string('fingerprint', 64).notNullable();
      // `valid`, `mismatch`, `unknown` or `limited`; the failure governor counts the middle two.
      t.string('outcome', 16).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().index();
      t.index(['ip_hash', 'created_at']);
      t.index(['fingerprint', 'created_at']);
    });
    await trx.schema.createTable('spent_proofs', (t) => {
      // A one-time proof's key (a NIP-98 event id, a peppered identity + timestamp): present = used.
      t.string('proof_key', 140).primary();
      t.timestamp('expires_at', { useTz: true }).notNullable().index();
    });
  },
};
