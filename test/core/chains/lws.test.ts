import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createTestBackend, CryptonoteKey, eachDialect, seedSession, useTestBackend, type TestBackend, useFakes } from '../../harness/index.js';
import { LwsFake, MonerodFake } from '../../fakes/lws.js';

/** A transaction monero-wallet-rpc signed (RingCT type 6), so submissions carry a real one. */
const SIGNED_TX = JSON.parse(readFileSync(new URL('../../fixtures/monero-regtest-tx.json', import.meta.url), 'utf8')) as { tx_blob: string };

eachDialect('chains: XMR/WOW through a light-wallet server', (dialect) => {
  const lws = new LwsFake();
  const daemon = new MonerodFake();
  useFakes(lws, daemon);
  const t = {} as TestBackend;
  let token = '';
  beforeEach(async () => {
    for (const fake of [lws, daemon]) {
      fake.mode = 'normal';
      fake.received.length = 0;
    }
    lws.accounts.clear();
    lws.submitStatus = 'OK';
    Object.assign(t, await createTestBackend(dialect, { settings: { xmrLwsUrl: lws.url, xmrDaemonUrl: daemon.url, upstreamTimeoutMs: 400 } }));
    token = (await seedSession(t.backend)).auth.access_token;
  });
  afterEach(() => t.close());
  const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/lws/${path}`, body, { token });

  it('registers an account, then reads balance, history and unspent outputs', async () => {
    const wallet = new CryptonoteKey('xmr');
    const account = { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex };
    expect((await post('balance', account)).body.error.code).to.equal('lws_refused');
    expect((await post('register', { ...account, start_height: 3_000_000 })).body).to.deep.equal({ ok: true });
    expect((await post('register', account)).status).to.equal(200);
    const balance = await post('balance', account);
    expect(balance.body).to.deep.include({ asset: 'xmr', total_received: '5000000000000', total_sent: '1200000000000', balance: '3800000000000', blockchain_height: 3_100_000 });
    const history = await post('history', account);
    expect(history.body.confirmed).to.deep.equal([{ id: 7, hash: 'a1'.repeat(32), total_received: '5000000000000', total_sent: '0', height: 3_050_000, mempool: false }]);
    expect(history.body.mempool.map((tx: { hash: string }) => tx.hash)).to.deep.equal(['b2'.repeat(32)]);
    const outs = await post('unspent_outs', account);
    expect(outs.body).to.deep.include({ amount: '3800000000000', per_byte_fee: '20000', fee_mask: '10000', fees: ['20000', '80000'] });
    expect(outs.body.outputs).to.have.length(1);
    const sent = lws.received.find((r) => r.path === '/get_unspent_outs')!.body as Record<string, unknown>;
    expect(sent).to.include({ mixin: 15, amount: '0' });
  });

  it('refuses another network, a subaddress-less mismatch, a wrong view key and junk before calling anything', async () => {
    const wallet = new CryptonoteKey('xmr');
    const other = new CryptonoteKey('xmr');
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ asset: 'xmr', address: wallet.address('stagenet'), view_key: wallet.viewKeyHex }, 'address_invalid'],
      [{ asset: 'xmr', address: new CryptonoteKey('wow').address(), view_key: wallet.viewKeyHex }, 'address_invalid'],
      [{ asset: 'xmr', address: wallet.address(), view_key: other.viewKeyHex }, 'view_key_mismatch'],
      [{ asset: 'xmr', address: wallet.address(), view_key: 'ff'.repeat(32) }, 'view_key_mismatch'],
      [{ asset: 'xmr', address: wallet.address(), view_key: 'zz' }, 'invalid_request'],
      [{ asset: 'btc', address: wallet.address(), view_key: wallet.viewKeyHex }, 'invalid_request'],
    ];
    for (const [body, code] of refusals) {
      const res = await post('balance', body);
      expect(res.status, code).to.equal(400);
      expect(res.body.error.code, code).to.equal(code);
    }
    expect(lws.received).to.have.length(0);
    expect(daemon.received).to.have.length(0);
  });

  it('never logs the view key', async () => {
    const wallet = new CryptonoteKey('xmr');
    await post('register', { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex });
    lws.mode = 'down';
    await post('balance', { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex });
    expect(JSON.stringify(t.logger.lines)).to.not.include(wallet.viewKeyHex);
  });

  it('random outs, submit, height and confirmations', async () => {
    const outs = await post('random_outs', { asset: 'xmr', count: 16 });
    expect(outs.body.amount_outs).to.have.length(1);
    expect(outs.body.amount_outs[0].outputs).to.have.length(16);
    expect((await post('random_outs', { asset: 'xmr', count: 0 })).status).to.equal(400);
    expect((await post('submit_tx', { asset: 'xmr', tx: SIGNED_TX.tx_blob })).body).to.deep.equal({ ok: true });
    lws.submitStatus = 'Failed';
    expect((await post('submit_tx', { asset: 'xmr', tx: SIGNED_TX.tx_blob })).body.error.code).to.equal('tx_rejected');
    const reached = lws.received.length;
    for (const tx of ['not hex', 'ab'.repeat(200), SIGNED_TX.tx_blob.slice(0, -2), `${SIGNED_TX.tx_blob}00`]) {
      const res = await post('submit_tx', { asset: 'xmr', tx });
      expect(res.status, tx.slice(0, 12)).to.equal(400);
      if (tx !== 'not hex') expect(res.body.error.code).to.equal('tx_invalid');
    }
    expect(lws.received.length, 'junk reached the light-wallet server').to.equal(reached);
    daemon.height = 3_100_123;
    expect((await post('height', { asset: 'xmr' })).body).to.deep.equal({ asset: 'xmr', height: 3_100_123 });
    daemon.txs.set('c3'.repeat(32), { in_pool: false, block_height: 3_100_100 });
    daemon.txs.set('d4'.repeat(32), { in_pool: true });
    expect((await post('confirmations', { asset: 'xmr', txid: 'C3'.repeat(32) })).body).to.deep.equal({ asset: 'xmr', txid: 'c3'.repeat(32), found: true, in_pool: false, block_height: 3_100_100, confirmations: 23 });
    expect((await post('confirmations', { asset: 'xmr', txid: 'd4'.repeat(32) })).body).to.include({ found: true, in_pool: true, confirmations: 0 });
    expect((await post('confirmations', { asset: 'xmr', txid: 'e5'.repeat(32) })).body).to.include({ found: false, confirmations: 0 });
    expect((await t.client.get('/api/v1/wallet/heights', { token })).body.xmr).to.equal(3_100_123);
  });

  it('an LWS or daemon outage is 503 within the timeout; WOW stays disabled', async () => {
    const wallet = new CryptonoteKey('xmr');
    await post('register', { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex });
    for (const mode of ['down', 'slow', 'malformed'] as const) {
      lws.mode = mode;
      daemon.mode = mode;
      lws.slowMs = daemon.slowMs = 2_000;
      const started = Date.now();
      const balance = await post('balance', { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex });
      expect(balance.status, mode).to.equal(503);
      expect(balance.body.error.code).to.equal('lws_unavailable');
      const height = await post('height', { asset: 'xmr' });
      expect(height.body.error.code, mode).to.equal('daemon_unavailable');
      expect(Date.now() - started).to.be.lessThan(2_000);
    }
    expect((await post('height', { asset: 'wow' })).body.error.code).to.equal('chain_disabled');
  });
});

eachDialect('chains: XMR/WOW disabled', (dialect) => {
  const t = useTestBackend(dialect);
  it('every LWS route is 400 chain_disabled', async () => {
    const { auth } = await seedSession(t.backend);
    const wallet = new CryptonoteKey('xmr');
    for (const path of ['register', 'balance', 'history', 'unspent_outs']) {
      const res = await t.client.post(`/api/v1/wallet/lws/${path}`, { asset: 'xmr', address: wallet.address(), view_key: wallet.viewKeyHex }, { token: auth.access_token });
      expect(res.body.error.code, path).to.equal('chain_disabled');
    }
    expect((await t.client.post('/api/v1/wallet/lws/height', { asset: 'wow' }, { token: auth.access_token })).body.error.code).to.equal('chain_disabled');
  });
});
