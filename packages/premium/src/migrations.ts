import type { PluginMigration } from '@wallet/backend-core';
import { MAX_PLAN_DAYS } from './options.js';

export const PREMIUM_INVOICES_TABLE = 'premium_invoices';

/**
 * Premium invoices: each processor invoice bound to the user who asked for it, with the plan's
 * terms as they were when it was created (a plan changed later does not change what was paid
 * for). `consumed_at` is set once, by the conditional update that also extends the period.
 */
export const premiumMigrations: readonly PluginMigration[] = [
  {
    id: '001_premium_invoices',
    async up(trx) {
      await trx.schema.createTable(PREMIUM_INVOICES_TABLE, (t) => {
        t.string('invoice_id', 128).primary();
        t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
        t.string('plan_id', 32).notNullable();
        t.integer('days').notNullable();
        t.string('amount', 32).notNullable();
        t.string('currency', 8).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('consumed_at', { useTz: true }).nullable();
        t.index(['user_id', 'created_at']);
        t.check(`?? between 1 and ${MAX_PLAN_DAYS}`, ['days'], 'premium_invoices_days');
      });
    },
  },
  {
    /**
     * The operator's view (issue 34). `settled_at`: when an activation attempt first heard the
     * processor say `Settled`, written in its own statement BEFORE the transaction that consumes
     * the invoice and extends the period, so it stays when that transaction fails: settled and
     * not consumed is exactly "paid, but no premium was granted". Invoices redeemed before this
     * migration were Settled by their redemption: they get `settled_at = consumed_at`.
     * The admin lists read newest first, each from an index: all invoices, and one user's, by
     * (created_at, invoice_id), and a partial index for each unconsumed state, so the short
     * stuck list is never found by walking the long activated history (the same partial-index
     * SQL on both dialects).
     */
    id: '002_premium_settled_at',
    async up(trx) {
      await trx.schema.alterTable(PREMIUM_INVOICES_TABLE, (t) => {
        t.timestamp('settled_at', { useTz: true }).nullable();
      });
      await trx(PREMIUM_INVOICES_TABLE).whereNotNull('consumed_at').update({ settled_at: trx.ref('consumed_at') });
      await trx.raw(`CREATE INDEX premium_invoices_created ON ${PREMIUM_INVOICES_TABLE} (created_at, invoice_id)`);
      await trx.raw(`CREATE INDEX premium_invoices_user_created ON ${PREMIUM_INVOICES_TABLE} (user_id, created_at, invoice_id)`);
      await trx.raw(`CREATE INDEX premium_invoices_unsettled ON ${PREMIUM_INVOICES_TABLE} (created_at, invoice_id) WHERE consumed_at IS NULL AND settled_at IS NULL`);
      await trx.raw(`CREATE INDEX premium_invoices_stuck ON ${PREMIUM_INVOICES_TABLE} (created_at, invoice_id) WHERE consumed_at IS NULL AND settled_at IS NOT NULL`);
    },
  },
];
