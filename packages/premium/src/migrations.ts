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
];
