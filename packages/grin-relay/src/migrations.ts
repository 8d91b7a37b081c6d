import type { PluginMigration } from '@wallet/backend-core';

export const RELAY_TABLE = 'grin_relay_entries';

/** Relay entries: the slatepacks are opaque text; every mutation is keyed on `id`. */
export const relayMigrations: readonly PluginMigration[] = [
  {
    id: '001_relay_entries',
    async up(trx) {
      await trx.schema.createTable(RELAY_TABLE, (t) => {
        t.uuid('id').primary();
        t.string('slate_id', 36).notNullable().unique();
        // Null once that party's account is erased (the erasure hook; the foreign key is the backstop).
        t.uuid('sender_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
        t.uuid('recipient_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
        t.text('slatepack').notNullable();
        t.text('response_slatepack').nullable();
        // u64 as decimal text: Postgres' bigint is signed.
        t.string('amount_nanogrin', 20).notNullable();
        t.string('status', 24).notNullable();
        t.string('tx_hash', 64).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.index(['recipient_user_id', 'status']);
        t.index(['sender_user_id']);
        t.index(['status', 'expires_at']);
      });
    },
  },
];
