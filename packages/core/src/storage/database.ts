import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import { consumeOne, insertOrNull, transitionOne, transitionOneAndInsert, type Executor, type Where } from './conditional.js';

/**
 * What features get instead of a raw driver: knex, the dialect helpers and the race-safe
 * primitives bound to this database. Transactions are explicit: `db.transaction(trx => …)`
 * and pass `trx` down; there is no ambient transaction, so two backends can share a process.
 */
export interface Database {
  readonly knex: Knex;
  readonly dialect: Dialect;
  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  consumeOne<T extends object>(table: string, where: Where, executor?: Executor): Promise<T | null>;
  transitionOne<T extends object>(table: string, where: Where, set: Record<string, unknown>, executor?: Executor): Promise<T | null>;
  transitionOneAndInsert<T extends object>(
    table: string,
    where: Where,
    set: Record<string, unknown>,
    row: Record<string, unknown>,
    executor?: Executor,
  ): Promise<T | null>;
  insertOrNull<T extends object>(table: string, row: Record<string, unknown>, conflictColumns: string[], executor?: Executor): Promise<T | null>;
}

export function createDatabase(knex: Knex, dialect: Dialect): Database {
  return {
    knex,
    dialect,
    transaction: (work) => knex.transaction(work),
    consumeOne: (table, where, executor = knex) => consumeOne(executor, table, where),
    transitionOne: (table, where, set, executor = knex) => transitionOne(executor, table, where, set),
    transitionOneAndInsert: (table, where, set, row, executor = knex) => transitionOneAndInsert(executor, table, where, set, row),
    insertOrNull: (table, row, conflictColumns, executor = knex) => insertOrNull(executor, table, row, conflictColumns),
  };
}
