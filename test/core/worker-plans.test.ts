import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { ChainAccess, Logger } from '@wallet/backend-core';
import { erasurePlugin } from '@wallet/erasure';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { tipsPlugin } from '@wallet/tips';
import { TipWorkers, WORKER_BATCH } from '../../packages/tips/src/workers.js';
import { createTestBackend, eachDialect, expectPlan, statementsOf, type DialectName, type TestBackend } from '../harness/index.js';

/**
 * Issue 35 (3): every scheduled worker's read reads only the rows it returns. Each worker runs
 * against a few thousand rows it must not read (and more rows that match than its batch), its
 * statement is captured as knex built it, and its plan must read the intended index in order:
 * no sort (Postgres `Sort`/`Incremental Sort`, SQLite `TEMP B-TREE`), no full scan, and on
 * Postgres (EXPLAIN ANALYZE, after ANALYZE; no planner settings changed) the scan hands on no
 * more rows than the query returns, plus `slack`.
 */

async function insertAll(knex: Knex, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) await knex(table).insert(rows.slice(i, i + 200));
}

async function analyze(dialect: DialectName, knex: Knex, table: string): Promise<void> {
  if (dialect === 'postgres') await knex.raw('ANALYZE ??', [table]);
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;
/** Every chain off: a worker reads its batch, stamps it and moves nothing. */
const chainsOff = { utxo: () => null, grin: () => null, cryptonote: () => null } as unknown as ChainAccess;

const HOUR = 3_600_000;
const hex = (n: number) => randomUUID().replace(/-/g, '').repeat(3).slice(0, n);

eachDialect('worker queries read only the rows they return: tips chain workers', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' })], settings: { btcEsploraUrl: 'http://127.0.0.1:9' } });
  });
  afterEach(async () => t?.close());

  it('funding-watch, sweep-reconciler (claiming and clawed back) and grin-reorg-check each walk their index in (checked_at NULLs first, id) order and stop at the batch', async () => {
    const knex = t.backend.db.knex;
    const time = (ms: number) => t.backend.db.dialect.time(new Date(t.clock.now().getTime() + ms));
    let n = 0;
    const tip = (status: string, fields: Record<string, unknown> = {}) => {
      n += 1;
      const grin = fields.asset === 'grin';
      return {
        id: randomUUID(),
        is_public: t.backend.db.dialect.bool(true),
        secret_hash: hex(64),
        asset: 'btc',
        amount: '50000',
        status,
        tip_address: grin ? null : `bc1q${hex(38)}`,
        grin_commitment: grin ? `09${hex(64)}` : null,
        funding_txid: status === 'draft' || status === 'cancelled' ? null : hex(64),
        // Older rows were read longer ago; every tenth was never read.
        checked_at: n % 10 === 0 ? null : time(-n * 1000),
        created_at: time(-n * 1000),
        updated_at: time(-n * 1000),
        funding_duplicate: t.backend.db.dialect.bool(false),
        sweep_txid: null,
        settled_at: null,
        ...fields,
      };
    };
    const many = (count: number, make: () => Record<string, unknown>) => Array.from({ length: count }, make);
    await insertAll(knex, 'social_tips', [
      ...many(1500, () => tip('pending_confirmation')),
      ...many(300, () => tip('pending_confirmation', { funding_duplicate: t.backend.db.dialect.bool(true), status: 'funding_mismatch' })),
      ...many(1500, () => tip('claiming')),
      ...many(1500, () => tip('pending')),
      ...many(1500, () => tip('draft')),
      // Clawed back: with a recorded sweep in the 7-day watch, outside it, and without one.
      ...many(300, () => tip('clawed_back', { sweep_txid: hex(64), settled_at: time(-HOUR) })),
      ...many(1500, () => tip('clawed_back', { sweep_txid: hex(64), settled_at: time(-30 * 24 * HOUR) })),
      ...many(1500, () => tip('clawed_back', { settled_at: time(-HOUR) })),
      // Claimed: grin within the 24-hour watch, grin before it, and other assets.
      ...many(300, () => tip('claimed', { asset: 'grin', amount: '1000000000', settled_at: time(-HOUR) })),
      ...many(1500, () => tip('claimed', { asset: 'grin', amount: '1000000000', settled_at: time(-30 * 24 * HOUR) })),
      ...many(1500, () => tip('claimed', { settled_at: time(-HOUR) })),
    ]);
    await analyze(dialect, knex, 'social_tips');
    const workers = new TipWorkers(t.backend.db, t.clock, chainsOff);
    const reads = async (run: () => Promise<unknown>) => statementsOf(knex, /^select \* from .social_tips. where/, run);

    const [funding] = await reads(() => workers.confirmFunding(silent));
    await expectPlan(dialect, knex, funding!, { table: 'social_tips', index: 'social_tips_worker_rotation', returns: WORKER_BATCH });
    const [claiming, clawedBack] = await reads(() => workers.reconcileSweeps(silent));
    await expectPlan(dialect, knex, claiming!, { table: 'social_tips', index: 'social_tips_worker_rotation', returns: WORKER_BATCH });
    await expectPlan(dialect, knex, clawedBack!, { table: 'social_tips', index: 'social_tips_worker_rotation', returns: WORKER_BATCH });
    const [reorg] = await reads(() => workers.checkGrinReorgs(silent));
    await expectPlan(dialect, knex, reorg!, { table: 'social_tips', index: 'social_tips_reorg_watch', returns: WORKER_BATCH });
  });

  it('the batch is the least recently read, never-read tips first, then by id, as before', async () => {
    const knex = t.backend.db.knex;
    const time = (ms: number) => t.backend.db.dialect.time(new Date(t.clock.now().getTime() + ms));
    const ids = Array.from({ length: 6 }, () => randomUUID()).sort();
    const checked = [time(-1000), null, time(-5000), time(-1000), null, time(-5000)];
    await insertAll(
      knex,
      'social_tips',
      ids.map((id, i) => ({
        id,
        is_public: t.backend.db.dialect.bool(true),
        secret_hash: hex(64),
        asset: 'btc',
        amount: '50000',
        status: 'pending_confirmation',
        tip_address: `bc1q${hex(38)}`,
        funding_txid: hex(64),
        checked_at: checked[i],
        funding_duplicate: t.backend.db.dialect.bool(false),
        created_at: time(0),
        updated_at: time(0),
      })),
    );
    const read: string[][] = [];
    const listen = (response: unknown, query: { sql: string }) => {
      if (/^select \* from .social_tips. where/.test(query.sql)) read.push((response as Array<{ id: string }>).map((row) => row.id));
    };
    knex.on('query-response', listen);
    try {
      await new TipWorkers(t.backend.db, t.clock, chainsOff).confirmFunding(silent);
    } finally {
      knex.off('query-response', listen);
    }
    expect(read).to.deep.equal([[ids[1], ids[4], ids[2], ids[5], ids[0], ids[3]]]);
  });
});

eachDialect('worker queries read only the rows they return: erasure sweep', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });
  });
  afterEach(async () => t?.close());

  it('the claim reads one due request on (status, due_at, id) in order; the count and the expiry read only what they count or move', async () => {
    const knex = t.backend.db.knex;
    const time = (ms: number) => t.backend.db.dialect.time(new Date(t.clock.now().getTime() + ms));
    let n = 0;
    const request = (status: string, fields: Record<string, unknown> = {}) => {
      n += 1;
      return { id: randomUUID(), user_id: null, status, created_at: time(-n * 1000), ...fields };
    };
    const many = (count: number, make: () => Record<string, unknown>) => Array.from({ length: count }, make);
    const due = 300;
    const seed = () => [
      ...many(due, () => request('confirmed', { confirmed_at: time(-100 * HOUR), due_at: time(-(n % 50) * 1000) })),
      ...many(300, () => request('requested', { created_at: time(-100 * HOUR - n * 1000) })),
    ];
    await insertAll(knex, 'erasure_requests', [
      ...many(2000, () => request('confirmed', { confirmed_at: time(-HOUR), due_at: time(72 * HOUR + n * 1000) })),
      ...many(2000, () => request('completed', { ended_at: time(-HOUR) })),
      ...many(2000, () => request('requested')),
      ...seed(),
    ]);
    await analyze(dialect, knex, 'erasure_requests');
    const queries = await statementsOf(knex, /erasure_requests/, () => t.backend.scheduler.runNow('erasure.sweep'));
    const expire = queries.find((q) => /^update .erasure_requests. set .status./.test(q.sql) && q.sql.includes('created_at'))!;
    const count = queries.find((q) => /^select count/.test(q.sql))!;
    const claim = queries.find((q) => /order by .due_at. asc, .id. asc limit/.test(q.sql))!;
    // Put back what the run moved, so each statement finds its rows again.
    await insertAll(knex, 'erasure_requests', seed());
    await analyze(dialect, knex, 'erasure_requests');
    await expectPlan(dialect, knex, claim, { table: 'erasure_requests', index: 'erasure_requests_status_due', returns: 1 });
    const dueNow = Number(((await knex('erasure_requests').where({ status: 'confirmed' }).where('due_at', '<=', time(0)).count({ c: '*' }).first()) as { c: number | string }).c);
    await expectPlan(dialect, knex, count, { table: 'erasure_requests', index: 'erasure_requests_status_due', returns: dueNow });
    await expectPlan(dialect, knex, expire, { table: 'erasure_requests', index: 'erasure_requests_status_created', returns: 300 });
  });
});

eachDialect('worker queries read only the rows they return: grin-relay expiry sweep', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [grinRelayPlugin({ expiryHours: 24 })] });
  });
  afterEach(async () => t?.close());

  it('the expiry reads the open entries past their expiry on (status, expires_at) and nothing else', async () => {
    const knex = t.backend.db.knex;
    const time = (ms: number) => t.backend.db.dialect.time(new Date(t.clock.now().getTime() + ms));
    const entry = (status: string, expiresInMs: number) => ({
      id: randomUUID(),
      slate_id: randomUUID(),
      slatepack: 'BEGINSLATEPACK. x. ENDSLATEPACK.',
      amount_nanogrin: '1000000000',
      status,
      created_at: time(-48 * HOUR),
      updated_at: time(-48 * HOUR),
      expires_at: time(expiresInMs),
    });
    const many = (count: number, make: () => Record<string, unknown>) => Array.from({ length: count }, make);
    const seed = () => [...many(100, () => entry('pending_recipient', -HOUR)), ...many(100, () => entry('pending_sender', -HOUR))];
    await insertAll(knex, 'grin_relay_entries', [
      ...many(2000, () => entry('expired', -24 * HOUR)),
      ...many(2000, () => entry('finalized', -24 * HOUR)),
      ...many(1000, () => entry('pending_recipient', 12 * HOUR)),
      ...many(1000, () => entry('pending_sender', 12 * HOUR)),
      ...seed(),
    ]);
    await analyze(dialect, knex, 'grin_relay_entries');
    const [expire] = await statementsOf(knex, /^update .grin_relay_entries./, () => t.backend.scheduler.runNow('grin-relay.expiry-sweep'));
    await insertAll(knex, 'grin_relay_entries', seed());
    await analyze(dialect, knex, 'grin_relay_entries');
    await expectPlan(dialect, knex, expire!, { table: 'grin_relay_entries', index: 'grin_relay_entries_status_expires_at_index', returns: 200 });
  });
});
