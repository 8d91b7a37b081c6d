import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ChainAccess } from '@wallet/backend-core';
import { TipWorkers } from '../../packages/tips/src/workers.js';
import { eachDialect } from '../harness/index.js';
import { hex, tipAddress, txidOf, useChainFakes, useTipsWorld } from './harness.js';

/**
 * The survivors of the funding/sweep workers' rework (the sweep rule moved to sweep.ts, the
 * rotation by checked_at, funding_duplicate): TipWorkers called directly with a stub ChainAccess
 * over rows inserted as the database's checks allow them.
 */
const NOW = '2026-03-01T12:00:00.000Z';

eachDialect('tips workers after the rework: duplicates and the run report', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);

  const insertBtc = async (status: string, fields: Record<string, unknown> = {}) => {
    const { db } = w.t.backend;
    const now = db.dialect.time(new Date(NOW));
    const row = {
      id: randomUUID(),
      sender_user_id: w.sender.userId,
      is_public: db.dialect.bool(true),
      asset: 'btc',
      amount: '50000',
      status,
      tip_address: tipAddress('btc'),
      secret_hash: hex(32),
      funding_txid: txidOf('btc'),
      created_at: now,
      updated_at: now,
      ...fields,
    };
    await db.knex('social_tips').insert(row);
    return row;
  };
  const statusOf = async (id: string) => ((await w.t.backend.db.knex('social_tips').where({ id }).first()) as { status: string }).status;

  beforeEach(() => {
    w.t.clock.set(NOW);
  });

  it('a pending_confirmation tip marked funding_duplicate is never read or funded, even when its output confirms; an unmarked one beside it is', async () => {
    const duplicate = await insertBtc('pending_confirmation', { funding_duplicate: w.t.backend.db.dialect.bool(true) });
    const honest = await insertBtc('pending_confirmation');
    const calls: string[] = [];
    const access = {
      utxo: () => ({
        received: async (txid: string) => {
          calls.push(txid);
          return { confirmations: 100, received: 50_000n, outputs: [0] };
        },
      }),
    } as unknown as ChainAccess;
    const workers = new TipWorkers(w.t.backend.db, w.t.clock, access);
    expect(await workers.confirmFunding(w.t.logger)).to.deep.equal({ moved: 1, failed: 0 });
    expect(calls).to.deep.equal([honest.funding_txid]);
    expect([await statusOf(duplicate.id), await statusOf(honest.id)]).to.deep.equal(['pending_confirmation', 'pending']);
  });

  it('the sweep reconciler counts the failed reads of both its passes: claiming and clawed-back tips', async () => {
    const claiming = [await insertBtc('claiming'), await insertBtc('claiming')];
    const clawed = await insertBtc('clawed_back', { sweep_txid: txidOf('btc'), settled_at: w.t.backend.db.dialect.time(new Date(NOW)) });
    const access = {
      utxo: () => ({
        spent: async () => {
          throw new Error('indexer down');
        },
      }),
    } as unknown as ChainAccess;
    const workers = new TipWorkers(w.t.backend.db, w.t.clock, access);
    expect(await workers.reconcileSweeps(w.t.logger)).to.deep.equal({ moved: 0, failed: 3 });
    for (const row of [...claiming, clawed]) expect(await statusOf(row.id)).to.equal(row.status);
  });
});
