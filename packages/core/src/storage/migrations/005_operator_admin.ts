import type { Migration } from '../migrator.js';

/** Admin keys, admin sessions, the setup latch, the audit chain (and its sealed head) and the operator settings overlay. */
export const operatorAdminSchema: Migration = {
  id: '005_operator_admin',
  async up(trx) {
    await trx.schema.createTable('admin_keys', (t) => {
      t.uuid('id').primary();
      // x-only secp256k1 public key (hex): admins prove control with NIP-98 signed actions.
      t.string('pubkey', 64).notNullable();
      t.string('scope', 16).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('activated_at', { useTz: true }).nullable();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.string('mac', 64).notNullable();
    });
    // At most one live (not revoked) row per public key; the same partial-index SQL on both dialects.
    await trx.raw('CREATE UNIQUE INDEX admin_keys_live_pubkey ON admin_keys (pubkey) WHERE revoked_at IS NULL');
    await trx.schema.createTable('admin_sessions', (t) => {
      t.uuid('id').primary();
      t.uuid('admin_key_id').notNullable().references('id').inTable('admin_keys').onDelete('CASCADE');
      // HMAC(ADMIN_SESSION_SECRET, token): the token itself is never stored.
      t.string('token_hash', 64).notNullable().unique();
      // The real peer address, kept on purpose (spec › General rule 2).
      t.string('peer_ip', 64).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.index(['admin_key_id']);
    });
    await trx.schema.createTable('server_config', (t) => {
      t.integer('id').primary();
      t.string('setup_state', 16).notNullable();
      t.timestamp('bootstrap_completed_at', { useTz: true }).nullable();
      t.string('integrity_mac', 64).notNullable();
    });
    await trx.schema.createTable('admin_audit', (t) => {
      // Assigned by the appender under a table lock (never an auto-increment): gap-free and ordered.
      t.bigInteger('seq').primary();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.string('action', 100).notNullable();
      t.string('actor_kind', 16).notNullable();
      t.string('actor_pubkey_prefix', 16).nullable();
      t.string('target', 200).nullable();
      t.text('details').nullable();
      t.string('peer_ip', 64).nullable();
      t.string('prev_hash', 64).notNullable();
      t.string('row_hash', 64).notNullable();
    });
    // The sealed newest (seq, row_hash): without it, deleting the newest entries would leave a valid shorter chain.
    await trx.schema.createTable('admin_audit_head', (t) => {
      t.integer('id').primary();
      t.bigInteger('seq').notNullable();
      t.string('row_hash', 64).notNullable();
      t.string('mac', 64).notNullable();
    });
    await trx.schema.createTable('operator_settings', (t) => {
      t.string('section', 32).primary();
      t.text('body').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.string('mac', 64).notNullable();
    });
  },
};
