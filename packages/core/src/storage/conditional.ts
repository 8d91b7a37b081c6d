import type { Knex } from 'knex';
import { dialectOf } from './dialect.js';
import { inTransaction, requireAtMostOne, type Executor } from './single-row.js';

export type { Executor } from './single-row.js';
/** Narrows a query to the row(s) it may touch; it is both the selector and the guard. */
export type Where = (qb: Knex.QueryBuilder) => void;

/**
 * Runs one conditional statement and refuses a result of more than one row. The statement
 * runs inside a transaction (the caller's, or its own), so the refusal undoes it: a WHERE that
 * selects several rows is a programming error and must change nothing.
 */
async function single<T>(db: Executor, table: string, statement: (executor: Executor) => Promise<T[]>): Promise<T | null> {
  return inTransaction(db, async (executor) => requireAtMostOne(table, await statement(executor))[0] ?? null);
}

/**
 * consumeOne — `DELETE FROM table WHERE <where> RETURNING *`.
 *
 * Guarantee: of any number of concurrent callers with the same `where`, exactly one receives
 * the row and every other gets `null`, on both dialects. On Postgres the losers block on the
 * winner's row lock and then find the row gone; on SQLite the single writer connection runs
 * the statements one after another. Use it for single-use things (challenges, nonces); never
 * read-then-delete. `where` must select by a unique key.
 */
export async function consumeOne<T extends object>(db: Executor, table: string, where: Where): Promise<T | null> {
  return single(db, table, (executor) => dialectOf(executor).deleteReturning<T>(executor, table, where));
}

/**
 * transitionOne — `UPDATE table SET <set> WHERE <where> RETURNING *`.
 *
 * The WHERE clause is both selector and guard (`id = ? AND status = ? AND expires_at > ?`).
 * Guarantee: concurrent callers whose guard the winner's update falsifies get `null`: on
 * Postgres the losers wait for the winner's row lock and re-check the guard against the new
 * row (READ COMMITTED re-evaluation); on SQLite the writer is serialised. A plain update is
 * NOT this primitive: it would let two racers both "win". `where` must select by a unique key.
 */
export async function transitionOne<T extends object>(
  db: Executor,
  table: string,
  where: Where,
  set: Record<string, unknown>,
): Promise<T | null> {
  return single(db, table, async (executor) => (await executor(table).where(where).update(set).returning('*')) as T[]);
}

/**
 * transitionOneAndInsert — transitionOne, and only when it changed the row, insert `row` into
 * the same table, as one atomic step: a successor replaces what it retires (a refreshed
 * session for the revoked one). Returns the transitioned row as it now is, or `null` when the
 * guard did not match and nothing changed.
 *
 * Guarantee: that of transitionOne; a loser inserts nothing. On Postgres it is ONE statement
 * (no transaction round trips, no connection held between them); on SQLite, two statements in
 * a transaction on the single writer. `row` must carry the table's primary key: if `where`
 * selects several rows, Postgres inserts that key twice and the whole statement fails on it,
 * SQLite refuses the update count; either way nothing changes.
 */
export async function transitionOneAndInsert<T extends object>(
  db: Executor,
  table: string,
  where: Where,
  set: Record<string, unknown>,
  row: Record<string, unknown>,
): Promise<T | null> {
  // The dialect returns at most one row (see the guarantee above): no second count here.
  const [transitioned] = await dialectOf(db).transitionThenInsert(db, table, where, set, row);
  return (transitioned as T | undefined) ?? null;
}

/**
 * insertOrNull — `INSERT … ON CONFLICT (<key>) DO NOTHING RETURNING *`: the row when this
 * caller created it, `null` when a row with that key already existed. Exactly one of several
 * concurrent inserters of one key gets the row.
 */
export async function insertOrNull<T extends object>(
  db: Executor,
  table: string,
  row: Record<string, unknown>,
  conflictColumns: string[],
): Promise<T | null> {
  const rows = (await db(table).insert(row).onConflict(conflictColumns).ignore().returning('*')) as T[];
  return rows[0] ?? null;
}
