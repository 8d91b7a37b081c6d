import { expect } from 'chai';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { consumeOne, type Database } from '@wallet/backend-core';
import { useTestBackend } from '../../harness/index.js';

/**
 * consumeOne under a deterministic interleaving (issue 13 item 4): transaction A consumes a row
 * and holds its transaction open; B starts consuming the same row and must WAIT for A (proved,
 * not assumed); A commits; B gets null. A read-then-delete consumeOne (SELECT the row, DELETE it
 * by id, return what was selected) fails here on both dialects, where the 100-way races only
 * caught it by luck.
 */
const TABLE = 'consume_items';

type Item = { id: number; label: string };

async function createItems(db: Database): Promise<void> {
  await db.knex.schema.createTable(TABLE, (table) => {
    table.integer('id').primary();
    table.string('label', 50).notNullable();
  });
  await db.knex(TABLE).insert([
    { id: 1, label: 'target' },
    { id: 2, label: 'bystander' },
  ]);
}

/** A promise with its resolver, for hand-driven interleavings. */
function latch<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a failure naming `what` after `ms` (a broken interleaving must not hang the run). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Transaction A: consumes row 1 and holds the transaction open until `release` resolves. `held`
 * resolves once the DELETE has run (and A holds its row lock / SQLite's write lock), with A's
 * Postgres backend pid on Postgres.
 */
function holdConsumed(db: Database, withPid: boolean) {
  const held = latch<number | null>();
  const release = latch();
  const done = db.transaction(async (trx) => {
    const consumed = await consumeOne<Item>(trx, TABLE, (qb) => qb.where({ id: 1 }));
    const pid = withPid ? ((await trx.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid : null;
    held.resolve(pid);
    await release.promise;
    return consumed;
  });
  // A failing before it holds must fail the test, not leave it waiting on `held`.
  const heldOrFailed = Promise.race([held.promise, done.then(() => Promise.reject(new Error('A ended before holding')))]);
  return { held: heldOrFailed, release: release.resolve, done };
}

describe('storage: consumeOne interleaving [postgres]', () => {
  const t = useTestBackend('postgres', { listen: false });

  beforeEach(() => createItems(t.backend.db));

  const FORMS = [
    { label: 'exported, on the pool', consume: (db: Database) => consumeOne<Item>(db.knex, TABLE, (qb) => qb.where({ id: 1 })) },
    { label: 'bound on backend.db', consume: (db: Database) => db.consumeOne<Item>(TABLE, (qb) => qb.where({ id: 1 })) },
    {
      label: "exported, in B's own transaction",
      consume: (db: Database) => db.transaction((trx) => consumeOne<Item>(trx, TABLE, (qb) => qb.where({ id: 1 }))),
    },
  ];

  /** A holds row 1 (consumed, uncommitted); B = `consume` must wait for A and then get null. */
  async function interleave(db: Database, a: ReturnType<typeof holdConsumed>, consume: (db: Database) => Promise<Item | null>): Promise<void> {
    const aPid = await within(a.held, 10_000, 'A consumed the row');

    let bSettled = false;
    const b = consume(db).finally(() => (bSettled = true));
    b.catch(() => undefined); // inspected below; never an unhandled rejection meanwhile

    // Prove B is blocked by A: a backend of this database whose blockers include A, waiting
    // on a lock, running its DELETE of our table.
    let blocked: Array<{ pid: number; wait_event_type: string | null; state: string; query: string }> = [];
    const deadline = Date.now() + 10_000;
    while (blocked.length === 0) {
      expect(bSettled, 'B finished while A still held the row: it did not wait for A').to.equal(false);
      expect(Date.now() < deadline, 'B never showed up waiting on A').to.equal(true);
      blocked = (
        (await db.knex.raw(
          `select pid, wait_event_type, state, query from pg_stat_activity
            where datname = current_database() and ? = any(pg_blocking_pids(pid))`,
          [aPid],
        )) as { rows: typeof blocked }
      ).rows;
      // pg_stat_activity is read field by field without a lock: a backend between its BEGIN and
      // its DELETE can show the lock wait while its state still says 'idle in transaction'.
      // Only a consistent sample counts; the deadline still fails a B that never waits.
      if (blocked.length === 1 && (blocked[0]!.state !== 'active' || blocked[0]!.wait_event_type !== 'Lock')) blocked = [];
      if (blocked.length === 0) await sleep(10);
    }
    expect(blocked, JSON.stringify(blocked)).to.have.length(1);
    expect(blocked[0]!.wait_event_type).to.equal('Lock');
    expect(blocked[0]!.state).to.equal('active');
    expect(blocked[0]!.query).to.match(new RegExp(`^delete from "${TABLE}"`, 'i'));
    // Still waiting a moment later (a lock wait, not a slow statement about to finish).
    await sleep(50);
    expect(bSettled).to.equal(false);

    a.release();
    expect(await within(a.done, 10_000, 'A committed')).to.deep.equal({ id: 1, label: 'target' });
    // The row A consumed is gone for B: a read-then-delete B read it before A committed and
    // would hand it out a second time here.
    expect(await within(b, 10_000, 'B finished after A committed')).to.equal(null);
    expect(await db.knex(TABLE).select('*').orderBy('id')).to.deep.equal([{ id: 2, label: 'bystander' }]);
  }

  for (const form of FORMS) {
    it(`${form.label}: A consumes and holds, B waits on A's row lock, A commits, B gets null`, async () => {
      const db = t.backend.db;
      const a = holdConsumed(db, true);
      try {
        await interleave(db, a, form.consume);
      } finally {
        a.release(); // a failed assertion must not leave A's transaction (and the pool) held
        await a.done.catch(() => undefined);
      }
    });
  }
});

/**
 * SQLite: a backend has ONE connection (storage/connect.ts), so within one backend B cannot even
 * start while A holds the transaction: it waits for the pool, then reads after A committed, and
 * any consumeOne, read-then-delete included, gives it null. Nothing to interleave there by
 * construction. Two connections to one file are what can interleave (two processes sharing a
 * database, the deployment the single-writer rule does not cover), and better-sqlite3 is
 * synchronous: B's busy wait blocks its whole thread, so B runs on a worker thread with its own
 * connection (the product's `connect`, busy_timeout 5 s) while A holds the write lock here.
 *
 * On the real consumeOne B's first statement is the DELETE: it waits in SQLite's busy handler
 * until A commits, then runs on a fresh snapshot and deletes nothing (null). A read-then-delete
 * B reads the row from its WAL snapshot (A has not committed) and then either fails at once with
 * SQLITE_BUSY (its read transaction cannot be upgraded while A writes: SQLite does not wait
 * there) or, outside a transaction, waits and then returns the row it read: a double consume.
 * Either way the test below fails.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const tsx = await import(workerData.tsxApi);
  tsx.register();
  const core = await import(workerData.core);
  const { knex } = core.connect(workerData.databaseUrl);
  try {
    await knex.raw('select 1'); // the connection is open (and its pragmas set) before B starts
    parentPort.postMessage({ kind: 'ready' });
    await new Promise((resolve) => parentPort.once('message', resolve));
    parentPort.postMessage({ kind: 'started', at: Date.now() });
    try {
      const result = await core.consumeOne(knex, workerData.table, (qb) => qb.where({ id: 1 }));
      parentPort.postMessage({ kind: 'result', result: result ?? null, at: Date.now() });
    } catch (err) {
      parentPort.postMessage({ kind: 'error', error: String(err && err.code ? err.code + ': ' + err.message : err), at: Date.now() });
    }
  } finally {
    await knex.destroy();
  }
})().catch((err) => parentPort.postMessage({ kind: 'error', error: 'worker: ' + String(err && err.stack), at: Date.now() }));
`;

/** A module's file URL as this test run resolves it (the `source` condition: the TypeScript under test). */
const resolved = (specifier: string) => pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;

type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'started'; at: number }
  | { kind: 'result'; result: Item | null; at: number }
  | { kind: 'error'; error: string; at: number };

describe('storage: consumeOne interleaving [sqlite]', () => {
  const t = useTestBackend('sqlite', { listen: false });

  beforeEach(() => createItems(t.backend.db));

  it('on one backend B waits for the single connection and gets null (serialised by construction)', async () => {
    const db = t.backend.db;
    const a = holdConsumed(db, false);
    await within(a.held, 10_000, 'A consumed the row');
    let bSettled = false;
    const b = db.consumeOne<Item>(TABLE, (qb) => qb.where({ id: 1 })).finally(() => (bSettled = true));
    await sleep(100);
    expect(bSettled, 'B ran while A held the only connection').to.equal(false);
    a.release();
    expect(await a.done).to.deep.equal({ id: 1, label: 'target' });
    expect(await within(b, 10_000, 'B')).to.equal(null);
  });

  it('a second connection to the file: A consumes and holds the write lock, B busy-waits, A commits, B gets null', async () => {
    const HOLD_MS = 400;
    const db = t.backend.db;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        // Bare: resolved from the repository root (mocha's working directory) with the `import`
        // condition; tsx's CommonJS entry, which a resolved path would name, cannot register.
        tsxApi: 'tsx/esm/api',
        core: resolved('@wallet/backend-core'),
        databaseUrl: t.databaseUrl,
        table: TABLE,
      },
    });
    let a: ReturnType<typeof holdConsumed> | undefined;
    const messages: WorkerMessage[] = [];
    const arrived = (kind: WorkerMessage['kind']) =>
      within(
        new Promise<WorkerMessage>((resolve) => {
          const check = () => {
            const found = messages.find((m) => m.kind === kind || m.kind === 'error');
            if (found) resolve(found);
            else setTimeout(check, 5);
          };
          check();
        }),
        20_000,
        `worker message ${kind}`,
      );
    worker.on('message', (message: WorkerMessage) => messages.push(message));
    worker.on('error', (err) => messages.push({ kind: 'error', error: `worker crashed: ${String(err)}`, at: Date.now() }));
    try {
      expect(await arrived('ready')).to.deep.equal({ kind: 'ready' });

      a = holdConsumed(db, false);
      await within(a.held, 10_000, 'A consumed the row');

      worker.postMessage('go');
      const started = await arrived('started');
      expect(started.kind, JSON.stringify(started)).to.equal('started');
      // B's statement cannot finish while A holds the write lock (its connection was already
      // open, so nothing else in it takes this long): it is waiting for A.
      await sleep(HOLD_MS);
      expect(messages.filter((m) => m.kind !== 'ready' && m.kind !== 'started'), 'B finished while A held the write lock').to.deep.equal([]);

      const committedAt = Date.now();
      a.release();
      expect(await within(a.done, 10_000, 'A committed')).to.deep.equal({ id: 1, label: 'target' });
      const outcome = await arrived('result');
      expect(outcome, JSON.stringify(outcome)).to.deep.include({ kind: 'result', result: null });
      expect(outcome.kind === 'result' && outcome.at >= committedAt, 'B finished only after A committed').to.equal(true);
      expect(await db.knex(TABLE).select('*').orderBy('id')).to.deep.equal([{ id: 2, label: 'bystander' }]);
    } finally {
      a?.release();
      await a?.done.catch(() => undefined);
      await worker.terminate();
    }
  });
});
