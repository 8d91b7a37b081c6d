import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { address as bitcoinAddress, payments, Transaction } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { WalletError } from '@wallet/backend-core';
import { ElectrumClient, electrumScripthash, parseElectrumUrl, utxoNetwork } from '../../../packages/core/src/chains/utxo/index.js';
import { eachDialect, seedSession, useFakes, useTestBackend } from '../../harness/index.js';
import { ElectrumFake, scripthashOf, type ElectrumFakeHistory } from '../../fakes/electrum.js';

const pubkey = () => Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
const p2wpkh = (asset: 'btc' | 'ltc') => payments.p2wpkh({ pubkey: pubkey(), network: utxoNetwork(asset, 'mainnet') }).address!;
/** The fake's key for an address, computed with bitcoinjs and node:crypto only. */
const keyOf = (address: string, asset: 'btc' | 'ltc') => scripthashOf(bitcoinAddress.toOutputScript(address, utxoNetwork(asset, 'mainnet')));

const FUNDED: ElectrumFakeHistory = {
  balance: { confirmed: 100_000, unconfirmed: -2_000 },
  history: [
    { tx_hash: 'bb'.repeat(32), height: 800_000 },
    { tx_hash: 'aa'.repeat(32), height: 0, fee: 300 },
    { tx_hash: 'cc'.repeat(32), height: -1, fee: 250 },
  ],
  unspent: [
    { tx_hash: 'bb'.repeat(32), tx_pos: 1, value: 100_000, height: 800_000 },
    { tx_hash: 'aa'.repeat(32), tx_pos: 0, value: 2_000, height: 0 },
  ],
};

async function code(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => expect.fail('resolved'),
    (err: unknown) => {
      expect(err).to.be.instanceOf(WalletError);
      return (err as WalletError).code;
    },
  );
}

describe('chains: Electrum protocol client', () => {
  const fake = new ElectrumFake();
  let client: ElectrumClient;
  before(() => fake.start());
  after(() => fake.close());
  beforeEach(() => {
    fake.mode = 'normal';
    fake.tip = { height: 850_000, hex: '00'.repeat(80) };
    fake.received.length = 0;
    fake.dropConnections();
    fake.connectionsAccepted = 0;
    client = new ElectrumClient({ url: fake.url, asset: 'btc', network: 'mainnet', timeoutMs: 300, backoff: { initialMs: 20, maxMs: 200 } });
  });
  afterEach(() => client.close());

  it('keys addresses by the reversed SHA-256 of their output script (protocols.md §5 example)', () => {
    const script = Buffer.from('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'hex');
    expect(electrumScripthash(script)).to.equal('8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
  });

  it('parses tcp:// and ssl:// URLs with their conventional ports, and nothing else', () => {
    expect(parseElectrumUrl('tcp://electrs.lan')).to.deep.equal({ host: 'electrs.lan', port: 50_001, tls: false });
    expect(parseElectrumUrl('ssl://fulcrum.example:50002')).to.deep.equal({ host: 'fulcrum.example', port: 50_002, tls: true });
    expect(parseElectrumUrl('tls://[::1]:60002')).to.deep.equal({ host: '::1', port: 60_002, tls: true });
    for (const bad of ['http://electrs:50001', 'tcp://u:p@host:1', 'tcp://host:1/path', 'tcp://host:0', 'electrs:50001', '']) expect(parseElectrumUrl(bad), bad).to.equal(null);
  });

  it('opens with server.version (1.4) and pipelines concurrent calls on one connection', async () => {
    const address = p2wpkh('btc');
    fake.scripthashes.set(keyOf(address, 'btc'), FUNDED);
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.balance(address)));
    for (const answer of answers) expect(answer).to.deep.equal({ confirmed: 100_000, unconfirmed: -2_000 });
    expect(fake.received[0]).to.deep.equal({ method: 'server.version', params: ['wallet-backend', '1.4'] });
    expect(fake.received.filter((call) => call.method === 'server.version')).to.have.length(1);
    expect(fake.connectionsAccepted).to.equal(1);
    expect(fake.handshakeViolations).to.equal(0);
  });

  it('maps history (height ≤ 0 is mempool) and unspent outputs (height 0 is unconfirmed)', async () => {
    const address = p2wpkh('btc');
    fake.scripthashes.set(keyOf(address, 'btc'), FUNDED);
    expect(await client.history(address)).to.deep.equal({
      confirmed: [{ txid: 'bb'.repeat(32), height: 800_000 }],
      mempool: [{ txid: 'aa'.repeat(32) }, { txid: 'cc'.repeat(32) }],
    });
    expect(await client.utxos(address)).to.deep.equal([
      { txid: 'bb'.repeat(32), vout: 1, value: 100_000, height: 800_000 },
      { txid: 'aa'.repeat(32), vout: 0, value: 2_000, height: null },
    ]);
  });

  it('converts coin/kB to sat/vB and falls back to the relay fee when the node has no estimate', async () => {
    expect(await client.feeRate(1)).to.equal(42);
    expect(await client.feeRate(6)).to.equal(12.2);
    expect(await client.feeRate(25)).to.equal(1);
    expect(fake.received.map((call) => call.method)).to.include('blockchain.relayfee');
  });

  it('subscribes to headers once and follows the notifications', async () => {
    expect(await client.tipHeight()).to.equal(850_000);
    fake.newBlock(850_001);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.tipHeight()).to.equal(850_001);
    expect(fake.received.filter((call) => call.method === 'blockchain.headers.subscribe')).to.have.length(1);
  });

  it('re-establishes a dropped connection and subscribes again', async () => {
    expect(await client.tipHeight()).to.equal(850_000);
    fake.dropConnections();
    fake.tip = { height: 850_007, hex: '00'.repeat(80) };
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.tipHeight()).to.equal(850_007);
    expect(fake.connectionsAccepted).to.equal(2);
    expect(fake.handshakeViolations).to.equal(0);
  });

  it('a stalled server fails the call within the timeout and the next call gets a fresh connection', async () => {
    fake.mode = 'stall';
    const started = Date.now();
    expect(await code(client.tipHeight())).to.equal('electrum_unavailable');
    expect(Date.now() - started).to.be.lessThan(600);
    fake.mode = 'normal';
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.tipHeight()).to.equal(850_000);
    expect(fake.connectionsAccepted).to.equal(2);
  });

  it('a server answering with junk is unavailable, and the broken session is replaced', async () => {
    await client.tipHeight();
    fake.mode = 'malformed';
    expect(await code(client.feeRate(2))).to.equal('electrum_unavailable');
    fake.mode = 'normal';
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await client.feeRate(2)).to.equal(30);
    expect(fake.connectionsAccepted).to.equal(2);
  });

  it('backs off while the server is down: calls fail at once without hammering it, then recover', async () => {
    fake.mode = 'down';
    expect(await code(client.tipHeight())).to.equal('electrum_unavailable');
    const attemptsAfterFirst = fake.connectionsAccepted;
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 10 }, () => code(client.tipHeight())));
    expect(burst.every((c) => c === 'electrum_unavailable')).to.equal(true);
    expect(Date.now() - started).to.be.lessThan(600);
    // The ten calls shared at most one reconnection attempt.
    expect(fake.connectionsAccepted - attemptsAfterFirst).to.be.at.most(1);
    fake.mode = 'normal';
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await client.tipHeight()).to.equal(850_000);
  });

  it('a refused broadcast is tx_rejected with the node reason; a closed client is unavailable', async () => {
    const tx = new Transaction();
    tx.addInput(Buffer.alloc(32, 7), 0);
    tx.addOutput(payments.p2wpkh({ pubkey: pubkey() }).output!, 50_000);
    expect(await client.broadcast(tx.toHex())).to.equal(tx.getId());
    fake.rejectBroadcast = 'bad-txns-inputs-missingorspent';
    const refused = await client.broadcast(tx.toHex()).catch((err: WalletError) => err);
    expect(refused).to.be.instanceOf(WalletError);
    expect((refused as WalletError).code).to.equal('tx_rejected');
    expect((refused as WalletError).message).to.include('missingorspent');
    fake.rejectBroadcast = null;
    client.close();
    expect(await code(client.tipHeight())).to.equal('electrum_unavailable');
  });
});

describe('chains: Electrum over TLS', () => {
  let cert = '';
  let fake: ElectrumFake;
  before(async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(join(tmpdir(), 'electrum-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    fake = new ElectrumFake({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert });
    await fake.start();
  });
  after(() => fake.close());

  it('speaks the protocol over TLS with a trusted certificate', async () => {
    const client = new ElectrumClient({ url: fake.url, asset: 'btc', network: 'mainnet', timeoutMs: 2_000, tls: { ca: cert } });
    try {
      expect(fake.url.startsWith('ssl://')).to.equal(true);
      expect(await client.tipHeight()).to.equal(850_000);
    } finally {
      client.close();
    }
  });

  it('refuses a certificate it cannot verify', async () => {
    const client = new ElectrumClient({ url: fake.url, asset: 'btc', network: 'mainnet', timeoutMs: 2_000 });
    fake.received.length = 0;
    try {
      expect(await code(client.tipHeight())).to.equal('electrum_unavailable');
      expect(fake.received).to.have.length(0);
    } finally {
      client.close();
    }
  });
});

eachDialect('chains: BTC/LTC through Electrum', (dialect) => {
  const btc = new ElectrumFake();
  const ltc = new ElectrumFake();
  useFakes(btc, ltc);
  const t = useTestBackend(dialect, () => ({ settings: { btcElectrumUrl: btc.url, ltcElectrumUrl: ltc.url, upstreamTimeoutMs: 400 } }));
  let token = '';
  beforeEach(async () => {
    for (const fake of [btc, ltc]) {
      fake.mode = 'normal';
      fake.received.length = 0;
    }
    token = (await seedSession(t.backend)).auth.access_token;
  });
  const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/utxo/${path}`, body, { token });

  it('answers balance, history, utxos, fee and tip for both chains from their own servers', async () => {
    for (const [asset, fake] of [['btc', btc], ['ltc', ltc]] as const) {
      const address = p2wpkh(asset);
      fake.scripthashes.set(keyOf(address, asset), FUNDED);
      expect((await post('balance', { asset, address })).body).to.deep.equal({ asset, address, confirmed: 100_000, unconfirmed: -2_000 });
      expect((await post('history', { asset, address })).body.mempool).to.have.length(2);
      expect((await post('utxos', { asset, address })).body.utxos).to.have.length(2);
      expect((await post('fee', { asset, blocks: 2 })).body).to.deep.equal({ asset, blocks: 2, sat_per_vbyte: 30 });
      expect((await post('tip', { asset })).body).to.deep.equal({ asset, height: 850_000 });
      expect(fake.received.some((call) => call.params[0] === keyOf(address, asset))).to.equal(true);
    }
    expect((await t.client.get('/api/v1/capabilities')).body.chains).to.include.members(['btc', 'ltc']);
  });

  it('refuses an LTC address on the BTC route before any call to the server', async () => {
    const res = await post('balance', { asset: 'btc', address: p2wpkh('ltc') });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('address_invalid');
    expect(btc.received.length + ltc.received.length).to.equal(0);
  });

  it('a stalled BTC server is 503 electrum_unavailable within the timeout while LTC keeps answering', async () => {
    btc.mode = 'stall';
    const started = Date.now();
    const res = await post('tip', { asset: 'btc' });
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('electrum_unavailable');
    expect(Date.now() - started).to.be.lessThan(1_200);
    const heights = (await t.client.get('/api/v1/wallet/heights', { token })).body;
    expect(heights.btc).to.equal(null);
    expect(heights.ltc).to.equal(850_000);
  });

  it('closing the backend closes its Electrum sessions', async () => {
    await post('tip', { asset: 'btc' });
    await t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(btc.openConnections).to.equal(0);
  });
});
