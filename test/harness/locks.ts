import type { Knex } from '@wallet/backend-core';

/** A transaction the test opened and keeps open, holding whatever its first statements locked. */
export interface HeldTransaction {
  trx: Knex.Transaction;
  /** Its Postgres backend (what `pg_blocking_pids` names); null on SQLite. */
  pid: number | null;
  release(): Promise<void>;
}

function isPostgres(knex: Knex): boolean {
  return (knex.client as { config: { client: unknown } }).config.client === 'pg';
}

/**
 * Opens a transaction on a connection of its own, runs `hold` in it, and keeps it open until
 * `release()`. On SQLite it holds the one connection, so every other statement waits for it.
 */
export async function holdTransaction(knex: Knex, hold: (trx: Knex.Transaction) => Promise<unknown>): Promise<HeldTransaction> {
  const trx = await knex.transaction();
  await hold(trx);
  const pid = isPostgres(knex) ? Number(((await trx.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid) : null;
  return {
    trx,
    pid,
    release: async () => {
      await trx.commit();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once a caller is provably waiting for `blocker`. Postgres: the backend of this
 * database that `blocker` blocks, waiting on a lock while running a statement that matches
 * `statement`; its pid is returned (and checked still waiting 50 ms later). SQLite: one more
 * caller than `alreadyWaiting` is queued for the single connection the holder has; null.
 * Fails after 10 s, or at once if `settled()` says the caller finished instead of waiting.
 */
export async function waitingOn(
  knex: Knex,
  blocker: HeldTransaction | number,
  options: { statement: RegExp; alreadyWaiting?: number; settled: () => boolean },
): Promise<number | null> {
  const deadline = Date.now() + 10_000;
  const check = () => {
    if (options.settled()) throw new Error('the caller finished while it should have been waiting');
    if (Date.now() > deadline) throw new Error(`nothing waited on the holder (${options.statement})`);
  };
  if (!isPostgres(knex)) {
    const pool = (knex.client as { pool: { numPendingAcquires(): number } }).pool;
    while (pool.numPendingAcquires() <= (options.alreadyWaiting ?? 0)) {
      check();
      await sleep(5);
    }
    return null;
  }
  const blockerPid = typeof blocker === 'number' ? blocker : blocker.pid!;
  for (;;) {
    check();
    const { rows } = (await knex.raw(
      `select pid, wait_event_type, state, query from pg_stat_activity where datname = current_database() and ? = any(pg_blocking_pids(pid))`,
      [blockerPid],
    )) as { rows: Array<{ pid: number; wait_event_type: string | null; state: string; query: string }> };
    // pg_stat_activity is read without a lock: only a consistent sample of a lock wait counts.
    const waiting = rows.find((row) => row.state === 'active' && row.wait_event_type === 'Lock' && options.statement.test(row.query));
    if (waiting !== undefined) {
      await sleep(50);
      check();
      return waiting.pid;
    }
    await sleep(10);
  }
}
