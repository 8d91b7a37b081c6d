import { expect } from 'chai';
import { deleteInBatches, type Knex } from '@wallet/backend-core';
import { eachDialect, rejectionOf, useTestBackend } from '../../harness/index.js';

/** A scratch table: `expired` rows are what the deletes select, the others must stay. */
const TABLE = 'batch_items';

interface Statements {
  /** Every delete statement knex sent to the database, in order. */
  deletes: number;
  /** A statement has been sent and its answer not yet handed back. */
  inFlight: boolean;
  stop(): void;
}

/** Counts the DELETE statements knex runs on `knex` (its `query` event fires as each one goes out). */
function watchStatements(knex: Knex): Statements {
  const state: Statements = {
    deletes: 0,
    inFlight: false,
    stop: () => knex.off('query', onQuery),
  };
  const onQuery = (query: { sql: string }) => {
    if (!/^delete /i.test(query.sql)) return;
    state.deletes += 1;
    state.inFlight = true;
  };
  knex.on('query', onQuery);
  return state;
}

/** Holds the thread for `ms`, as a slow machine or a long GC would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

eachDialect('storage: deleteInBatches', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });
  const knex = () => t.backend.db.knex;

  beforeEach(async () => {
    await knex().schema.createTable(TABLE, (table) => {
      table.integer('id').primary();
      table.boolean('expired').notNullable();
      table.index(['expired']);
    });
  });

  async function seed(expired: number, kept: number): Promise<void> {
    const rows = [...Array(expired + kept).keys()].map((i) => ({ id: i + 1, expired: i < expired }));
    // Interleaved ids, so a batch is never simply "the first n rows of the table".
    rows.sort((a, b) => (a.id % 7) - (b.id % 7) || a.id - b.id);
    for (let i = 0; i < rows.length; i += 250) await knex()(TABLE).insert(rows.slice(i, i + 250));
  }

  const expiredOnly = (qb: Knex.QueryBuilder) => qb.where('expired', true);
  const remaining = async () => (await knex()(TABLE).select('id', 'expired').orderBy('id')) as Array<{ id: number; expired: unknown }>;

  it('deletes exactly the matching rows over several statements and returns the total (2,500 rows, batch 1,000: 3 statements)', async () => {
    await seed(2_500, 400);
    const statements = watchStatements(knex());
    const batches: number[] = [];
    const total = await deleteInBatches(knex(), TABLE, expiredOnly, { batchSize: 1_000, onBatch: (deleted) => batches.push(deleted) });
    statements.stop();
    expect(total).to.equal(2_500);
    expect(batches).to.deep.equal([1_000, 1_000, 500]);
    expect(statements.deletes).to.equal(3);
    const left = await remaining();
    expect(left).to.have.length(400);
    expect(left.map((row) => row.id)).to.deep.equal([...Array(400).keys()].map((i) => 2_501 + i));
  });

  it('an exact multiple of the batch size ends with one statement that finds nothing', async () => {
    await seed(2_000, 10);
    const batches: number[] = [];
    expect(await deleteInBatches(knex(), TABLE, expiredOnly, { batchSize: 1_000, onBatch: (deleted) => batches.push(deleted) })).to.equal(2_000);
    expect(batches).to.deep.equal([1_000, 1_000, 0]);
    expect(await remaining()).to.have.length(10);
  });

  it('addresses rows by a named key column as well as by the dialect\'s row address', async () => {
    await seed(30, 5);
    const batches: number[] = [];
    expect(await deleteInBatches(knex(), TABLE, expiredOnly, { batchSize: 7, key: 'id', onBatch: (deleted) => batches.push(deleted) })).to.equal(30);
    expect(batches).to.deep.equal([7, 7, 7, 7, 2]);
    expect((await remaining()).map((row) => row.id)).to.deep.equal([31, 32, 33, 34, 35]);
  });

  it('the dialect default batch size is used when none is given', async () => {
    const size = t.backend.db.dialect.deleteBatchSize;
    await seed(size + 1, 3);
    const batches: number[] = [];
    expect(await deleteInBatches(knex(), TABLE, expiredOnly, { onBatch: (deleted) => batches.push(deleted) })).to.equal(size + 1);
    expect(batches).to.deep.equal([size, 1]);
  });

  it('a sweep with nothing to delete is one statement and returns 0', async () => {
    await seed(0, 50);
    const statements = watchStatements(knex());
    const batches: number[] = [];
    expect(await deleteInBatches(knex(), TABLE, expiredOnly, { batchSize: 1_000, onBatch: (deleted) => batches.push(deleted) })).to.equal(0);
    statements.stop();
    expect(batches).to.deep.equal([0]);
    expect(statements.deletes).to.equal(1);
    expect(await remaining()).to.have.length(50);
  });

  it('yields to the event loop between statements: work scheduled meanwhile runs before the delete finishes', async () => {
    await seed(60, 0);
    const statements = watchStatements(knex());
    let finished = false;
    /** What each turn of a setImmediate loop saw: the statements sent so far, whether one was running. */
    const seen: Array<{ deletes: number; inFlight: boolean }> = [];
    const tick = () => {
      if (finished) return;
      seen.push({ deletes: statements.deletes, inFlight: statements.inFlight });
      setImmediate(tick);
    };
    setImmediate(tick);
    const total = await deleteInBatches(knex(), TABLE, expiredOnly, {
      batchSize: 10,
      onBatch: () => {
        statements.inFlight = false;
        // Keep the loop busy after the answer (a microtask runs once the pause is scheduled):
        // a pause that is only a timer would be due by the loop's next timers phase, which
        // comes before its check phase, and the next statement would go out before the tick.
        queueMicrotask(() => busyFor(50));
      },
    });
    finished = true;
    statements.stop();
    expect(total).to.equal(60);
    expect(statements.deletes).to.equal(7);
    // Between statement k's answer and statement k+1 going out, the loop ran other work, for
    // every pair of statements (on Postgres it also runs while a statement is in the server).
    const between = new Set(seen.filter((turn) => !turn.inFlight && turn.deletes >= 1).map((turn) => turn.deletes));
    expect([...between].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });

  it('refuses a transaction: each statement must commit on its own', async () => {
    const err = (await rejectionOf(t.backend.db.transaction((trx) => deleteInBatches(trx, TABLE, expiredOnly)))) as Error;
    expect(err.message).to.match(/pass the pool, not a transaction/);
  });

  it('refuses a batch size that is not a positive integer', async () => {
    for (const batchSize of [0, -1, 1.5, Number.NaN]) {
      const err = await rejectionOf(deleteInBatches(knex(), TABLE, expiredOnly, { batchSize }));
      expect(err).to.be.instanceOf(RangeError);
    }
  });
});
