import { expect } from 'chai';
import { sweepState, type SweepEvidence } from '../../packages/tips/src/sweep.js';
import type { StoredTip } from '../../packages/tips/src/tip.js';
import { hex, tipAddress, txidOf, type Asset } from './harness.js';
import { stubChains as stub, type ChainAnswers } from './chain-stub.js';

/**
 * sweepState called directly (it is the one rule the reconciler and clawback share): a stub
 * ChainAccess answers what the test says and records every read, and a reader asked about a
 * tip that gives it nothing to look for throws, so "not read" is seen both as no call and as no
 * outage turned into a refusal. Depths are the spec's, written out here: btc 2, ltc 6, the rest 10.
 * No database: the unit takes a row, and the rows here are the ones a caller can hand it.
 */
const DEPTH: Record<Asset, number> = { btc: 2, ltc: 6, xmr: 10, wow: 10, grin: 10 };

/** The shared stub, throwing on a read the test gave no answer (it must not happen). */
const stubChains = (answers: ChainAnswers, off: readonly Asset[] = []) => stub(answers, { off, unanswered: 'throw' });

/** A claiming tip of `asset` with its funding recorded and a claimer's sweep txid; `fields` override. */
function tipOf(asset: Asset, fields: Partial<StoredTip> = {}): StoredTip {
  return {
    id: `tip-${hex(4)}`,
    sender_user_id: 'sender',
    recipient_user_id: null,
    recipient_erased: false,
    is_public: true,
    asset,
    amount: '50000',
    status: 'claiming',
    tip_address: asset === 'grin' ? null : tipAddress(asset),
    ciphertext: null,
    secret_hash: hex(32),
    grin_commitment: asset === 'grin' ? `09${hex(32)}` : null,
    funding_txid: asset === 'grin' ? null : txidOf(asset),
    funding_tx_key: asset === 'xmr' || asset === 'wow' ? hex(32) : null,
    sweep_txid: txidOf(asset),
    created_at: null,
    updated_at: null,
    funded_at: null,
    settled_at: null,
    ...fields,
  };
}

const BOTH: readonly SweepEvidence[] = ['any', 'recorded'];

describe('tips sweepState: what the chain says of a sweep', () => {
  it('a chain that is off is chain_off for every asset, whatever the tip records, and nothing is read', async () => {
    const { chains, calls } = stubChains({}, ['btc', 'ltc', 'xmr', 'wow', 'grin']);
    for (const asset of ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const) {
      for (const evidence of BOTH) {
        expect(await sweepState(chains, tipOf(asset), evidence), `${asset} ${evidence}`).to.equal('chain_off');
        expect(await sweepState(chains, tipOf(asset, { sweep_txid: null }), evidence), `${asset} ${evidence}, no sweep`).to.equal('chain_off');
      }
    }
    expect(calls).to.deep.equal([]);
  });

  it('btc/ltc: without a funding output to look at, unconfirmed and nothing read', async () => {
    const { chains, calls } = stubChains({});
    for (const asset of ['btc', 'ltc'] as const) {
      for (const evidence of BOTH) {
        expect(await sweepState(chains, tipOf(asset, { tip_address: null }), evidence), `${asset} ${evidence}, no address`).to.equal('unconfirmed');
        expect(await sweepState(chains, tipOf(asset, { funding_txid: null }), evidence), `${asset} ${evidence}, no funding txid`).to.equal('unconfirmed');
      }
    }
    expect(calls).to.deep.equal([]);
  });

  it('btc/ltc with recorded evidence and no recorded sweep: unconfirmed and nothing read; with any evidence the spend is read', async () => {
    const { chains, calls } = stubChains({});
    for (const asset of ['btc', 'ltc'] as const) expect(await sweepState(chains, tipOf(asset, { sweep_txid: null }), 'recorded'), asset).to.equal('unconfirmed');
    expect(calls).to.deep.equal([]);

    const tip = tipOf('btc', { sweep_txid: null });
    const { chains: reading, calls: reads } = stubChains({ spent: () => ({ txid: hex(32), confirmations: DEPTH.btc }) });
    expect(await sweepState(reading, tip, 'any')).to.equal('confirmed');
    expect(reads).to.deep.equal([['spent', tip.funding_txid, tip.tip_address]]);
  });

  it('btc/ltc: a spend confirms at the asset’s depth, not one block before; no spend is unconfirmed', async () => {
    for (const asset of ['btc', 'ltc'] as const) {
      for (const evidence of BOTH) {
        const tip = tipOf(asset);
        const at = (confirmations: number) => stubChains({ spent: () => ({ txid: tip.sweep_txid!, confirmations }) }).chains;
        expect(await sweepState(at(DEPTH[asset] - 1), tip, evidence), `${asset} ${evidence} depth - 1`).to.equal('unconfirmed');
        expect(await sweepState(at(DEPTH[asset]), tip, evidence), `${asset} ${evidence} depth`).to.equal('confirmed');
        expect(await sweepState(stubChains({ spent: () => null }).chains, tip, evidence), `${asset} ${evidence} no spend`).to.equal('unconfirmed');
      }
    }
  });

  it('btc/ltc: recorded evidence counts only the recorded txid (in any letter case); any evidence counts every spend', async () => {
    const tip = tipOf('ltc');
    const spentBy = (txid: string) => stubChains({ spent: () => ({ txid, confirmations: 100 }) }).chains;
    expect(await sweepState(spentBy(hex(32)), tip, 'recorded')).to.equal('unconfirmed');
    expect(await sweepState(spentBy(hex(32)), tip, 'any')).to.equal('confirmed');
    expect(await sweepState(spentBy(tip.sweep_txid!.toUpperCase()), tip, 'recorded')).to.equal('confirmed');
    expect(await sweepState(spentBy(tip.sweep_txid!), tip, 'recorded')).to.equal('confirmed');
  });

  it('grin: without a commitment or a recorded kernel, unconfirmed and nothing read', async () => {
    const { chains, calls } = stubChains({});
    for (const evidence of BOTH) {
      expect(await sweepState(chains, tipOf('grin', { sweep_txid: null }), evidence), `${evidence}, no kernel`).to.equal('unconfirmed');
      expect(await sweepState(chains, tipOf('grin', { grin_commitment: null }), evidence), `${evidence}, no commitment`).to.equal('unconfirmed');
    }
    expect(calls).to.deep.equal([]);
  });

  it('grin: the commitment still unspent is unconfirmed without reading the kernel; once it is gone, the recorded kernel at depth 10 confirms, at 9 or unknown it does not', async () => {
    const tip = tipOf('grin');
    const unspent = stubChains({ unspentOutput: () => ({ height: 5, confirmations: 20 }) });
    expect(await sweepState(unspent.chains, tip, 'any')).to.equal('unconfirmed');
    expect(unspent.calls).to.deep.equal([['unspentOutput', tip.grin_commitment]]);

    const spentWithKernel = (kernel: { height: number; confirmations: number } | null) => stubChains({ unspentOutput: () => null, kernel: () => kernel });
    const atDepth = spentWithKernel({ height: 5, confirmations: DEPTH.grin });
    for (const evidence of BOTH) expect(await sweepState(atDepth.chains, tip, evidence), evidence).to.equal('confirmed');
    expect(atDepth.calls.slice(0, 2)).to.deep.equal([
      ['unspentOutput', tip.grin_commitment],
      ['kernel', tip.sweep_txid],
    ]);
    expect(await sweepState(spentWithKernel({ height: 5, confirmations: DEPTH.grin - 1 }).chains, tip, 'any')).to.equal('unconfirmed');
    expect(await sweepState(spentWithKernel(null).chains, tip, 'any')).to.equal('unconfirmed');
  });

  it('xmr/wow: the recorded sweep at depth 10 confirms, at 9 or unknown (null) it does not; without a recorded sweep nothing is read', async () => {
    for (const asset of ['xmr', 'wow'] as const) {
      const tip = tipOf(asset);
      for (const evidence of BOTH) {
        const at = stubChains({ confirmations: () => DEPTH[asset] });
        expect(await sweepState(at.chains, tip, evidence), `${asset} ${evidence} depth`).to.equal('confirmed');
        expect(at.calls).to.deep.equal([['confirmations', tip.sweep_txid]]);
        expect(await sweepState(stubChains({ confirmations: () => DEPTH[asset] - 1 }).chains, tip, evidence), `${asset} ${evidence} depth - 1`).to.equal('unconfirmed');
        expect(await sweepState(stubChains({ confirmations: () => null }).chains, tip, evidence), `${asset} ${evidence} unknown`).to.equal('unconfirmed');
        const none = stubChains({});
        expect(await sweepState(none.chains, tipOf(asset, { sweep_txid: null }), evidence), `${asset} ${evidence} no sweep`).to.equal('unconfirmed');
        expect(none.calls).to.deep.equal([]);
      }
    }
  });
});
