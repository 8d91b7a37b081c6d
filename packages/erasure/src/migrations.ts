import type { PluginMigration } from '@wallet/backend-core';
import { ERASURE_STATUSES } from './request.js';

export const ERASURE_TABLE = 'erasure_requests';
/** The sweeper's last run: one row (id 1), replaced at the end of each run. */
export const SWEEP_RUN_TABLE = 'erasure_sweep_runs';

/**
 * Erasure requests. `user_id` is set null when the user is deleted, so the completed row
 * survives as the tombstone. One live request (requested or confirmed) per user is a partial
 * unique index, on both dialects.
 */
export const erasureMigrations: readonly PluginMigration[] = [
  {
    id: '001_erasure_requests',
    async up(trx) {
      await trx.schema.createTable(ERASURE_TABLE, (t) => {
        t.uuid('id').primary();
        t.uuid('user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
        t.string('status', 16).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('confirmed_at', { useTz: true }).nullable();
        // Execution time: confirmation + the grace period.
        t.timestamp('due_at', { useTz: true }).nullable();
        t.timestamp('ended_at', { useTz: true }).nullable();
        t.integer('attempts').notNullable().defaultTo(0);
        // The last failure's message (never personal data: the sweeper records the error class and message only).
        t.string('last_error', 500).nullable();
        // HMAC (the server's pepper) of id, user and due time, set at confirmation: the sweeper erases only what the server confirmed.
        t.string('integrity', 64).nullable();
        t.index(['status', 'due_at']);
        t.check(`?? in (${ERASURE_STATUSES.map((status) => `'${status}'`).join(', ')})`, ['status'], 'erasure_requests_status_known');
        t.check(`?? <> 'confirmed' or ?? is not null`, ['status', 'due_at'], 'erasure_requests_confirmed_has_due');
      });
      await trx.raw(`CREATE UNIQUE INDEX erasure_requests_one_live ON ${ERASURE_TABLE} (user_id) WHERE status IN ('requested', 'confirmed')`);
    },
  },
  {
    // Additive (issue 34, the operator console): the sweeper's last run, and the indexes the
    // admin list (a state's requests, newest first) and the account summary (a user's newest
    // request) read.
    id: '002_erasure_admin',
    async up(trx) {
      await trx.schema.createTable(SWEEP_RUN_TABLE, (t) => {
        t.integer('id').primary();
        t.timestamp('started_at', { useTz: true }).notNullable();
        t.timestamp('finished_at', { useTz: true }).notNullable();
        t.integer('due_found').notNullable();
        t.integer('completed').notNullable();
        t.integer('failed').notNullable();
        t.integer('expired').notNullable();
        t.check('?? = 1', ['id'], 'erasure_sweep_runs_one_row');
      });
      await trx.schema.alterTable(ERASURE_TABLE, (t) => {
        t.index(['status', 'created_at', 'id'], 'erasure_requests_status_created');
        t.index(['user_id', 'created_at'], 'erasure_requests_user_created');
      });
    },
  },
  {
    // Issue 35 (3): the sweeper claims the next due request in (due_at, id) order: with id in
    // the index it reads that one row instead of sorting every due request. The (status,
    // due_at) index is a prefix of it and goes.
    id: '003_erasure_sweep_index',
    async up(trx) {
      await trx.schema.alterTable(ERASURE_TABLE, (t) => {
        t.index(['status', 'due_at', 'id'], 'erasure_requests_status_due');
      });
      await trx.schema.alterTable(ERASURE_TABLE, (t) => {
        t.dropIndex(['status', 'due_at']);
      });
    },
  },
];
