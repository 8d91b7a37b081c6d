import type { Knex } from 'knex';

/** The slice of knex's pool (tarn) that reports its state; knex does not type it. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

export interface PoolUse {
  used: number;
  free: number;
  pendingAcquires: number;
  max: number;
}

/**
 * How the connection pool is used right now, for the metrics; null when knex has no pool yet
 * or has been destroyed. Both dialects pool through tarn (SQLite with one connection).
 */
export function poolUse(knex: Knex): PoolUse | null {
  const pool = (knex.client as { pool?: TarnPool | null }).pool;
  if (pool === undefined || pool === null || typeof pool.numUsed !== 'function') return null;
  return { used: pool.numUsed(), free: pool.numFree(), pendingAcquires: pool.numPendingAcquires(), max: pool.max };
}
