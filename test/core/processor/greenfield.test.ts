import { expect } from 'chai';
import { GreenfieldClient, missingInvoicePermissions, UpstreamFailure, WalletError } from '@wallet/backend-core';
import { BtcKey, createTestBackend, eachDialect, extensionBody, type TestBackend } from '../../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake, INVOICE_PERMISSIONS } from '../../fakes/greenfield.js';

const CREATE = 'btcpay.store.cancreateinvoice';
const VIEW = 'btcpay.store.canviewinvoices';
const INPUT = { amount: '0.0001', currency: 'BTC', metadata: {}, expirationMinutes: 15, confirmations: 1 } as const;

/** The 503 a call ended with, and the reason its cause carries. */
async function failureOf(call: Promise<unknown>): Promise<{ code: string; status: number; reason: string; upstreamStatus: number | undefined }> {
  const err = await call.then(
    () => expect.fail('the call succeeded'),
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(WalletError);
  const error = err as WalletError;
  expect(error.cause).to.be.instanceOf(UpstreamFailure);
  const cause = error.cause as UpstreamFailure;
  expect(`${error.message} ${cause.message} ${JSON.stringify(cause)}`).not.to.include(FAKE_API_KEY);
  return { code: error.code, status: error.status, reason: cause.reason, upstreamStatus: cause.detail.status };
}

describe('processor: missingInvoicePermissions', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['both scoped to the store', [`${CREATE}:S1234567`, `${VIEW}:S1234567`], []],
    ['both unscoped', [CREATE, VIEW], []],
    ['unrestricted', ['unrestricted'], []],
    ['modify invoices (includes both)', ['btcpay.store.canmodifyinvoices:S1234567'], []],
    ['modify store settings (includes both)', ['btcpay.store.canmodifystoresettings'], []],
    ['view store settings: view only', ['btcpay.store.canviewstoresettings:S1234567'], [CREATE]],
    ['create only', [`${CREATE}:S1234567`], [VIEW]],
    ['scoped to another store', [`${CREATE}:Other123`, `${VIEW}:Other123`], [CREATE, VIEW]],
    ['store ids compare with case', [`${CREATE}:s1234567`, `${VIEW}:s1234567`], [CREATE, VIEW]],
    ['policies compare without case', ['BTCPay.Store.CanCreateInvoice', 'BTCPAY.STORE.CANVIEWINVOICES:S1234567'], []],
    ['a user permission only', ['btcpay.user.canviewprofile'], [CREATE, VIEW]],
    ['nothing', [], [CREATE, VIEW]],
  ];
  for (const [title, permissions, missing] of cases) {
    it(title, () => expect(missingInvoicePermissions(permissions, 'S1234567')).to.deep.equal(missing));
  }
});

describe('processor: GreenfieldClient against the Greenfield fake', () => {
  const btcpay = new GreenfieldFake();
  before(() => btcpay.start());
  after(() => btcpay.close());
  beforeEach(() => {
    btcpay.mode = 'normal';
    btcpay.slowMs = 1000;
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    btcpay.proxyReply = undefined;
  });
  const client = (over: { apiKey?: string; storeId?: string; url?: string; timeoutMs?: number } = {}) =>
    new GreenfieldClient({ url: over.url ?? btcpay.url, storeId: over.storeId ?? FAKE_STORE_ID, apiKey: over.apiKey ?? FAKE_API_KEY, timeoutMs: over.timeoutMs ?? 300 });

  it('creates and reads an invoice, with its paid amount', async () => {
    const invoice = await client().createInvoice(INPUT);
    expect(invoice).to.include({ amount: '0.0001', paidAmount: '0', status: 'New', currency: 'BTC' });
    btcpay.setStatus(invoice.id, 'Settled');
    expect(await client().getInvoice(invoice.id)).to.include({ status: 'Settled', paidAmount: '0.0001' });
    expect(await client().getInvoice('NoSuchInvoice1')).to.equal(null);
  });

  it('getInvoice: null only for 404 invoice-not-found; any other 404 (a BTCPAY_URL path that misses Greenfield) is 503 not_found', async () => {
    expect(await client().getInvoice('NoSuchInvoice1')).to.equal(null);
    const wrongPath = client({ url: `${btcpay.url}/btcpay` });
    expect(await failureOf(wrongPath.getInvoice('NoSuchInvoice1'))).to.deep.equal({ code: 'processor_unavailable', status: 503, reason: 'not_found', upstreamStatus: 404 });
    expect(await failureOf(wrongPath.createInvoice(INPUT))).to.include({ status: 503, reason: 'not_found', upstreamStatus: 404 });
    // A proxy's own 404 page for every path, with no JSON body at all.
    btcpay.proxyReply = { status: 404, text: '<html>Not Found</html>' };
    expect(await failureOf(client().getInvoice('NoSuchInvoice1'))).to.include({ status: 503, reason: 'not_found', upstreamStatus: 404 });
  });

  it('a 5xx is upstream_error and a 429 rate_limited, never bad_answer', async () => {
    const unavailable = { code: 'processor_unavailable', status: 503 };
    btcpay.proxyReply = { status: 502, text: 'Bad Gateway' };
    expect(await failureOf(client().createInvoice(INPUT))).to.deep.equal({ ...unavailable, reason: 'upstream_error', upstreamStatus: 502 });
    expect(await failureOf(client().getInvoice('AnyInvoice123'))).to.deep.equal({ ...unavailable, reason: 'upstream_error', upstreamStatus: 502 });
    btcpay.proxyReply = { status: 500, json: { code: 'generic-error', message: 'boom' } };
    expect(await failureOf(client().getInvoice('AnyInvoice123'))).to.deep.equal({ ...unavailable, reason: 'upstream_error', upstreamStatus: 500 });
    btcpay.proxyReply = { status: 429, text: 'Too Many Requests', headers: { 'retry-after': '30' } };
    expect(await failureOf(client().createInvoice(INPUT))).to.deep.equal({ ...unavailable, reason: 'rate_limited', upstreamStatus: 429 });
    expect(await failureOf(client().getInvoice('AnyInvoice123'))).to.deep.equal({ ...unavailable, reason: 'rate_limited', upstreamStatus: 429 });
  });

  it('tells every failure apart in the cause, and answers the wallet 503 processor_unavailable each time', async () => {
    const seen: Record<string, unknown> = {};
    seen.badKey = await failureOf(client({ apiKey: 'not-the-key-0123456789' }).createInvoice(INPUT));
    btcpay.permissions = [`${VIEW}:${FAKE_STORE_ID}`];
    seen.noCreate = await failureOf(client().createInvoice(INPUT));
    btcpay.permissions = [`${CREATE}:${FAKE_STORE_ID}`];
    seen.noView = await failureOf(client().getInvoice('AnyInvoice123'));
    btcpay.permissions = [CREATE, VIEW];
    seen.unknownStore = await failureOf(client({ storeId: 'UnknownStore1' }).getInvoice('AnyInvoice123'));
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    seen.otherStore = await failureOf(client({ storeId: 'UnknownStore1' }).createInvoice(INPUT));
    btcpay.mode = 'down';
    seen.down = await failureOf(client().createInvoice(INPUT));
    btcpay.mode = 'malformed';
    seen.malformed = await failureOf(client().createInvoice(INPUT));
    btcpay.mode = 'slow';
    seen.slow = await failureOf(client().getInvoice('AnyInvoice123'));
    btcpay.mode = 'normal';
    seen.validation = await failureOf(client().createInvoice({ ...INPUT, amount: '-1' }));
    const unavailable = { code: 'processor_unavailable', status: 503 };
    expect(seen).to.deep.equal({
      badKey: { ...unavailable, reason: 'unauthorized', upstreamStatus: 401 },
      noCreate: { ...unavailable, reason: 'forbidden', upstreamStatus: 403 },
      noView: { ...unavailable, reason: 'forbidden', upstreamStatus: 403 },
      unknownStore: { ...unavailable, reason: 'store_not_found', upstreamStatus: 404 },
      otherStore: { ...unavailable, reason: 'forbidden', upstreamStatus: 403 },
      down: { ...unavailable, reason: 'unreachable', upstreamStatus: undefined },
      malformed: { ...unavailable, reason: 'bad_answer', upstreamStatus: 200 },
      slow: { ...unavailable, reason: 'timeout', upstreamStatus: undefined },
      validation: { ...unavailable, reason: 'bad_answer', upstreamStatus: 400 },
    });
  });

  it('check(): a key with the invoice permissions on an existing store passes', async () => {
    expect(await client().check()).to.deep.equal({ ok: true, problems: [] });
    btcpay.permissions = ['btcpay.store.canmodifystoresettings'];
    expect(await client().check()).to.deep.equal({ ok: true, storeName: btcpay.storeName, problems: [] });
  });

  it('check(): one line per problem, naming the setting, never the key', async () => {
    const lines = async (over: Parameters<typeof client>[0] = {}) => {
      const result = await client(over).check();
      // Every case below is a failing set-up.
      expect(result.ok).to.equal(false);
      expect(result.problems.join('\n')).not.to.include(FAKE_API_KEY);
      return result.problems;
    };
    expect(await lines({ apiKey: 'not-the-key-0123456789' })).to.deep.equal(['BTCPAY_API_KEY: BTCPay refused the key (401): it is mistyped, revoked or from another BTCPay Server']);

    btcpay.permissions = [`${CREATE}:${FAKE_STORE_ID}`];
    expect(await lines()).to.deep.equal([`BTCPAY_API_KEY: the key lacks ${VIEW} for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`]);

    // Scoped to the fake's store, configured with another: both permissions are missing there.
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    expect(await lines({ storeId: 'UnknownStore1' })).to.deep.equal([
      `BTCPAY_API_KEY: the key lacks ${CREATE} for store UnknownStore1 (grant it on that store, or unscoped)`,
      `BTCPAY_API_KEY: the key lacks ${VIEW} for store UnknownStore1 (grant it on that store, or unscoped)`,
    ]);

    // An unscoped key that sees every store of its user: BTCPay says the store does not exist.
    btcpay.permissions = ['btcpay.store.canmodifystoresettings'];
    expect(await lines({ storeId: 'UnknownStore1' })).to.deep.equal([
      "BTCPAY_STORE_ID: BTCPay has no store UnknownStore1 (copy the Store ID from the store's Settings > General page)",
    ]);

    const origin = new URL(btcpay.url).origin;
    btcpay.mode = 'down';
    expect(await lines()).to.deep.equal([`BTCPAY_URL: cannot reach ${origin} (connection refused, unknown host, TLS error or a redirect)`]);
    btcpay.mode = 'slow';
    expect(await lines()).to.deep.equal([`BTCPAY_URL: ${origin} did not answer within 300 ms (UPSTREAM_TIMEOUT_MS)`]);
    btcpay.mode = 'malformed';
    expect(await lines()).to.deep.equal([`BTCPAY_URL: ${origin} did not answer like a BTCPay Greenfield API (GET /api/v1/api-keys/current: HTTP 200)`]);
    btcpay.mode = 'normal';
    btcpay.proxyReply = { status: 502, text: 'Bad Gateway' };
    expect(await lines()).to.deep.equal([`BTCPAY_URL: ${origin} answered HTTP 502 to GET /api/v1/api-keys/current: BTCPay, or a proxy in front of it, is failing or down; retry later`]);
    btcpay.proxyReply = { status: 429, text: 'Too Many Requests' };
    expect(await lines()).to.deep.equal([`BTCPAY_URL: ${origin} is rate-limiting the backend (HTTP 429 to GET /api/v1/api-keys/current); retry later`]);
    btcpay.proxyReply = undefined;
    expect(await lines({ url: `${btcpay.url}/btcpay` })).to.deep.equal([`BTCPAY_URL: ${origin} did not answer like a BTCPay Greenfield API (GET /api/v1/api-keys/current: HTTP 404)`]);
    // Credentials in the URL never reach a line.
    btcpay.mode = 'down';
    expect(await lines({ url: btcpay.url.replace('http://', 'http://user:hunter2@') })).to.deep.equal([`BTCPAY_URL: cannot reach ${origin} (connection refused, unknown host, TLS error or a redirect)`]);
  });

  it('the fake speaks the published shapes: top-up invoices, 403 insufficient-api-permissions, 404 store-not-found and invoice-not-found', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${btcpay.url}${path}`, { method: 'POST', headers: { authorization: `token ${FAKE_API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const topUp = await (await post(`/api/v1/stores/${FAKE_STORE_ID}/invoices`, { currency: 'BTC' })).json();
    expect(topUp).to.include({ type: 'TopUp', amount: '0', paidAmount: '0', status: 'New' });
    btcpay.permissions = [`${VIEW}:${FAKE_STORE_ID}`];
    const refused = await post(`/api/v1/stores/${FAKE_STORE_ID}/invoices`, { amount: '1' });
    expect(refused.status).to.equal(403);
    expect(await refused.json()).to.include({ code: 'insufficient-api-permissions', missingPermission: CREATE });
    btcpay.permissions = [CREATE];
    const unknown = await post('/api/v1/stores/UnknownStore1/invoices', { amount: '1' });
    expect([unknown.status, await unknown.json()]).to.deep.equal([404, { code: 'store-not-found', message: 'The store was not found' }]);
    // BTCPay's GreenfieldInvoiceController.InvoiceNotFound(), word for word.
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    const missing = await fetch(`${btcpay.url}/api/v1/stores/${FAKE_STORE_ID}/invoices/NoSuchInvoice1`, { headers: { authorization: `token ${FAKE_API_KEY}` } });
    expect([missing.status, await missing.json()]).to.deep.equal([404, { code: 'invoice-not-found', message: 'The invoice was not found' }]);
  });
});

eachDialect('processor: a failing BTCPay in the log and the metrics', (dialect) => {
  const btcpay = new GreenfieldFake();
  before(() => btcpay.start());
  after(() => btcpay.close());
  let t: TestBackend | undefined;
  beforeEach(() => {
    btcpay.mode = 'normal';
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    btcpay.proxyReply = undefined;
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const boot = async (over: { apiKey?: string; storeId?: string } = {}) => {
    t = await createTestBackend(dialect, {
      settings: {
        registrationRequirePayment: true,
        registrationPrice: '0.0001',
        btcpayUrl: btcpay.url,
        btcpayStoreId: over.storeId ?? FAKE_STORE_ID,
        btcpayApiKey: over.apiKey ?? FAKE_API_KEY,
        upstreamTimeoutMs: 300,
        metricsListen: '127.0.0.1:0',
      },
    });
    const { metricsUrl } = await t.backend.start();
    return { t, metricsUrl: metricsUrl! };
  };
  const failures = async (metricsUrl: string) => {
    const text = await (await fetch(metricsUrl)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('wallet_upstream_failures_total{') && line.includes('upstream="btcpay"'))
      .map((line) => line.replace(/^wallet_upstream_failures_total/, ''))
      .sort();
  };

  const scenarios: Array<{ title: string; arrange: () => void; over?: { apiKey?: string; storeId?: string }; reason: string; status?: number }> = [
    { title: 'a wrong key', arrange: () => {}, over: { apiKey: 'not-the-key-0123456789' }, reason: 'unauthorized', status: 401 },
    { title: 'a key without the create permission', arrange: () => (btcpay.permissions = [`${VIEW}:${FAKE_STORE_ID}`]), reason: 'forbidden', status: 403 },
    { title: 'an unknown store', arrange: () => (btcpay.permissions = [CREATE, VIEW]), over: { storeId: 'UnknownStore1' }, reason: 'store_not_found', status: 404 },
    { title: 'a BTCPay that is down', arrange: () => (btcpay.mode = 'down'), reason: 'unreachable' },
    { title: 'a BTCPay that does not answer in time', arrange: () => ((btcpay.mode = 'slow'), (btcpay.slowMs = 1000)), reason: 'timeout' },
    { title: 'a proxy answering 502 for a BTCPay that is down', arrange: () => (btcpay.proxyReply = { status: 502, text: 'Bad Gateway' }), reason: 'upstream_error', status: 502 },
    { title: 'a BTCPay rate-limiting the backend', arrange: () => (btcpay.proxyReply = { status: 429, text: 'Too Many Requests' }), reason: 'rate_limited', status: 429 },
  ];
  for (const scenario of scenarios) {
    it(`${scenario.title}: the wallet gets 503 processor_unavailable; the log warns with reason ${scenario.reason}, no stack; the metric counts it`, async () => {
      const { t, metricsUrl } = await boot(scenario.over);
      scenario.arrange();
      const res = await t.client.post('/api/v1/auth/payment-invoice', { pubkey_hash: new BtcKey().pubkeyHash });
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('processor_unavailable');
      expect(res.body.error.message).to.equal('The payment processor is unavailable; retry later.');
      const lines = t.logger.lines.filter((line) => line.msg !== 'request');
      expect(lines.filter((line) => line.level === 'error')).to.deep.equal([]);
      const warned = lines.filter((line) => line.msg === 'upstream unavailable');
      expect(warned).to.have.length(1);
      expect(warned[0]).to.include({ level: 'warn', code: 'processor_unavailable', upstream: 'btcpay', reason: scenario.reason });
      expect(warned[0]!.upstream_status).to.equal(scenario.status);
      expect(warned[0]).not.to.have.property('stack');
      expect(t.logger.text()).not.to.include(FAKE_API_KEY);
      expect(await failures(metricsUrl)).to.deep.equal([`{chain="none",upstream="btcpay",operation="createInvoice",reason="${scenario.reason}"} 1`]);
    });
  }

  it('a settled invoice read through a 404 that is not invoice-not-found (a proxy, a wrong path) or a 502: 503, never an unpaid or unknown invoice, nothing consumed', async () => {
    const { t, metricsUrl } = await boot();
    const btc = new BtcKey();
    const { invoice_id } = (await t.client.post('/api/v1/auth/payment-invoice', { pubkey_hash: btc.pubkeyHash })).body as { invoice_id: string };
    btcpay.setStatus(invoice_id, 'Settled');
    const register = () => t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { payment_invoice_id: invoice_id }));
    for (const [reply, reason] of [
      [{ status: 404, text: '<html>Not Found</html>' }, 'not_found'],
      [{ status: 404, json: { code: 'generic-error', message: 'Not found' } }, 'not_found'],
      [{ status: 502, text: 'Bad Gateway' }, 'upstream_error'],
    ] as const) {
      btcpay.proxyReply = reply;
      const res = await register();
      expect([res.status, res.body.error?.code], reason).to.deep.equal([503, 'processor_unavailable']);
      expect(t.logger.lines.filter((line) => line.msg === 'upstream unavailable').at(-1)).to.include({ reason, upstream_status: reply.status });
    }
    expect(await failures(metricsUrl)).to.deep.equal([
      '{chain="none",upstream="btcpay",operation="getInvoice",reason="not_found"} 2',
      '{chain="none",upstream="btcpay",operation="getInvoice",reason="upstream_error"} 1',
    ]);
    btcpay.proxyReply = undefined;
    expect((await register()).status).to.equal(200);
  });

  it('backend.checkProcessor() runs the same check, uncounted; null without a processor', async () => {
    const { t, metricsUrl } = await boot();
    expect(await t.backend.checkProcessor()).to.deep.equal({ ok: true, problems: [] });
    btcpay.permissions = [`${CREATE}:${FAKE_STORE_ID}`];
    expect(await t.backend.checkProcessor()).to.deep.equal({
      ok: false,
      problems: [`BTCPAY_API_KEY: the key lacks ${VIEW} for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`],
    });
    expect(await failures(metricsUrl)).to.deep.equal([]);
    await t.close();
    const bare = await createTestBackend(dialect);
    try {
      expect(await bare.backend.checkProcessor()).to.equal(null);
    } finally {
      await bare.close();
    }
  });
});
