import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { address as addressCodec, networks, Transaction, type Network } from 'bitcoinjs-lib';
import { utxoNetwork } from '../../packages/core/src/chains/utxo/index.js';
import { eachDialect, REPO_ROOT, useFakes } from '../harness/index.js';
import { ElectrumFake } from '../fakes/electrum.js';
import { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { freshBtcChain, hex, tipAddress, tipBody, type TipsWorld, useChainFakes, useTipsWorld } from './harness.js';

const TIPS = '/api/v1/tips/social';

/** A transaction paying `outputs` (address → satoshis) from a made-up input, as a funding wallet would. */
function payment(network: Network, outputs: Array<[string, number]>, spending?: { txid: string; vout: number }): string {
  const tx = new Transaction();
  tx.addInput(spending ? Buffer.from(spending.txid, 'hex').reverse() : randomBytes(32), spending?.vout ?? 0);
  for (const [address, value] of outputs) tx.addOutput(addressCodec.toOutputScript(address, network), value);
  return tx.toHex();
}

const statusOf = async (w: TipsWorld, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;
const run = (w: TipsWorld, task: 'funding-watch' | 'sweep-reconciler' | 'grin-reorg-check') => w.t.backend.scheduler.runNow(`tips.${task}`);

async function createFunded(w: TipsWorld, asset: 'btc' | 'ltc', address: string, fundingTxid: string, amount = '50000'): Promise<string> {
  const created = await w.t.client.post(TIPS, tipBody(asset, { tip_address: address, funding_txid: fundingTxid, amount }), { token: w.sender.token });
  expect(created.status, created.text).to.equal(200);
  return created.body.tip_id as string;
}

eachDialect('tips: chain workers (BTC through Esplora)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  let chain: FakeUtxoChain;
  beforeEach(() => (chain = freshBtcChain(chains)));

  it('funding: nothing until the transaction is known and 2 deep; then pending when it covers the amount', async () => {
    const address = tipAddress('btc');
    const funding = payment(networks.bitcoin, [[address, 50_000], [tipAddress('btc'), 7_000]]);
    const txid = Transaction.fromHex(funding).getId();
    const id = await createFunded(w, 'btc', address, txid);
    expect(await run(w, 'funding-watch')).to.equal(true);
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chain.put(funding, null);
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chain.put(funding, 850_000); // 1 confirmation
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chains.btc.tip = 850_001; // 2 confirmations
    w.t.clock.advance(60_000);
    await run(w, 'funding-watch');
    const row = await statusOf(w, id);
    expect(row.status).to.equal('pending');
    expect(new Date(row.funded_at as string).getTime()).to.equal(w.t.clock.now().getTime());
    expect(w.t.logger.lines.some((line) => line.msg === 'tip moved by the chain' && line.tip_id === id && line.to === 'pending')).to.equal(true);
  });

  it('funding: outputs to the tip address are summed; short of the amount at depth is funding_mismatch, and so is a payment elsewhere', async () => {
    const split = tipAddress('btc');
    const splitTx = payment(networks.bitcoin, [[split, 20_000], [split, 30_000]]);
    const short = tipAddress('btc');
    const shortTx = payment(networks.bitcoin, [[short, 49_999]]);
    const elsewhere = tipAddress('btc');
    const elsewhereTx = payment(networks.bitcoin, [[tipAddress('btc'), 50_000]]);
    const ids = {
      split: await createFunded(w, 'btc', split, chain.put(splitTx, 849_000)),
      short: await createFunded(w, 'btc', short, chain.put(shortTx, 849_000)),
      elsewhere: await createFunded(w, 'btc', elsewhere, chain.put(elsewhereTx, 849_000)),
    };
    await run(w, 'funding-watch');
    expect((await statusOf(w, ids.split)).status).to.equal('pending');
    expect((await statusOf(w, ids.short)).status).to.equal('funding_mismatch');
    expect((await statusOf(w, ids.elsewhere)).status).to.equal('funding_mismatch');
    expect((await statusOf(w, ids.short)).funded_at).to.equal(null);
    const claim = await w.t.client.post(`${TIPS}/${ids.short}/claim`, undefined, { token: w.other.token });
    expect([claim.status, claim.body.error.code]).to.deep.equal([400, 'tip_underfunded']);
  });

  it('an indexer outage moves nothing and is retried at the next run', async () => {
    const address = tipAddress('btc');
    const id = await createFunded(w, 'btc', address, chain.put(payment(networks.bitcoin, [[address, 50_000]]), 840_000));
    chains.btc.mode = 'down';
    expect(await run(w, 'funding-watch')).to.equal(true);
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    expect(w.t.logger.lines.some((line) => line.msg === 'tip chain read failed; the tip is read again at the next run' && line.tip_id === id)).to.equal(true);
    chains.btc.mode = 'malformed';
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chains.btc.mode = 'normal';
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending');
  });

  it('sweep: claimed once a transaction spending the funding is 2 deep, whoever recorded a txid', async () => {
    const address = tipAddress('btc');
    const funding = payment(networks.bitcoin, [[address, 50_000]]);
    const fundingTxid = chain.put(funding, 849_000);
    const id = await createFunded(w, 'btc', address, fundingTxid);
    await run(w, 'funding-watch');
    expect((await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token })).body.status).to.equal('claiming');
    // A second deposit to the address is history, not a spend.
    chain.put(payment(networks.bitcoin, [[address, 1_000]]), 849_500);
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    // The claimer records one txid; another sweep wins on chain.
    await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: hex(32) }, { token: w.other.token });
    const sweep = payment(networks.bitcoin, [[tipAddress('btc'), 48_000]], { txid: fundingTxid, vout: 0 });
    chain.put(sweep, null);
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    chain.put(sweep, 850_000);
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    chains.btc.tip = 850_001;
    await run(w, 'sweep-reconciler');
    const row = await statusOf(w, id);
    expect(row.status).to.equal('claimed');
    expect(row.settled_at).not.to.equal(null);
    const claimAgain = await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    expect(claimAgain.body.error.code).to.equal('tip_swept');
  });

  it('clawback and the reconciler race for a claiming tip: exactly one wins', async () => {
    for (let round = 0; round < 6; round++) {
      const address = tipAddress('btc');
      const fundingTxid = chain.put(payment(networks.bitcoin, [[address, 50_000]]), 849_000);
      const id = await createFunded(w, 'btc', address, fundingTxid);
      await run(w, 'funding-watch');
      await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
      chain.put(payment(networks.bitcoin, [[tipAddress('btc'), 48_000]], { txid: fundingTxid, vout: 0 }), 849_100);
      const [, clawback] = await Promise.all([run(w, 'sweep-reconciler'), w.t.client.post(`${TIPS}/${id}/clawback`, undefined, { token: w.sender.token })]);
      const status = (await statusOf(w, id)).status;
      if (clawback.status === 200) expect(status, `round ${round}`).to.equal('clawed_back');
      else expect([clawback.body.error.code, status], `round ${round}`).to.deep.equal(['tip_settled', 'claimed']);
    }
  });

  it('the reconciler is held at the chain, a clawback comes meanwhile: the clawback asks the chain itself, finds the sweep confirmed, settles the tip and is refused; the reconciler’s update then changes nothing (held, not timed)', async () => {
    const address = tipAddress('btc');
    const fundingTxid = chain.put(payment(networks.bitcoin, [[address, 50_000]]), 849_000);
    const id = await createFunded(w, 'btc', address, fundingTxid);
    await run(w, 'funding-watch');
    await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    chain.put(payment(networks.bitcoin, [[tipAddress('btc'), 48_000]], { txid: fundingTxid, vout: 0 }), 849_100);
    // The indexer's tip height is the reconciler's last read before its update: hold it there.
    let reached!: () => void;
    const atTheChain = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Only the first read (the reconciler's) is held; the clawback's own chain read is answered.
    let holding = true;
    chains.btc.route('GET /blocks/tip/height', async () => {
      if (holding) {
        holding = false;
        reached();
        await released;
      }
      return { text: String(chains.btc.tip) };
    });
    try {
      const reconciling = run(w, 'sweep-reconciler');
      await atTheChain;
      expect((await statusOf(w, id)).status, 'the reconciler has read the tip but not written').to.equal('claiming');
      const clawback = await w.t.client.post(`${TIPS}/${id}/clawback`, undefined, { token: w.sender.token });
      expect([clawback.status, clawback.body.error?.code]).to.deep.equal([400, 'tip_settled']);
      expect((await statusOf(w, id)).status, 'the clawback settled what it saw').to.equal('claimed');
      release();
      expect(await reconciling).to.equal(true);
    } finally {
      release();
      chains.btc.route('GET /blocks/tip/height', () => ({ text: String(chains.btc.tip) }));
    }
    expect((await statusOf(w, id)).status).to.equal('claimed');
    expect(w.t.logger.lines.filter((line) => line.msg === 'tip moved by the chain' && line.tip_id === id && line.from === 'claiming')).to.deep.equal([]);
    // The other order: the reconciler settles first, and the clawback is refused.
    const second = tipAddress('btc');
    const secondFunding = chain.put(payment(networks.bitcoin, [[second, 50_000]]), 849_000);
    const other = await createFunded(w, 'btc', second, secondFunding);
    await run(w, 'funding-watch');
    await w.t.client.post(`${TIPS}/${other}/claim`, undefined, { token: w.other.token });
    chain.put(payment(networks.bitcoin, [[tipAddress('btc'), 48_000]], { txid: secondFunding, vout: 0 }), 849_100);
    await run(w, 'sweep-reconciler');
    const late = await w.t.client.post(`${TIPS}/${other}/clawback`, undefined, { token: w.sender.token });
    expect([late.status, late.body.error?.code, (await statusOf(w, other)).status]).to.deep.equal([400, 'tip_settled', 'claimed']);
  });
});

eachDialect('tips: chain workers (LTC through Electrum)', (dialect) => {
  const [electrum] = useFakes(new ElectrumFake());
  const w = useTipsWorld(dialect, { settings: () => ({ ltcElectrumUrl: `tcp://127.0.0.1:${new URL(electrum.url.replace('tcp:', 'http:')).port}` }) });
  let chain: FakeUtxoChain;
  beforeEach(() => {
    chain = new FakeUtxoChain(utxoNetwork('ltc', 'mainnet'));
    electrum.chain = chain;
    electrum.tip = { height: 3_000_000, hex: '00'.repeat(80) };
  });

  it('funding at 6 confirmations and the sweep at 6, through blockchain.transaction.get and get_history', async () => {
    const ltc = utxoNetwork('ltc', 'mainnet');
    const address = tipAddress('ltc');
    const fundingTxid = chain.put(payment(ltc, [[address, 80_000]]), 2_999_996); // 5 deep
    const id = await createFunded(w, 'ltc', address, fundingTxid, '80000');
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    electrum.newBlock(3_000_001); // 6 deep
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending');
    await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    chain.put(payment(ltc, [[tipAddress('ltc'), 79_000]], { txid: fundingTxid, vout: 0 }), 2_999_997); // 5 deep
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    electrum.newBlock(3_000_002); // the sweep 6 deep
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claimed');
    expect(electrum.received.some((call) => call.method === 'blockchain.transaction.get' && call.params[1] === true)).to.equal(true);
  });
});

eachDialect('tips: chain workers (Grin)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  beforeEach(() => {
    chains.grin.mode = 'normal';
    chains.grin.tip = 2_000_000;
    chains.grin.outputs = [];
    chains.grin.kernels = new Map();
  });
  const output = (commit: string, height: number) => ({ commit, proof: '00', is_coinbase: false, height, mmr_index: 5 });

  it('funding at depth 10 (amount accepted with a warning), the sweep when the output is gone AND the kernel is 10 deep, and a reorg back to claiming', async () => {
    const body = tipBody('grin');
    const commitment = body.grin_commitment as string;
    const id = (await w.t.client.post(TIPS, body, { token: w.sender.token })).body.tip_id as string;
    chains.grin.outputs = [output(commitment, 1_999_992)]; // 9 deep
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chains.grin.outputs = [output(commitment, 1_999_991)]; // 10 deep
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending');
    expect(w.t.logger.lines.some((line) => line.level === 'warn' && line.msg === 'grin tip funded: the amount is hidden in the commitment and accepted as stated' && line.tip_id === id)).to.equal(true);

    await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    const kernel = `09${hex(32)}`;
    await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: kernel }, { token: w.other.token });
    chains.grin.kernels.set(kernel, 1_999_991); // 10 deep, but the output is still unspent
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    chains.grin.outputs = [];
    chains.grin.kernels.set(kernel, 1_999_992); // gone, kernel 9 deep
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    chains.grin.kernels.set(kernel, 1_999_991);
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claimed');

    // A probe error reverts nothing; the commitment reappearing does.
    chains.grin.mode = 'down';
    await run(w, 'grin-reorg-check');
    expect((await statusOf(w, id)).status).to.equal('claimed');
    chains.grin.mode = 'normal';
    await run(w, 'grin-reorg-check');
    expect((await statusOf(w, id)).status).to.equal('claimed');
    chains.grin.outputs = [output(commitment, 1_999_995)];
    await run(w, 'grin-reorg-check');
    const row = await statusOf(w, id);
    expect([row.status, row.settled_at, row.sweep_txid]).to.deep.equal(['claiming', null, kernel]);
  });

  it('a grin sweep without a recorded kernel stays claiming', async () => {
    const body = tipBody('grin');
    const id = (await w.t.client.post(TIPS, body, { token: w.sender.token })).body.tip_id as string;
    chains.grin.outputs = [output(body.grin_commitment as string, 1_000)];
    await run(w, 'funding-watch');
    await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    chains.grin.outputs = [];
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
  });
});

interface TxKeyVector {
  txid: string;
  tx_key: string;
  paid_address: string;
  sender_address: string;
  block_height: number;
  as_json: string;
  check_tx_key: { paid: { received: number }; sender: { received: number } };
}
const XMR_VECTOR = JSON.parse(readFileSync(join(REPO_ROOT, 'test/vectors/xmr-tx-key.json'), 'utf8')) as TxKeyVector;

eachDialect('tips: chain workers (XMR through the daemon, funding proven with the tx key)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  beforeEach(() => {
    chains.xmrDaemon.txs = new Map([[XMR_VECTOR.txid, { in_pool: false, block_height: XMR_VECTOR.block_height, as_json: XMR_VECTOR.as_json }]]);
    chains.xmrDaemon.height = XMR_VECTOR.block_height + 9; // 9 deep
  });
  const create = async (fields: Record<string, unknown>) => {
    const body = tipBody('xmr', { tip_address: XMR_VECTOR.paid_address, funding_txid: XMR_VECTOR.txid, funding_tx_key: XMR_VECTOR.tx_key, ...fields });
    const created = await w.t.client.post(TIPS, body, { token: w.sender.token });
    expect(created.status, created.text).to.equal(200);
    return created.body.tip_id as string;
  };

  // One funding output backs one tip, so each case that pays the vector's address is its own tip in its own world.
  const fundedAtDepth = async (fields: Record<string, unknown>) => {
    const id = await create(fields);
    await run(w, 'funding-watch');
    expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chains.xmrDaemon.height = XMR_VECTOR.block_height + 10;
    await run(w, 'funding-watch');
    return (await statusOf(w, id)).status;
  };
  const paid = String(XMR_VECTOR.check_tx_key.paid.received);

  it('pending at 10 confirmations when the proven amount (monero-wallet-rpc check_tx_key’s) covers the tip; the sender’s change output is proven by the same key', async () => {
    const exact = await create({ amount: paid });
    // The sender's change output is proven by the same key: the check reads every output.
    const sender = await create({ tip_address: XMR_VECTOR.sender_address, amount: String(XMR_VECTOR.check_tx_key.sender.received) });
    await run(w, 'funding-watch');
    for (const id of [exact, sender]) expect((await statusOf(w, id)).status).to.equal('pending_confirmation');
    chains.xmrDaemon.height = XMR_VECTOR.block_height + 10;
    await run(w, 'funding-watch');
    expect((await statusOf(w, exact)).status).to.equal('pending');
    expect((await statusOf(w, sender)).status).to.equal('pending');
  });

  it('funding_mismatch at 10 confirmations when the proven amount is one short of the tip', async () => {
    expect(await fundedAtDepth({ amount: String(BigInt(paid) + 1n) })).to.equal('funding_mismatch');
  });

  it('funding_mismatch at 10 confirmations when the key proves nothing paid to the address', async () => {
    expect(await fundedAtDepth({ funding_tx_key: `${'0'.repeat(62)}01`, amount: '1' })).to.equal('funding_mismatch');
  });

  it('the sweep: claimed once the recorded sweep transaction is 10 deep', async () => {
    const id = await create({ amount: '1000' });
    chains.xmrDaemon.height = XMR_VECTOR.block_height + 10;
    await run(w, 'funding-watch');
    await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    const sweep = hex(32);
    await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: sweep }, { token: w.other.token });
    chains.xmrDaemon.txs.set(sweep, { in_pool: false, block_height: chains.xmrDaemon.height - 9 });
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claiming');
    chains.xmrDaemon.height += 1;
    await run(w, 'sweep-reconciler');
    expect((await statusOf(w, id)).status).to.equal('claimed');
  });
});
