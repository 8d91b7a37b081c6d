import type { Migration } from '../migrator.js';

/** Invite codes and registration invoices: the stateful registration gates. */
export const registrationGatesSchema: Migration = {
  id: '003_registration_gates',
  async up(trx) {
    await trx.schema.createTable('invite_codes', (t) => {
      // sha256(code), hex: the raw code is printed once and never stored.
      t.string('code_hash', 64).primary();
      t.string('label', 100).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).nullable();
      t.timestamp('used_at', { useTz: true }).nullable();
    });
    await trx.schema.createTable('registration_invoices', (t) => {
      t.string('invoice_id', 128).primary();
      // The peppered identity the invoice was created for (`pubkey_hash:<hex>` or `npub:<hex>`, then HMAC).
      t.string('identity_binding', 64).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('consumed_at', { useTz: true }).nullable();
      t.index(['identity_binding']);
    });
  },
};
