import type { Knex } from 'knex';

/** A knex handle: the pool or a transaction, always passed explicitly (no ambient transaction). */
export type Executor = Knex | Knex.Transaction;

/** Runs `work` on the caller's transaction, or in one of its own when given the pool. */
export async function inTransaction<T>(executor: Executor, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return (executor as Knex.Transaction).isTransaction ? work(executor as Knex.Transaction) : executor.transaction(work);
}

/**
 * Refuses a conditional statement's result of more than one row: its WHERE did not select by a
 * unique key, a programming error. Thrown inside the statement's transaction, so it undoes it.
 */
export function requireAtMostOne<T>(table: string, rows: T[]): T[] {
  if (rows.length > 1) {
    throw new Error(`${table}: a conditional statement touched ${rows.length} rows; its WHERE must select by a unique key`);
  }
  return rows;
}
