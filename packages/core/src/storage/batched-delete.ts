import type { Knex } from 'knex';
import { dialectOf } from './dialect.js';
import type { Where } from './conditional.js';

export interface DeleteInBatchesOptions {
  /** Rows per statement; the dialect's `deleteBatchSize` by default. */
  batchSize?: number;
  /**
   * The column that addresses a row inside one statement; the dialect's `rowAddress` (SQLite
   * `rowid`, Postgres `ctid`) by default, which every table has whatever its primary key.
   */
  key?: string;
  /** Called after every statement with the rows it deleted (tests count statements with it). */
  onBatch?: (deleted: number) => void;
}

/**
 * Deletes every row of `table` that `where` selects, as a series of short statements of at most
 * `batchSize` rows each, yielding to the event loop between them, and returns how many rows went
 * (docs/architecture.md#storage, "Sweeps delete in batches"). Each statement is
 *
 *   DELETE FROM table WHERE <where> AND <key> IN (SELECT <key> FROM table WHERE <where> LIMIT n)
 *
 * (on Postgres `<key> = ANY(ARRAY(SELECT …))`, see `Dialect.whereKeyIn`)
 * run on its own (never inside a transaction): on SQLite one unbatched delete of a million rows
 * held the event loop (better-sqlite3 is synchronous) for ten seconds; on Postgres it is one long
 * statement holding a million row locks. The outer repeat of `where` keeps the result exactly the
 * unbatched delete's: a row a concurrent writer changed after the inner SELECT read it is deleted
 * only if it still matches (Postgres re-checks the WHERE of a row it waited for, and does not
 * re-check a TID match). The loop ends on the first statement that deletes fewer than
 * `batchSize` rows, so nothing to delete costs one statement. The inner SELECT should read by an
 * index on `where`'s column: otherwise every batch scans the table.
 *
 * Use it for every scheduled sweep or GC; the one-row conditional deletes are `consumeOne`.
 */
export async function deleteInBatches(knex: Knex, table: string, where: Where, options: DeleteInBatchesOptions = {}): Promise<number> {
  if ((knex as Knex.Transaction).isTransaction) throw new Error(`deleteInBatches(${table}) runs its own short statements: pass the pool, not a transaction`);
  const dialect = dialectOf(knex);
  const batchSize = options.batchSize ?? dialect.deleteBatchSize;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`deleteInBatches(${table}): batchSize must be a positive integer, not ${batchSize}`);
  const key = options.key ?? dialect.rowAddress;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const deleted = await dialect.whereKeyIn(knex(table).where(where), key, knex(table).select(key).where(where).limit(batchSize)).delete();
    options.onBatch?.(deleted);
    total += deleted;
    if (deleted < batchSize) return total;
    await pause(dialect.pauseAfterBatchMs(performance.now() - started));
  }
}

/**
 * Lets everything waiting on the event loop run: always one full turn through setImmediate
 * first, then longer when asked. A timer alone is not a turn: the loop's timers phase comes
 * before its check phase, so a short timer could fire (and the next statement go out) before
 * work queued with setImmediate ever ran.
 */
async function pause(ms: number): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (ms > 0) await new Promise<void>((resolve) => setTimeout(resolve, ms));
}
