import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ChainAccess } from '@wallet/backend-core';
import { TipWorkers, type RunReport } from '../../packages/tips/src/workers.js';
import { eachDialect } from '../harness/index.js';
import { hex, tipAddress, txidOf, useChainFakes, useTipsWorld, type Asset, type TipsWorld } from './harness.js';
import { stubChains as stub, type ChainAnswers } from './chain-stub.js';

/**
 * TipWorkers called directly over the world's database with a stub ChainAccess: each reader
 * answers what the test says and records every call, so a read that should not happen, a
 * report count and the timestamps a move writes are seen directly. Rows are inserted as the
 * database's checks allow them (a draft has no funding txid, a grin tip has a commitment, …).
 */
const HOUR = 3_600_000;
const NOW = '2026-03-01T12:00:00.000Z';

/** The shared stub, answering null where the test gave no answer. */
const stubChains = (answers: ChainAnswers, off: readonly Asset[] = []) => stub(answers, { off, unanswered: 'null' });

function tipsOf(w: TipsWorld) {
  const knex = () => w.t.backend.db.knex('social_tips');
  const time = (iso: string) => w.t.backend.db.dialect.time(new Date(iso));
  /** A public tip row; `fields` override the asset's defaults (null removes a default). */
  const rowFor = (asset: Asset, status: string, fields: Record<string, unknown> = {}) => {
    const now = time(w.t.clock.now().toISOString());
    return {
      id: randomUUID(),
      sender_user_id: w.sender.userId,
      recipient_user_id: null,
      is_public: w.t.backend.db.dialect.bool(true),
      asset,
      amount: asset === 'btc' || asset === 'ltc' ? '50000' : '1000000000',
      status,
      tip_address: asset === 'grin' ? null : tipAddress(asset),
      secret_hash: hex(32),
      grin_commitment: asset === 'grin' ? `09${hex(32)}` : null,
      funding_txid: status === 'draft' ? null : txidOf(asset),
      funding_tx_key: (asset === 'xmr' || asset === 'wow') && status !== 'draft' ? hex(32) : null,
      sweep_txid: null,
      created_at: now,
      updated_at: now,
      ...fields,
    };
  };
  const insert = async (asset: Asset, status: string, fields: Record<string, unknown> = {}) => {
    const row = rowFor(asset, status, fields);
    await knex().insert(row);
    return row;
  };
  const row = async (id: string) => (await knex().where({ id }).first()) as Record<string, unknown>;
  const statusOf = async (id: string) => (await row(id)).status as string;
  const iso = (value: unknown) => (value === null ? null : new Date(value as string | Date).toISOString());
  return { knex, time, rowFor, insert, row, statusOf, iso };
}

eachDialect('tips workers, read directly: guards, reports and timestamps', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  const workersWith = (access: ChainAccess) => new TipWorkers(w.t.backend.db, w.t.clock, access);
  const runAll = async (workers: TipWorkers): Promise<RunReport[]> => [
    await workers.confirmFunding(w.t.logger),
    await workers.reconcileSweeps(w.t.logger),
    await workers.checkGrinReorgs(w.t.logger),
  ];
  const NOTHING: RunReport = { moved: 0, failed: 0 };
  /** ChainAnswers that would move any tip they are asked about. */
  const CONFIRMS_ALL: ChainAnswers = {
    received: () => ({ confirmations: 100, received: 10n ** 19n, outputs: [0] }),
    spent: () => ({ txid: hex(32), confirmations: 100 }),
    unspentOutput: () => null,
    kernel: () => ({ height: 1, confirmations: 100 }),
    receivedWithTxKey: () => ({ confirmations: 100, received: 10n ** 19n }),
    confirmations: () => 100,
  };

  beforeEach(() => {
    w.t.clock.set(NOW);
  });

  it('a chain that is off is not read: nothing moves and nothing fails', async () => {
    const t = tipsOf(w);
    const ids: string[] = [];
    for (const asset of ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const) {
      ids.push((await t.insert(asset, 'pending_confirmation')).id);
      ids.push((await t.insert(asset, 'claiming', { sweep_txid: txidOf(asset) })).id);
    }
    ids.push((await t.insert('grin', 'claimed', { sweep_txid: txidOf('grin'), settled_at: t.time(NOW) })).id);
    const { chains: access, calls } = stubChains(CONFIRMS_ALL, ['btc', 'ltc', 'xmr', 'wow', 'grin']);
    expect(await runAll(workersWith(access))).to.deep.equal([NOTHING, NOTHING, NOTHING]);
    expect(calls).to.deep.equal([]);
    for (const id of ids) expect(await t.statusOf(id)).not.to.equal('pending');
  });

  it('a row without what the read needs is not read (no address, no tx key, no recorded sweep)', async () => {
    const t = tipsOf(w);
    const rows = [
      await t.insert('btc', 'pending_confirmation', { tip_address: null }),
      await t.insert('xmr', 'pending_confirmation', { tip_address: null }),
      await t.insert('wow', 'pending_confirmation', { funding_tx_key: null }),
      await t.insert('ltc', 'claiming', { tip_address: null }),
      await t.insert('grin', 'claiming'),
      await t.insert('xmr', 'claiming'),
    ];
    const { chains: access, calls } = stubChains(CONFIRMS_ALL);
    expect(await runAll(workersWith(access))).to.deep.equal([NOTHING, NOTHING, NOTHING]);
    expect(calls).to.deep.equal([]);
    for (const row of rows) expect(await t.statusOf(row.id)).to.equal(row.status);
  });

  it('a transaction the chain does not know (null) decides nothing and is no failure', async () => {
    const t = tipsOf(w);
    const rows = [
      await t.insert('btc', 'pending_confirmation'),
      await t.insert('grin', 'pending_confirmation'),
      await t.insert('xmr', 'pending_confirmation'),
      await t.insert('ltc', 'claiming'),
      await t.insert('grin', 'claiming', { sweep_txid: txidOf('grin') }),
      await t.insert('wow', 'claiming', { sweep_txid: txidOf('wow') }),
    ];
    const { chains: access, calls } = stubChains({});
    expect(await runAll(workersWith(access))).to.deep.equal([NOTHING, NOTHING, NOTHING]);
    // Every row was asked about once (the grin sweep twice: the output, then the kernel); same updated_at, so in id order.
    expect(calls.map((call) => call[0]).sort()).to.deep.equal(['confirmations', 'kernel', 'received', 'receivedWithTxKey', 'spent', 'unspentOutput', 'unspentOutput']);
    for (const row of rows) expect(await t.statusOf(row.id)).to.equal(row.status);
  });

  it('a move stamps funded_at or settled_at with the clock and is counted; a failed read is counted once per tip', async () => {
    const t = tipsOf(w);
    const btc = await t.insert('btc', 'pending_confirmation');
    const grin = await t.insert('grin', 'pending_confirmation');
    const xmr = await t.insert('xmr', 'pending_confirmation');
    const grinOutput = new Map([[grin.grin_commitment as string, { height: 1, confirmations: 10 }]]);
    const { chains: access } = stubChains({
      received: () => ({ confirmations: 2, received: 50_000n, outputs: [0] }),
      unspentOutput: (commitment) => grinOutput.get(commitment) ?? null,
      receivedWithTxKey: () => ({ confirmations: 10, received: 1_000_000_000n }),
      confirmations: () => 10,
    });
    const workers = workersWith(access);
    w.t.clock.set('2026-03-01T13:00:00.000Z');
    expect(await workers.confirmFunding(w.t.logger)).to.deep.equal({ moved: 3, failed: 0 });
    for (const row of [btc, grin, xmr]) {
      const stored = await t.row(row.id);
      expect([stored.status, t.iso(stored.funded_at), t.iso(stored.updated_at), t.iso(stored.settled_at)], row.asset).to.deep.equal(['pending', '2026-03-01T13:00:00.000Z', '2026-03-01T13:00:00.000Z', null]);
    }
    const sweep = txidOf('xmr');
    const claiming = await t.insert('xmr', 'claiming', { sweep_txid: sweep });
    w.t.clock.set('2026-03-01T14:00:00.000Z');
    expect(await workers.reconcileSweeps(w.t.logger)).to.deep.equal({ moved: 1, failed: 0 });
    const settled = await t.row(claiming.id);
    expect([settled.status, t.iso(settled.settled_at), t.iso(settled.updated_at)]).to.deep.equal(['claimed', '2026-03-01T14:00:00.000Z', '2026-03-01T14:00:00.000Z']);

    const failing = [await t.insert('btc', 'pending_confirmation'), await t.insert('ltc', 'pending_confirmation')];
    const { chains: down } = stubChains({
      received: () => {
        throw new Error('indexer down');
      },
    });
    expect(await workersWith(down).confirmFunding(w.t.logger)).to.deep.equal({ moved: 0, failed: 2 });
    for (const row of failing) expect(await t.statusOf(row.id)).to.equal('pending_confirmation');
  });

  it('only the tips in the worker’s state are read', async () => {
    const t = tipsOf(w);
    const wanted = await t.insert('btc', 'pending_confirmation');
    for (const status of ['draft', 'pending', 'funding_mismatch', 'claiming', 'claimed', 'cancelled', 'clawed_back']) await t.insert('btc', status);
    const { chains: access, calls } = stubChains({});
    expect(await workersWith(access).confirmFunding(w.t.logger)).to.deep.equal(NOTHING);
    expect(calls).to.deep.equal([['received', wanted.funding_txid, wanted.tip_address]]);
  });

  it('a tip that moved between the read and the update is not counted or logged as moved', async () => {
    const t = tipsOf(w);
    const tip = await t.insert('btc', 'pending_confirmation');
    const { chains: access } = stubChains({
      received: () => ({ confirmations: 2, received: 50_000n, outputs: [0] }),
    });
    const clawedMeanwhile: ChainAccess = {
      ...access,
      utxo: (asset) => {
        const reader = access.utxo(asset)!;
        return {
          ...reader,
          received: async (txid, address) => {
            await t.knex().where({ id: tip.id }).update({ status: 'clawed_back' });
            return reader.received(txid, address);
          },
        };
      },
    };
    expect(await workersWith(clawedMeanwhile).confirmFunding(w.t.logger)).to.deep.equal(NOTHING);
    expect(await t.statusOf(tip.id)).to.equal('clawed_back');
    expect(w.t.logger.lines.filter((line) => line.msg === 'tip moved by the chain' && line.tip_id === tip.id)).to.deep.equal([]);
  });

  it('clawed-back watch: a tip clawed back up to 7 days ago (inclusive) with a recorded sweep that confirmed is claimed; an older one, or one without a recorded sweep, is not read', async () => {
    const t = tipsOf(w);
    const at = (iso: string, fields: Record<string, unknown> = {}) => t.insert('xmr', 'clawed_back', { sweep_txid: txidOf('xmr'), settled_at: t.time(iso), ...fields });
    const recent = await at('2026-03-01T11:00:00.000Z'); // 1 h
    const week = await at('2026-02-22T12:00:00.000Z'); // exactly 7 days
    const older = await at('2026-02-22T11:59:59.999Z'); // 7 days + 1 ms
    const unrecorded = await at('2026-03-01T11:00:00.000Z', { sweep_txid: null });
    const { chains: access, calls } = stubChains({ confirmations: () => 10 });
    expect(await workersWith(access).reconcileSweeps(w.t.logger)).to.deep.equal({ moved: 2, failed: 0 });
    for (const row of [recent, week]) {
      const stored = await t.row(row.id);
      expect([stored.status, t.iso(stored.settled_at), t.iso(stored.updated_at)]).to.deep.equal(['claimed', NOW, NOW]);
    }
    expect(await t.statusOf(older.id)).to.equal('clawed_back');
    expect(await t.statusOf(unrecorded.id)).to.equal('clawed_back');
    expect(calls.map((call) => call[1]).sort()).to.deep.equal([recent.sweep_txid, week.sweep_txid].sort());
  });

  it('clawed-back watch on BTC/LTC: only a spend whose txid is the recorded one counts, and only at the asset’s depth', async () => {
    const t = tipsOf(w);
    const recorded = txidOf('btc');
    const theirs = await t.insert('btc', 'clawed_back', { sweep_txid: recorded, settled_at: t.time(NOW) });
    const senders = await t.insert('ltc', 'clawed_back', { sweep_txid: txidOf('ltc'), settled_at: t.time(NOW) });
    const shallow = await t.insert('ltc', 'clawed_back', { sweep_txid: recorded, settled_at: t.time(NOW) });
    const spends = new Map<string, { txid: string; confirmations: number }>([
      [theirs.funding_txid as string, { txid: recorded.toUpperCase(), confirmations: 2 }],
      [senders.funding_txid as string, { txid: txidOf('ltc'), confirmations: 100 }],
      [shallow.funding_txid as string, { txid: recorded, confirmations: 5 }],
    ]);
    const { chains: access } = stubChains({ spent: (txid) => spends.get(txid) ?? null });
    expect(await workersWith(access).reconcileSweeps(w.t.logger)).to.deep.equal({ moved: 1, failed: 0 });
    expect([await t.statusOf(theirs.id), await t.statusOf(senders.id), await t.statusOf(shallow.id)]).to.deep.equal(['claimed', 'clawed_back', 'clawed_back']);
  });

  it('grin reorg check: a tip settled up to 24 hours ago (inclusive) goes back to claiming, an older one does not', async () => {
    const t = tipsOf(w);
    const at = (iso: string) => t.insert('grin', 'claimed', { sweep_txid: txidOf('grin'), settled_at: t.time(iso) });
    const recent = await at('2026-03-01T11:00:00.000Z'); // 1 h
    const day = await at('2026-02-28T12:00:00.000Z'); // exactly 24 h
    const older = await at('2026-02-28T11:59:59.999Z'); // 24 h + 1 ms
    const { chains: access } = stubChains({ unspentOutput: () => ({ height: 1, confirmations: 3 }) });
    expect(await workersWith(access).checkGrinReorgs(w.t.logger)).to.deep.equal({ moved: 2, failed: 0 });
    for (const row of [recent, day]) {
      const stored = await t.row(row.id);
      expect([stored.status, stored.settled_at, t.iso(stored.updated_at)]).to.deep.equal(['claiming', null, NOW]);
    }
    expect(await t.statusOf(older.id)).to.equal('claimed');
  });

  it('grin reorg check: claimed tips of other assets never fill its batch', async () => {
    const t = tipsOf(w);
    // The 100 others were never read (checked_at null) and the grin tip was: without the asset
    // filter the others come first in the rotation and fill the batch of 100.
    const earlier = t.time(new Date(new Date(NOW).getTime() - HOUR).toISOString());
    const others = Array.from({ length: 100 }, () => t.rowFor('btc', 'claimed', { settled_at: t.time(NOW) }));
    for (let i = 0; i < others.length; i += 20) await t.knex().insert(others.slice(i, i + 20));
    const grin = await t.insert('grin', 'claimed', { sweep_txid: txidOf('grin'), settled_at: t.time(NOW), checked_at: earlier });
    const { chains: access, calls } = stubChains({ unspentOutput: () => ({ height: 1, confirmations: 3 }) });
    expect(await workersWith(access).checkGrinReorgs(w.t.logger)).to.deep.equal({ moved: 1, failed: 0 });
    expect(calls).to.deep.equal([['unspentOutput', grin.grin_commitment]]);
    expect(await t.statusOf(grin.id)).to.equal('claiming');
  });
});
