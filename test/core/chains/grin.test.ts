import { expect } from 'chai';
import { createTestBackend, eachDialect, loadVectors, seedSession, useTestBackend, type TestBackend } from '../../harness/index.js';
import { FAKE_GRIN_SECRET, GrinNodeFake } from '../../fakes/grin-node.js';

const scanVectors = loadVectors<any>('grin/scan-rewind-hash.json');
const batch = scanVectors.scan_batches.find((b: any) => b.coinbase_maturity === 1440);

function validTx() {
  return {
    offset: 'ab'.repeat(32),
    body: {
      inputs: [{ features: 'Plain', commit: `08${'11'.repeat(32)}` }],
      outputs: [{ features: 'Plain', commit: `09${'22'.repeat(32)}`, proof: 'ee'.repeat(675) }],
      kernels: [{ features: { Plain: { fee: 23500000 } }, excess: `08${'33'.repeat(32)}`, excess_sig: '44'.repeat(64) }],
    },
  };
}

eachDialect('chains: Grin node access', (dialect) => {
  const node = new GrinNodeFake();
  before(() => node.start());
  after(() => node.close());
  const t = {} as TestBackend;
  beforeEach(async () => {
    node.mode = 'normal';
    node.received.length = 0;
    node.outputs = batch.outputs;
    node.pushError = null;
    Object.assign(t, await createTestBackend(dialect, { settings: { grinNodeUrl: node.url, grinNodeApiSecret: FAKE_GRIN_SECRET, upstreamTimeoutMs: 400, grinScanPageSize: 4 } }));
  });
  afterEach(() => t.close());

  it('height comes from get_tip, also in /wallet/heights and /capabilities', async () => {
    const { auth } = await seedSession(t.backend);
    node.tip = 2_718_281;
    expect((await t.client.get('/api/v1/wallet/grin/height', { token: auth.access_token })).body).to.deep.equal({ height: 2_718_281 });
    expect((await t.client.get('/api/v1/wallet/heights', { token: auth.access_token })).body.grin).to.equal(2_718_281);
    expect((await t.client.get('/api/v1/capabilities')).body.chains).to.include('grin');
    expect((await t.client.get('/api/v1/wallet/grin/height')).status).to.equal(401);
  });

  it('scans the output set page by page with a rewind hash and finds exactly the wallet outputs', async () => {
    const { auth } = await seedSession(t.backend);
    const found: any[] = [];
    let start = 1;
    let balance = 0n;
    for (let pages = 0; pages < 10; pages++) {
      const res = await t.client.post('/api/v1/wallet/grin/scan', { rewind_hash: batch.rewind_hash.toUpperCase(), start_index: start }, { token: auth.access_token });
      expect(res.status, res.text).to.equal(200);
      found.push(...res.body.outputs);
      balance += BigInt(res.body.balance);
      if (res.body.complete) break;
      start = res.body.next_index;
    }
    expect(found).to.deep.equal(batch.expected.output_result);
    expect(balance.toString()).to.equal(batch.expected.total_balance);
    const calls = node.received.map((r) => (r.body as any).params);
    expect(calls.every((p: any[]) => p[2] <= 4 && p[3] === true)).to.equal(true);
    expect(calls.length).to.be.greaterThan(1);
  });

  it('refuses a malformed rewind hash before calling the node', async () => {
    const { auth } = await seedSession(t.backend);
    for (const rewind_hash of ['', 'zz'.repeat(32), 'ab'.repeat(31), `0x${'ab'.repeat(31)}`]) {
      const res = await t.client.post('/api/v1/wallet/grin/scan', { rewind_hash }, { token: auth.access_token });
      expect(res.status).to.equal(400);
    }
    expect(node.received).to.have.length(0);
  });

  it('broadcasts a well-formed transaction; a node refusal is 400 and a malformed one never reaches the node', async () => {
    const { auth } = await seedSession(t.backend);
    const ok = await t.client.post('/api/v1/wallet/grin/broadcast', { tx: validTx(), fluff: true }, { token: auth.access_token });
    expect(ok.status).to.equal(200);
    expect(node.pushed).to.deep.equal([validTx()]);
    node.pushError = { Internal: 'Pool(DuplicateCommitment)' };
    const refused = await t.client.post('/api/v1/wallet/grin/broadcast', { tx: validTx() }, { token: auth.access_token });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('grin_tx_rejected');
    const before = node.received.length;
    const bad = validTx();
    bad.body.kernels = [];
    expect((await t.client.post('/api/v1/wallet/grin/broadcast', { tx: bad }, { token: auth.access_token })).status).to.equal(400);
    expect((await t.client.post('/api/v1/wallet/grin/broadcast', { tx: { ...validTx(), offset: 'xyz' } }, { token: auth.access_token })).status).to.equal(400);
    expect(node.received.length).to.equal(before);
  });

  it('an outage is 503 within the timeout, and /wallet/heights still answers with null', async () => {
    const { auth } = await seedSession(t.backend);
    for (const mode of ['down', 'malformed', 'slow'] as const) {
      node.mode = mode;
      node.slowMs = 2_000;
      const started = Date.now();
      const res = await t.client.get('/api/v1/wallet/grin/height', { token: auth.access_token });
      expect(res.status, mode).to.equal(503);
      expect(res.body.error.code).to.equal('grin_node_unavailable');
      expect(Date.now() - started, mode).to.be.lessThan(1_500);
      const heights = await t.client.get('/api/v1/wallet/heights', { token: auth.access_token });
      expect(heights.body.grin, mode).to.equal(null);
      expect((await t.client.post('/api/v1/wallet/grin/scan', { rewind_hash: batch.rewind_hash }, { token: auth.access_token })).status, mode).to.equal(503);
    }
  });
});

eachDialect('chains: Grin disabled', (dialect) => {
  const t = useTestBackend(dialect);
  it('every Grin chain route is 400 chain_disabled, and heights say null', async () => {
    const { auth } = await seedSession(t.backend);
    expect((await t.client.get('/api/v1/wallet/grin/height', { token: auth.access_token })).body.error.code).to.equal('chain_disabled');
    expect((await t.client.post('/api/v1/wallet/grin/scan', { rewind_hash: 'ab'.repeat(32) }, { token: auth.access_token })).body.error.code).to.equal('chain_disabled');
    expect((await t.client.post('/api/v1/wallet/grin/broadcast', { tx: validTx() }, { token: auth.access_token })).status).to.equal(400);
    expect((await t.client.get('/api/v1/wallet/heights', { token: auth.access_token })).body.grin).to.equal(null);
    expect((await t.client.get('/api/v1/capabilities')).body.chains).to.not.include('grin');
  });
});
