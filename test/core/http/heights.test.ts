import { expect } from 'chai';
import type { Asset, WalletPlugin } from '@wallet/backend-core';
import { HttpFake } from '../../fakes/http-fake.js';
import { eachDialect, seedSession, useTestBackend, useFakes } from '../../harness/index.js';

const TIP_PATH = '/blocks/tip/height';
const ALL_NULL = { btc: null, ltc: null, xmr: null, wow: null, grin: null };

/** An Esplora-style tip endpoint: the height as a bare number. */
function tipFake(height: number, mode: HttpFake['mode'] = 'normal', slowMs?: number): HttpFake {
  return new HttpFake({ [`GET ${TIP_PATH}`]: () => ({ json: height }) }, { mode, ...(slowMs === undefined ? {} : { slowMs }) });
}

/** A plugin that asks one fake per asset for its tip (the URL is read when asked, after the fakes start). */
function heightsPlugin(sources: Partial<Record<Asset, HttpFake>>): WalletPlugin {
  return {
    name: 'test-heights',
    setup(ctx) {
      for (const [asset, fake] of Object.entries(sources) as Array<[Asset, HttpFake]>) {
        ctx.chains.provideHeight(asset, {
          tipHeight: (signal) => fetch(fake.url + TIP_PATH, { signal }).then((r) => r.text()).then(Number),
        });
      }
    },
  };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

eachDialect('GET /wallet/heights with upstream fakes', (dialect) => {
  const btc = tipFake(850_000);
  const ltc = tipFake(2_700_000, 'slow', 3_000);
  const t = useTestBackend(dialect, { plugins: [heightsPlugin({ btc, ltc })], settings: { upstreamTimeoutMs: 300 } });

  useFakes(btc, ltc);
  beforeEach(() => {
    btc.mode = 'normal';
    ltc.mode = 'slow';
    btc.route(`GET ${TIP_PATH}`, () => ({ json: 850_000 }));
    ltc.route(`GET ${TIP_PATH}`, () => ({ json: 2_700_000 }));
    btc.received.splice(0);
    ltc.received.splice(0);
  });

  it('answers the fast chain, nulls the slow one after the timeout, and nulls disabled chains', async () => {
    const { auth } = await seedSession(t.backend);
    const { value: res, ms } = await timed(t.client.get('/api/v1/wallet/heights', { token: auth.access_token }));
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ...ALL_NULL, btc: 850_000 });
    expect(res.headers.get('cache-control')).to.equal('no-store');
    // Bounded by upstreamTimeoutMs (300), not by the slow chain's 3000 ms.
    expect(ms).to.be.below(1_000);
    expect(btc.received.map((r) => `${r.method} ${r.path}`)).to.deep.equal([`GET ${TIP_PATH}`]);
    expect(ltc.received.map((r) => `${r.method} ${r.path}`)).to.deep.equal([`GET ${TIP_PATH}`]);
  });

  it('aborts the slow upstream call once the timeout passes', async () => {
    const { auth } = await seedSession(t.backend);
    const abandonedBefore = ltc.abandoned;
    expect((await t.client.get('/api/v1/wallet/heights', { token: auth.access_token })).body.ltc).to.equal(null);
    const deadline = Date.now() + 2_000;
    while (ltc.abandoned === abandonedBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ltc.abandoned).to.equal(abandonedBefore + 1);
  });

  it('a down upstream and a malformed answer both give null, and neither delays the other', async () => {
    const { auth } = await seedSession(t.backend);
    btc.mode = 'down';
    ltc.mode = 'malformed';
    const { value: res, ms } = await timed(t.client.get('/api/v1/wallet/heights', { token: auth.access_token }));
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(ALL_NULL);
    expect(ms).to.be.below(1_000);
    expect(btc.received).to.have.length(1);
    expect(ltc.received).to.have.length(1);
  });

  it('a non-numeric or negative height from a healthy upstream is null', async () => {
    const { auth } = await seedSession(t.backend);
    ltc.mode = 'normal';
    btc.route(`GET ${TIP_PATH}`, () => ({ text: 'not a number' }));
    ltc.route(`GET ${TIP_PATH}`, () => ({ json: -5 }));
    const res = await t.client.get('/api/v1/wallet/heights', { token: auth.access_token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(ALL_NULL);
  });

  it('401 without a valid token, and no upstream is asked', async () => {
    const { auth } = await seedSession(t.backend);
    for (const token of [undefined, 'x.y.z', auth.refresh_token]) {
      const res = await t.client.get('/api/v1/wallet/heights', token === undefined ? {} : { token });
      expect(res.status, String(token)).to.equal(401);
      expect(res.body.error.code).to.equal('unauthorized');
    }
    expect(btc.received).to.deep.equal([]);
    expect(ltc.received).to.deep.equal([]);
  });

  it('/capabilities lists the enabled chains in asset order and the API version', async () => {
    const res = await t.client.get('/api/v1/capabilities');
    expect(res.status).to.equal(200);
    expect(res.body.chains).to.deep.equal(['btc', 'ltc']);
    expect(res.body.api_version).to.equal('0.3.0');
    expect(t.backend.chains.enabled).to.deep.equal(['btc', 'ltc']);
    // Capabilities never ask the upstreams.
    expect(btc.received).to.deep.equal([]);
  });
});

eachDialect('GET /wallet/heights with no chain enabled', (dialect) => {
  const t = useTestBackend(dialect);

  it('answers null for all five assets', async () => {
    const { auth } = await seedSession(t.backend);
    const res = await t.client.get('/api/v1/wallet/heights', { token: auth.access_token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(ALL_NULL);
  });

  it('/capabilities lists no chains', async () => {
    const res = await t.client.get('/api/v1/capabilities');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ api_version: '0.3.0', chains: [] });
  });
});

describe('HttpFake', () => {
  const fake = new HttpFake({ 'POST /echo': (_req, body) => ({ status: 201, json: { got: body } }) });
  before(() => fake.start());
  after(() => fake.close());
  beforeEach(() => {
    fake.mode = 'normal';
    fake.received.splice(0);
  });

  it('routes by method and path, logs what it received, and answers 404 elsewhere', async () => {
    const res = await fetch(`${fake.url}/echo?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-probe': 'yes' }, body: '{"a":1}' });
    expect(res.status).to.equal(201);
    expect(await res.json()).to.deep.equal({ got: { a: 1 } });
    expect(fake.received).to.have.length(1);
    expect(fake.received[0]).to.deep.include({ method: 'POST', path: '/echo?x=1', body: { a: 1 } });
    expect(fake.received[0]!.headers['x-probe']).to.equal('yes');
    expect((await fetch(`${fake.url}/echo`)).status).to.equal(404);
  });

  it('down destroys the socket, malformed sends invalid JSON, slow waits', async () => {
    fake.mode = 'down';
    const down = await fetch(`${fake.url}/echo`, { method: 'POST', body: '{}' }).then(
      () => 'answered',
      (err: unknown) => err,
    );
    expect(down).to.be.instanceOf(Error);
    fake.mode = 'malformed';
    const malformed = await fetch(`${fake.url}/echo`, { method: 'POST', body: '{}' });
    expect(malformed.status).to.equal(200);
    const text = await malformed.text();
    expect(() => JSON.parse(text)).to.throw(SyntaxError);
    fake.mode = 'slow';
    fake.slowMs = 150;
    const { value: slow, ms } = await timed(fetch(`${fake.url}/echo`, { method: 'POST', body: '{"b":2}' }));
    expect(slow.status).to.equal(201);
    expect(ms).to.be.at.least(140);
    expect(fake.received).to.have.length(3);
  });
});
