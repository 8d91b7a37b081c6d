import { expect } from 'chai';
import { payments, Psbt, Transaction } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { randomBytes } from 'node:crypto';
import { tipsPlugin } from '@wallet/tips';
import { utxoNetwork } from '../../packages/core/src/chains/utxo/index.js';
import { createTestBackend, seedSession, type TestBackend } from '../harness/index.js';
import { LwsFake } from '../fakes/lws.js';
import { requireDaemon, startLitecoind, startMonerod, startMoneroWallet, type Daemon } from './daemons.js';
import { EsploraShim } from './esplora-shim.js';

const TIPS = '/api/v1/tips/social';
const SHARE_BASE = 'https://wallet.example.test/tip/';
const LTC_REGTEST = utxoNetwork('ltc', 'regtest');

/** A one-time tip key as the sender's wallet makes it, and the P2WPKH address it receives at. */
function tipKey() {
  const secret = secp256k1.utils.randomSecretKey();
  const publicKey = Buffer.from(secp256k1.getPublicKey(secret, true));
  const { address, output } = payments.p2wpkh({ pubkey: publicKey, network: LTC_REGTEST });
  return { secret, publicKey, address: address!, script: output! };
}

/** Spends every output `fundingHex` paid the tip key to `to`, minus a fee: the sweep (or the sender's own sweep back). */
function sweep(key: ReturnType<typeof tipKey>, fundingHex: string, to: string, fee = 10_000): string {
  const funding = Transaction.fromHex(fundingHex);
  const psbt = new Psbt({ network: LTC_REGTEST });
  let total = 0;
  funding.outs.forEach((out, index) => {
    if (!Buffer.from(out.script).equals(key.script)) return;
    psbt.addInput({ hash: funding.getId(), index, witnessUtxo: { script: key.script, value: out.value } });
    total += out.value;
  });
  psbt.addOutput({ address: to, value: total - fee });
  const signer = { publicKey: key.publicKey, sign: (hash: Buffer) => Buffer.from(secp256k1.sign(hash, key.secret, { prehash: false })) };
  psbt.signAllInputs(signer).finalizeAllInputs();
  return psbt.extractTransaction().toHex();
}

describe('real tier: a tip’s whole life on litecoind -regtest (through an Esplora shim)', function () {
  this.timeout(180_000);
  let litecoind: Daemon;
  let shim: EsploraShim;
  let miner = '';
  before(async function () {
    requireDaemon('litecoind', this);
    litecoind = await startLitecoind();
    await litecoind.rpc('createwallet', ['w']);
    miner = await litecoind.rpc('getnewaddress', ['', 'bech32']);
    await litecoind.rpc('generatetoaddress', [101, miner]);
    shim = new EsploraShim(litecoind);
    await shim.start();
  });
  after(async function () {
    this.timeout(30_000);
    await shim?.close();
    await litecoind?.stop();
  });
  const mine = (blocks: number) => litecoind.rpc('generatetoaddress', [blocks, miner]);

  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(`[${dialect}]`, () => {
      const t = {} as TestBackend;
      let sender = '';
      let claimer = '';
      beforeEach(async () => {
        Object.assign(
          t,
          await createTestBackend(dialect, {
            plugins: [tipsPlugin({ enabled: true, shareBase: SHARE_BASE })],
            settings: { chainNetwork: 'regtest', ltcEsploraUrl: shim.url, upstreamTimeoutMs: 20_000 },
            realClock: true,
          }),
        );
        sender = (await seedSession(t.backend)).auth.access_token;
        claimer = (await seedSession(t.backend)).auth.access_token;
      });
      afterEach(() => t.close());
      const status = async (id: string) => ((await t.backend.db.knex('social_tips').where({ id }).first()) as { status: string }).status;
      const run = (task: string) => t.backend.scheduler.runNow(`tips.${task}`);
      const fund = async (key: ReturnType<typeof tipKey>, ltc: number, amount: string) => {
        const txid: string = await litecoind.rpc('sendtoaddress', [key.address, ltc]);
        const created = await t.client.post(
          TIPS,
          { asset: 'ltc', amount, tip_address: key.address, secret_hash: randomBytes(32).toString('hex'), ciphertext: 'opaque', funding_txid: txid },
          { token: sender },
        );
        expect(created.status, created.text).to.equal(200);
        return { id: created.body.tip_id as string, txid, hex: (await litecoind.rpc('getrawtransaction', [txid])) as string };
      };

      it('create → fund → 6 confirmations → pending → claim → sweep → 6 confirmations → claimed', async () => {
        const key = tipKey();
        const tip = await fund(key, 0.5, '50000000');
        await run('funding-watch');
        expect(await status(tip.id)).to.equal('pending_confirmation');
        await mine(5);
        await run('funding-watch');
        expect(await status(tip.id)).to.equal('pending_confirmation');
        await mine(1);
        await run('funding-watch');
        expect(await status(tip.id)).to.equal('pending');

        const claimed = await t.client.post(`${TIPS}/${tip.id}/claim`, undefined, { token: claimer });
        expect(claimed.body).to.include({ status: 'claiming', tip_address: key.address, ciphertext: 'opaque' });
        const to: string = await litecoind.rpc('getnewaddress', ['', 'bech32']);
        const sweepHex = sweep(key, tip.hex, to);
        const broadcast = await t.client.post('/api/v1/wallet/utxo/broadcast', { asset: 'ltc', tx_hex: sweepHex }, { token: claimer });
        expect(broadcast.status, broadcast.text).to.equal(200);
        const sweepTxid = broadcast.body.txid as string;
        expect((await t.client.post(`${TIPS}/${tip.id}/confirm-sweep`, { sweep_txid: sweepTxid }, { token: claimer })).body).to.include({ recorded: true, status: 'claiming' });
        await run('sweep-reconciler');
        expect(await status(tip.id)).to.equal('claiming');
        await mine(5);
        await run('sweep-reconciler');
        expect(await status(tip.id)).to.equal('claiming');
        await mine(1);
        await run('sweep-reconciler');
        expect(await status(tip.id)).to.equal('claimed');
        const received = await litecoind.rpc('getreceivedbyaddress', [to]);
        expect(received).to.be.closeTo(0.5 - 0.0001, 1e-9);
      });

      it('an underfunded tip reaches funding_mismatch at depth; a claim is refused', async () => {
        const key = tipKey();
        const tip = await fund(key, 0.4, '50000000');
        await mine(6);
        await run('funding-watch');
        expect(await status(tip.id)).to.equal('funding_mismatch');
        const claim = await t.client.post(`${TIPS}/${tip.id}/claim`, undefined, { token: claimer });
        expect(claim.body.error.code).to.equal('tip_underfunded');
      });

      it('clawback: the sender takes a funded tip back and sweeps it home; claims are refused and the reconciler leaves it clawed back', async () => {
        const key = tipKey();
        const tip = await fund(key, 0.3, '30000000');
        await mine(6);
        await run('funding-watch');
        expect(await status(tip.id)).to.equal('pending');
        const back = await t.client.post(`${TIPS}/${tip.id}/clawback`, undefined, { token: sender });
        expect(back.body).to.include({ status: 'clawed_back', tip_address: key.address, funding_txid: tip.txid });
        const home: string = await litecoind.rpc('getnewaddress', ['', 'bech32']);
        await litecoind.rpc('sendrawtransaction', [sweep(key, tip.hex, home)]);
        await mine(6);
        await run('sweep-reconciler');
        expect(await status(tip.id)).to.equal('clawed_back');
        expect((await t.client.post(`${TIPS}/${tip.id}/claim`, undefined, { token: claimer })).body.error.code).to.equal('tip_clawed_back');
        expect(await litecoind.rpc('getreceivedbyaddress', [home])).to.be.closeTo(0.3 - 0.0001, 1e-9);
      });
    });
  }
});

describe('real tier: an XMR tip funded by monero-wallet-rpc, proven with its tx key on monerod --regtest', function () {
  this.timeout(240_000);
  let monerod: Daemon;
  let sender: Daemon;
  let recipient: Daemon;
  const lws = new LwsFake();
  let tipAddress = '';
  let miner = '';
  before(async function () {
    requireDaemon('monerod', this);
    monerod = await startMonerod();
    sender = await startMoneroWallet(monerod);
    recipient = await startMoneroWallet(monerod);
    await sender.rpc('create_wallet', { filename: 's', language: 'English' });
    await recipient.rpc('create_wallet', { filename: 'r', language: 'English' });
    miner = (await sender.rpc('get_address', { account_index: 0 })).address;
    tipAddress = (await recipient.rpc('get_address', { account_index: 0 })).address;
    await monerod.rpc('generateblocks', { amount_of_blocks: 80, wallet_address: miner });
    await sender.rpc('refresh', {});
    await lws.start();
  });
  after(async function () {
    this.timeout(60_000);
    await lws.close();
    await sender?.stop();
    await recipient?.stop();
    await monerod?.stop();
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`pending once the payment is 10 deep; a tip for more than was paid is funding_mismatch [${dialect}]`, async () => {
      const t = await createTestBackend(dialect, {
        plugins: [tipsPlugin({ enabled: true, shareBase: SHARE_BASE })],
        settings: { chainNetwork: 'regtest', xmrDaemonUrl: monerod.rpcUrl, xmrLwsUrl: lws.url, upstreamTimeoutMs: 20_000 },
        realClock: true,
      });
      try {
        const token = (await seedSession(t.backend)).auth.access_token;
        await sender.rpc('refresh', {});
        const paid = 2_500_000_000_000;
        // Two payments: one funding output backs one tip, so the over-asking tip has its own.
        const sent = await sender.rpc('transfer', { destinations: [{ amount: paid, address: tipAddress }], get_tx_key: true });
        const second = await sender.rpc('transfer', { destinations: [{ amount: paid, address: tipAddress }], get_tx_key: true });
        const create = (amount: number, payment: { tx_hash: string; tx_key: string }) =>
          t.client.post(TIPS, { asset: 'xmr', amount: String(amount), tip_address: tipAddress, secret_hash: randomBytes(32).toString('hex'), funding_txid: payment.tx_hash, funding_tx_key: payment.tx_key }, { token });
        const created = await create(paid, sent);
        expect(created.status, created.text).to.equal(200);
        const exact = created.body.tip_id as string;
        const twice = await create(paid, sent);
        expect([twice.status, twice.body.error?.code], 'a second tip on the same payment').to.deep.equal([409, 'tip_funding_taken']);
        const overCreated = await create(paid + 1, second);
        expect(overCreated.status, overCreated.text).to.equal(200);
        const over = overCreated.body.tip_id as string;
        const status = async (id: string) => ((await t.backend.db.knex('social_tips').where({ id }).first()) as { status: string }).status;
        await monerod.rpc('generateblocks', { amount_of_blocks: 9, wallet_address: miner });
        await t.backend.scheduler.runNow('tips.funding-watch');
        expect([await status(exact), await status(over)]).to.deep.equal(['pending_confirmation', 'pending_confirmation']);
        await monerod.rpc('generateblocks', { amount_of_blocks: 1, wallet_address: miner });
        await t.backend.scheduler.runNow('tips.funding-watch');
        expect([await status(exact), await status(over)]).to.deep.equal(['pending', 'funding_mismatch']);
        // The wallet's own verdict agrees.
        const check = await sender.rpc('check_tx_key', { txid: sent.tx_hash, tx_key: sent.tx_key, address: tipAddress });
        expect([check.received, check.confirmations]).to.deep.equal([paid, 10]);
      } finally {
        await t.close();
      }
    });
  }
});
