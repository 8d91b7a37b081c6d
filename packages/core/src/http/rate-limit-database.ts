import { deleteInBatches, type Database } from '../storage/index.js';
import type { RateLimitStore } from './rate-limit.js';

const TABLE = 'rate_limit_windows';

/**
 * Fixed windows in the backend's own database (`RATE_LIMIT_STORAGE=database`), so several
 * processes behind one load balancer share each client's budget. One hit is one upsert: the row
 * is created, counted up, or restarted when its window has ended, and the statement returns the
 * result, so concurrent hits from any process are counted exactly once each (no read-then-write).
 * The same SQL runs on Postgres and SQLite (≥ 3.35: ON CONFLICT … DO UPDATE … RETURNING); every
 * SET expression reads the row as it was before the update.
 */
export class DatabaseRateLimitStore implements RateLimitStore {
  constructor(private readonly db: Database) {}

  async hit(key: string, windowMs: number, nowMs: number): Promise<{ count: number; resetAtMs: number }> {
    const { knex } = this.db;
    const ended = `${TABLE}.window_ends_ms <= ?`;
    const rows = (await knex(TABLE)
      .insert({ limiter_key: key, window_ends_ms: nowMs + windowMs, hits: 1 })
      .onConflict('limiter_key')
      .merge({
        hits: knex.raw(`CASE WHEN ${ended} THEN 1 ELSE ${TABLE}.hits + 1 END`, [nowMs]),
        window_ends_ms: knex.raw(`CASE WHEN ${ended} THEN ? ELSE ${TABLE}.window_ends_ms END`, [nowMs, nowMs + windowMs]),
      })
      .returning(['hits', 'window_ends_ms'])) as Array<{ hits: number | string; window_ends_ms: number | string }>;
    const row = rows[0];
    if (row === undefined) throw new Error('rate limit upsert returned no row');
    // Postgres returns bigint columns as strings; epoch milliseconds fit a double exactly.
    return { count: Number(row.hits), resetAtMs: Number(row.window_ends_ms) };
  }

  /** Deletes windows that ended before `nowMs`: the table holds at most one window's clients. */
  async sweep(nowMs: number): Promise<number> {
    return deleteInBatches(this.db.knex, TABLE, (qb) => qb.where('window_ends_ms', '<=', nowMs));
  }
}
