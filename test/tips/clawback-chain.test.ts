import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { address as addressCodec, networks, Transaction, type Network } from 'bitcoinjs-lib';
import { utxoNetwork } from '../../packages/core/src/chains/utxo/index.js';
import { tipsPlugin } from '@wallet/tips';
import { createTestBackend, eachDialect } from '../harness/index.js';
import { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { SHARE_BASE, tipAddress, tipBody, txidOf, useChainFakes, useTipsWorld, type Asset, type TipsWorld } from './harness.js';

/**
 * Issue 29 (3): a tip's final status agrees with the chain. Clawback asks the chain before it
 * moves a claimed tip (spec rule 4: only while the sweep has not confirmed) and refuses with the
 * upstream's 503 when it cannot ask; the reconciler moves a clawed-back tip whose recorded
 * claimer sweep confirmed to `claimed`, and leaves one the sender swept. Every asset the workers
 * watch, through the fakes of the real upstream protocols.
 */

const TIPS = '/api/v1/tips/social';
/** Depths the chain fakes are set to: well past every asset's confirmation depth (at most 10), and 0 (unconfirmed). */
const DEEP = 20;
/** The settings that give each asset its chain access (the fakes' URLs). */
const CHAIN_SETTINGS: Record<Asset, string[]> = {
  btc: ['btcEsploraUrl'],
  ltc: ['ltcEsploraUrl'],
  xmr: ['xmrLwsUrl', 'xmrDaemonUrl'],
  wow: ['wowLwsUrl', 'wowDaemonUrl'],
  grin: ['grinNodeUrl', 'grinNodeApiSecret'],
};

/** A transaction paying `outputs` (address → satoshis), spending `spending` or a made-up input. */
function payment(network: Network, outputs: Array<[string, number]>, spending?: { txid: string; vout: number }): string {
  const tx = new Transaction();
  tx.addInput(spending ? Buffer.from(spending.txid, 'hex').reverse() : randomBytes(32), spending?.vout ?? 0);
  for (const [address, value] of outputs) tx.addOutput(addressCodec.toOutputScript(address, network), value);
  return tx.toHex();
}

const rowOf = async (w: TipsWorld, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;
const reconcile = (w: TipsWorld) => w.t.backend.scheduler.runNow('tips.sweep-reconciler');

/** How each asset's chain is driven: a funded tip, a sweep of it (the claimer's or the sender's), its confirmation, an outage. */
interface ChainDriver {
  /** Create-body fields naming a funding the chain knows. */
  funding(): Record<string, unknown>;
  /** A sweep of the tip's funds: its txid (the kernel excess on Grin), not yet on chain. */
  sweep(tip: Record<string, unknown>): string;
  /** Puts the sweep on chain, `depth` blocks deep (0: in the mempool), and the funding output gone. */
  confirm(tip: Record<string, unknown>, txid: string, depth: number): void;
  down(): void;
  /** The 503 code the upstream's failure answers with. */
  downCode: string;
}

eachDialect('tips: clawback and the reconciler agree with the chain (issue 29, item 3)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  const utxo: Partial<Record<'btc' | 'ltc', { chain: FakeUtxoChain; network: Network; sweeps: Map<string, string> }>> = {};

  beforeEach(() => {
    for (const fake of [chains.btc, chains.ltc, chains.xmrDaemon, chains.wowDaemon, chains.grin]) fake.mode = 'normal';
    for (const asset of ['btc', 'ltc'] as const) {
      const network = asset === 'btc' ? networks.bitcoin : utxoNetwork('ltc', 'mainnet');
      const chain = new FakeUtxoChain(network);
      chains[asset].chain = chain;
      chains[asset].tip = 850_000;
      utxo[asset] = { chain, network, sweeps: new Map() };
    }
    for (const daemon of [chains.xmrDaemon, chains.wowDaemon]) {
      daemon.height = 3_100_000;
      daemon.txs = new Map();
    }
    chains.grin.tip = 2_000_000;
    chains.grin.outputs = [];
    chains.grin.kernels = new Map();
  });

  const utxoDriver = (asset: 'btc' | 'ltc'): ChainDriver => ({
    funding() {
      const { chain, network } = utxo[asset]!;
      const address = tipAddress(asset);
      return { tip_address: address, funding_txid: chain.put(payment(network, [[address, 50_000]]), 840_000) };
    },
    sweep(tip) {
      const { network, sweeps } = utxo[asset]!;
      const hex = payment(network, [[tipAddress(asset), 48_000]], { txid: tip.funding_txid as string, vout: 0 });
      const txid = Transaction.fromHex(hex).getId();
      sweeps.set(txid, hex);
      return txid;
    },
    confirm(_tip, txid, depth) {
      const { chain, sweeps } = utxo[asset]!;
      chain.put(sweeps.get(txid)!, depth === 0 ? null : chains[asset].tip - depth + 1);
    },
    down: () => void (chains[asset].mode = 'down'),
    downCode: 'esplora_unavailable',
  });
  const cryptonoteDriver = (asset: 'xmr' | 'wow'): ChainDriver => {
    const daemon = asset === 'xmr' ? chains.xmrDaemon : chains.wowDaemon;
    return {
      funding: () => ({}),
      sweep: () => txidOf(asset),
      confirm: (_tip, txid, depth) => void daemon.txs.set(txid, depth === 0 ? { in_pool: true } : { in_pool: false, block_height: daemon.height - depth }),
      down: () => void (daemon.mode = 'down'),
      downCode: 'daemon_unavailable',
    };
  };
  const grinDriver: ChainDriver = {
    funding: () => ({}),
    sweep: () => txidOf('grin'),
    confirm(tip, txid, depth) {
      if (depth === 0) return; // a Grin transaction in the pool is invisible to the foreign API
      chains.grin.outputs = chains.grin.outputs.filter((output) => output.commit !== tip.grin_commitment);
      chains.grin.kernels.set(txid, chains.grin.tip - depth + 1);
    },
    down: () => void (chains.grin.mode = 'down'),
    downCode: 'grin_node_unavailable',
  };
  const drivers: Record<Asset, ChainDriver> = { btc: utxoDriver('btc'), ltc: utxoDriver('ltc'), xmr: cryptonoteDriver('xmr'), wow: cryptonoteDriver('wow'), grin: grinDriver };

  /** A funded tip (the funding worker's move made by hand: the funding is not what is tested here), claimed by `other`. */
  async function claimedTip(asset: Asset): Promise<Record<string, unknown>> {
    const created = await w.t.client.post(TIPS, tipBody(asset, drivers[asset].funding()), { token: w.sender.token });
    expect(created.status, created.text).to.equal(200);
    const id = created.body.tip_id as string;
    await w.t.backend.db.knex('social_tips').where({ id }).update({ status: 'pending' });
    if (asset === 'grin') {
      const commitment = (await rowOf(w, id)).grin_commitment as string;
      chains.grin.outputs.push({ commit: commitment, proof: '00', is_coinbase: false, height: chains.grin.tip - 100, mmr_index: 5 });
    }
    const claim = await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    expect([claim.status, claim.body.status], claim.text).to.deep.equal([200, 'claiming']);
    return rowOf(w, id);
  }
  async function recordSweep(tip: Record<string, unknown>, txid: string) {
    const recorded = await w.t.client.post(`${TIPS}/${tip.id}/confirm-sweep`, { sweep_txid: txid }, { token: w.other.token });
    expect([recorded.status, recorded.body.recorded], recorded.text).to.deep.equal([200, true]);
  }
  const clawback = (tip: Record<string, unknown>) => w.t.client.post(`${TIPS}/${tip.id}/clawback`, undefined, { token: w.sender.token });

  for (const asset of ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const) {
    describe(asset, () => {
      const chain = drivers[asset];

      it('the claimer’s sweep is confirmed and the reconciler has not run: clawback is refused (tip_settled) and the tip is claimed', async () => {
        const tip = await claimedTip(asset);
        const sweep = chain.sweep(tip);
        await recordSweep(tip, sweep);
        chain.confirm(tip, sweep, DEEP);
        const refused = await clawback(tip);
        expect([refused.status, refused.body.error?.code], refused.text).to.deep.equal([400, 'tip_settled']);
        const row = await rowOf(w, tip.id as string);
        expect([row.status, new Date(row.settled_at as string).toISOString()]).to.deep.equal(['claimed', w.t.clock.now().toISOString()]);
      });

      it('clawed back while the claimer’s recorded sweep was unconfirmed; it then confirms: the reconciler moves the tip to claimed', async () => {
        const tip = await claimedTip(asset);
        const sweep = chain.sweep(tip);
        await recordSweep(tip, sweep);
        chain.confirm(tip, sweep, 0);
        const clawed = await clawback(tip);
        expect([clawed.status, clawed.body.status], clawed.text).to.deep.equal([200, 'clawed_back']);
        await reconcile(w);
        expect((await rowOf(w, tip.id as string)).status, 'still unconfirmed').to.equal('clawed_back');
        chain.confirm(tip, sweep, DEEP);
        w.t.clock.advance(60_000);
        await reconcile(w);
        const row = await rowOf(w, tip.id as string);
        expect([row.status, new Date(row.settled_at as string).toISOString()]).to.deep.equal(['claimed', w.t.clock.now().toISOString()]);
        const sent = await w.t.client.get(`${TIPS}/sent`, { token: w.sender.token });
        expect(sent.body.tips.find((t: { tip_id: string }) => t.tip_id === tip.id).status, 'what the sender sees').to.equal('claimed');
      });

      it('clawed back, and the sender’s own sweep confirms (not the recorded one): the tip stays clawed back', async () => {
        const tip = await claimedTip(asset);
        const claimers = chain.sweep(tip);
        await recordSweep(tip, claimers);
        const clawed = await clawback(tip);
        expect(clawed.status, clawed.text).to.equal(200);
        chain.confirm(tip, chain.sweep(tip), DEEP);
        w.t.clock.advance(60_000);
        await reconcile(w);
        expect((await rowOf(w, tip.id as string)).status).to.equal('clawed_back');
      });

      it('the chain cannot be asked: clawback of a claimed tip is refused with the upstream’s 503 and nothing changes; an unclaimed tip is clawed back without asking', async () => {
        const tip = await claimedTip(asset);
        await recordSweep(tip, chain.sweep(tip));
        const pending = await w.t.client.post(TIPS, tipBody(asset, drivers[asset].funding()), { token: w.sender.token });
        await w.t.backend.db.knex('social_tips').where({ id: pending.body.tip_id }).update({ status: 'pending' });
        const before = await rowOf(w, tip.id as string);
        chain.down();
        const refused = await clawback(tip);
        expect([refused.status, refused.body.error?.code], refused.text).to.deep.equal([503, chain.downCode]);
        expect(await rowOf(w, tip.id as string)).to.deep.equal(before);
        const unclaimed = await w.t.client.post(`${TIPS}/${pending.body.tip_id}/clawback`, undefined, { token: w.sender.token });
        expect([unclaimed.status, unclaimed.body.status], unclaimed.text).to.deep.equal([200, 'clawed_back']);
      });

      it('the tip’s chain is no longer configured: clawback of a claimed tip is refused with 503 tip_chain_off and nothing changes', async () => {
        const tip = await claimedTip(asset);
        await recordSweep(tip, chain.sweep(tip));
        const before = await rowOf(w, tip.id as string);
        // The same database served by a backend without this asset's chain (the operator turned it off).
        const settings: Record<string, string> = { ...chains.settings() };
        for (const key of CHAIN_SETTINGS[asset]) delete settings[key];
        const restarted = await createTestBackend(w.t.dialect, { databaseUrl: w.t.databaseUrl, plugins: [tipsPlugin({ enabled: true, shareBase: SHARE_BASE })], settings });
        try {
          const refused = await restarted.client.post(`${TIPS}/${tip.id}/clawback`, undefined, { token: w.sender.token });
          expect([refused.status, refused.body.error?.code], refused.text).to.deep.equal([503, 'tip_chain_off']);
        } finally {
          await restarted.close();
        }
        expect(await rowOf(w, tip.id as string)).to.deep.equal(before);
      });
    });
  }
});
