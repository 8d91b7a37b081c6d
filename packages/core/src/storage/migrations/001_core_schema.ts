import type { Migration } from '../migrator.js';

/** Users, sessions, challenges and worker leases: what the foundation needs. */
export const coreSchema: Migration = {
  id: '001_core_schema',
  async up(trx) {
    await trx.schema.createTable('users', (t) => {
      t.uuid('id').primary();
      // Peppered HMACs (docs/architecture.md#keyed-hashes); nullable until the identity that sets them exists.
      t.string('pubkey_hash', 64).nullable().unique();
      t.string('seed_fingerprint', 64).nullable().index();
      t.string('nostr_pubkey', 64).nullable().unique();
      t.string('username', 64).nullable().unique();
      t.timestamp('premium_until', { useTz: true }).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await trx.schema.createTable('sessions', (t) => {
      t.uuid('id').primary();
      t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.string('platform', 16).notNullable();
      // Peppered hash of the refresh JWT; the token itself is never stored.
      t.string('refresh_token_hash', 64).notNullable().unique();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.index(['user_id']);
    });
    await trx.schema.createTable('challenges', (t) => {
      t.string('nonce', 64).primary();
      t.string('purpose', 64).notNullable();
      t.string('subject', 200).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable().index();
    });
    await trx.schema.createTable('worker_leases', (t) => {
      t.string('name', 100).primary();
      t.string('holder', 64).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
    });
  },
};
