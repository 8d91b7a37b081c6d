import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { payments, Transaction } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utxoNetwork } from '../../../packages/core/src/chains/utxo/index.js';
import { eachDialect, seedSession, useFakes, useTestBackend } from '../../harness/index.js';
import { EsploraFake } from '../../fakes/esplora.js';

const pubkey = () => Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));

/** One address of each standard type for `asset` on mainnet, built independently of the server. */
function addresses(asset: 'btc' | 'ltc') {
  const network = utxoNetwork(asset, 'mainnet');
  const key = pubkey();
  const list = {
    p2pkh: payments.p2pkh({ pubkey: key, network }).address!,
    p2sh: payments.p2sh({ redeem: payments.p2wpkh({ pubkey: key, network }), network }).address!,
    p2wpkh: payments.p2wpkh({ pubkey: key, network }).address!,
  } as Record<string, string>;
  if (asset === 'btc') list.p2tr = 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297';
  return list;
}

function signedLookingTx(): string {
  const tx = new Transaction();
  tx.addInput(randomBytes(32), 0);
  tx.addOutput(payments.p2wpkh({ pubkey: pubkey() }).output!, 50_000);
  return tx.toHex();
}

eachDialect('chains: BTC/LTC through Esplora', (dialect) => {
  const btc = new EsploraFake();
  const ltc = new EsploraFake();
  useFakes(btc, ltc);
  const t = useTestBackend(dialect, () => ({ settings: { btcEsploraUrl: btc.url, ltcEsploraUrl: `${ltc.url}/`, upstreamTimeoutMs: 400 } }));
  let token = '';
  beforeEach(async () => {
    for (const fake of [btc, ltc]) {
      fake.mode = 'normal';
      fake.received.length = 0;
      fake.rejectBroadcast = null;
    }
    token = (await seedSession(t.backend)).auth.access_token;
  });
  const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/utxo/${path}`, body, { token });

  it('answers balance, history and utxos for every address type, in satoshis', async () => {
    for (const [asset, fake] of [['btc', btc], ['ltc', ltc]] as const) {
      for (const address of Object.values(addresses(asset))) {
        fake.addresses.set(address, {
          chain: { funded: 150_000, spent: 50_000 },
          mempool: { funded: 2_000, spent: 0 },
          txs: [{ txid: 'aa'.repeat(32), height: null }, { txid: 'bb'.repeat(32), height: 800_000 }],
          utxos: [{ txid: 'bb'.repeat(32), vout: 1, value: 100_000, height: 800_000 }, { txid: 'aa'.repeat(32), vout: 0, value: 2_000, height: null }],
        });
        expect((await post('balance', { asset, address })).body, address).to.deep.equal({ asset, address, confirmed: 100_000, unconfirmed: 2_000 });
        expect((await post('history', { asset, address })).body).to.deep.equal({ asset, address, confirmed: [{ txid: 'bb'.repeat(32), height: 800_000 }], mempool: [{ txid: 'aa'.repeat(32) }] });
        expect((await post('utxos', { asset, address })).body.utxos).to.deep.equal([
          { txid: 'bb'.repeat(32), vout: 1, value: 100_000, height: 800_000 },
          { txid: 'aa'.repeat(32), vout: 0, value: 2_000, height: null },
        ]);
      }
    }
  });

  it('refuses an address of the other coin or network, or junk, before any upstream call', async () => {
    const refusals = [
      { asset: 'btc', address: addresses('ltc').p2wpkh },
      { asset: 'btc', address: addresses('ltc').p2pkh },
      { asset: 'ltc', address: addresses('btc').p2wpkh },
      { asset: 'btc', address: payments.p2wpkh({ pubkey: pubkey(), network: utxoNetwork('btc', 'testnet') }).address },
      { asset: 'btc', address: 'bc1qnotanaddress' },
      { asset: 'btc', address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyX' },
    ];
    for (const body of refusals) {
      const res = await post('balance', body);
      expect(res.status, body.address).to.equal(400);
      expect(res.body.error.code, body.address).to.equal('address_invalid');
    }
    expect((await post('balance', { asset: 'xmr', address: addresses('btc').p2pkh })).status).to.equal(400);
    expect(btc.received.length + ltc.received.length).to.equal(0);
  });

  it('fee estimates pick the nearest published target not above `blocks`; blocks is bounded', async () => {
    expect((await post('fee', { asset: 'btc', blocks: 1 })).body).to.deep.equal({ asset: 'btc', blocks: 1, sat_per_vbyte: 42.5 });
    expect((await post('fee', { asset: 'btc', blocks: 5 })).body.sat_per_vbyte).to.equal(25);
    expect((await post('fee', { asset: 'btc', blocks: 1008 })).body.sat_per_vbyte).to.equal(1.01);
    for (const blocks of [0, 1009, 2.5, '6']) expect((await post('fee', { asset: 'btc', blocks })).status, String(blocks)).to.equal(400);
  });

  it('tip comes from /blocks/tip/height and feeds /wallet/heights and /capabilities', async () => {
    btc.tip = 851_234;
    ltc.tip = 2_700_000;
    expect((await post('tip', { asset: 'btc' })).body).to.deep.equal({ asset: 'btc', height: 851_234 });
    const heights = (await t.client.get('/api/v1/wallet/heights', { token })).body;
    expect(heights).to.include({ btc: 851_234, ltc: 2_700_000 });
    expect((await t.client.get('/api/v1/capabilities')).body.chains).to.include.members(['btc', 'ltc']);
  });

  it('broadcasts a parsed transaction; junk never reaches the node, a node refusal is 400', async () => {
    const hex = signedLookingTx();
    const ok = await post('broadcast', { asset: 'btc', tx_hex: hex });
    expect(ok.status).to.equal(200);
    expect(ok.body.txid).to.equal(Transaction.fromHex(hex).getId());
    expect(btc.broadcasts).to.deep.equal([hex]);
    const before = btc.received.length;
    for (const tx_hex of ['00', 'zz'.repeat(100), hex.slice(0, -2), `${hex}00`, '02000000000000000000']) {
      const res = await post('broadcast', { asset: 'btc', tx_hex });
      expect(res.status, tx_hex.slice(0, 10)).to.equal(400);
      expect(res.body.error.code).to.equal('tx_invalid');
    }
    expect(btc.received.length).to.equal(before);
    btc.rejectBroadcast = 'sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}';
    const refused = await post('broadcast', { asset: 'btc', tx_hex: hex });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('tx_rejected');
    expect(refused.body.error.message).to.include('missingorspent');
  });

  it('an outage of one chain is 503 within the timeout while the other keeps answering', async () => {
    const address = addresses('btc').p2wpkh;
    for (const mode of ['down', 'slow', 'malformed'] as const) {
      btc.mode = mode;
      btc.slowMs = 2_000;
      const started = Date.now();
      const res = await post('balance', { asset: 'btc', address });
      expect(res.status, mode).to.equal(503);
      expect(res.body.error.code).to.equal('esplora_unavailable');
      expect(Date.now() - started).to.be.lessThan(1_500);
      expect((await post('tip', { asset: 'ltc' })).status, mode).to.equal(200);
      const heights = (await t.client.get('/api/v1/wallet/heights', { token })).body;
      expect(heights.btc, mode).to.equal(null);
      expect(heights.ltc, mode).to.be.a('number');
    }
  });
});

eachDialect('chains: BTC/LTC disabled', (dialect) => {
  const t = useTestBackend(dialect);
  it('every UTXO route is 400 chain_disabled', async () => {
    const { auth } = await seedSession(t.backend);
    for (const [path, body] of [['balance', { asset: 'btc', address: addresses('btc').p2pkh }], ['tip', { asset: 'ltc' }], ['fee', { asset: 'btc', blocks: 2 }], ['broadcast', { asset: 'btc', tx_hex: signedLookingTx() }]] as const) {
      const res = await t.client.post(`/api/v1/wallet/utxo/${path}`, body, { token: auth.access_token });
      expect(res.status, path).to.equal(400);
      expect(res.body.error.code, path).to.equal('chain_disabled');
    }
    expect((await t.client.post('/api/v1/wallet/utxo/tip', { asset: 'btc' })).status).to.equal(401);
  });
});
