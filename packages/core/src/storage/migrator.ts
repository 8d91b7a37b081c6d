import type { Knex } from 'knex';
import type { Clock } from '../clock/index.js';
import type { Logger } from '../logger/index.js';
import type { Dialect } from './dialect.js';

/**
 * One forward-only, additive migration, with no `down`
 * (docs/architecture.md#storage). Its ledger id is
 * `<owner>/<id>`, recorded in the same transaction as its DDL.
 */
export interface Migration {
  /** `NNN_slug`, e.g. `001_create_users`; run in the order declared. */
  id: string;
  up(trx: Knex.Transaction, dialect: Dialect): Promise<void>;
}

/** The id a migration is recorded under in the ledger: `<owner>/<id>`, e.g. `core/001_core_schema`. */
export function ledgerIdOf(owner: string, migration: Pick<Migration, 'id'>): string {
  return `${owner}/${migration.id}`;
}

export interface MigrationSet {
  /** The plugin name (`core` for core); namespaces the ids. */
  owner: string;
  migrations: readonly Migration[];
}

export const LEDGER_TABLE = 'wallet_migrations';
const ID_FORMAT = /^\d{3}_[a-z0-9_]+$/;

/** Every problem with a set of migration sets: malformed or clashing ids. Empty when sound. */
export function checkMigrationSets(sets: readonly MigrationSet[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const set of sets) {
    let previous = '';
    for (const migration of set.migrations) {
      const ledgerId = ledgerIdOf(set.owner, migration);
      if (!ID_FORMAT.test(migration.id)) problems.push(`migration ${ledgerId}: id must look like 001_slug`);
      if (seen.has(ledgerId)) problems.push(`migration ${ledgerId}: id declared twice`);
      else if (migration.id <= previous) problems.push(`migration ${ledgerId}: ids must increase (after ${set.owner}/${previous})`);
      seen.add(ledgerId);
      previous = migration.id;
    }
  }
  return problems;
}

/**
 * Runs every pending migration, core's first and then each plugin's in registration order,
 * in ONE transaction holding the migration lock: a failure leaves the database as it was.
 * Returns the ledger ids applied by this call.
 */
export async function runMigrations(
  knex: Knex,
  dialect: Dialect,
  sets: readonly MigrationSet[],
  clock: Clock,
  logger: Logger,
): Promise<string[]> {
  const applied: string[] = [];
  await knex.transaction(async (trx) => {
    await dialect.lockMigrations(trx);
    if (!(await trx.schema.hasTable(LEDGER_TABLE))) {
      await trx.schema.createTable(LEDGER_TABLE, (t) => {
        t.string('id', 200).primary();
        t.string('owner', 100).notNullable();
        t.timestamp('applied_at', { useTz: true }).notNullable();
      });
    }
    const done = new Set((await trx(LEDGER_TABLE).select('id')).map((row: { id: string }) => row.id));
    for (const set of sets) {
      for (const migration of set.migrations) {
        const ledgerId = ledgerIdOf(set.owner, migration);
        if (done.has(ledgerId)) continue;
        await migration.up(trx, dialect);
        await trx(LEDGER_TABLE).insert({ id: ledgerId, owner: set.owner, applied_at: dialect.time(clock.now()) });
        applied.push(ledgerId);
      }
    }
  });
  // Logged only once the run has committed: a failed run applied nothing.
  for (const migration of applied) logger.info('migration applied', { migration });
  return applied;
}

/** Ledger ids already applied (empty when the ledger does not exist yet). */
export async function appliedMigrations(knex: Knex): Promise<string[]> {
  if (!(await knex.schema.hasTable(LEDGER_TABLE))) return [];
  return (await knex(LEDGER_TABLE).select('id').orderBy('applied_at').orderBy('id')).map((row: { id: string }) => row.id);
}
