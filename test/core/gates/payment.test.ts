import { expect } from 'chai';
import { WalletError, type WalletPlugin } from '@wallet/backend-core';
import { BtcKey, createTestBackend, eachDialect, extensionBody, useTestBackend, type TestBackend } from '../../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../../fakes/greenfield.js';

/** A gate after payment that refuses on demand: a failure between "settled" and "user created". */
function laterFailure(): { plugin: WalletPlugin; fail: boolean } {
  const state = {
    fail: false,
    plugin: {
      name: 'later-failure',
      setup(ctx) {
        ctx.registration.addGate({
          name: 'later-failure',
          admit: async () => {
            if (state.fail) throw new WalletError('later_failure', 400, 'Failed after payment.');
          },
        });
      },
    } as WalletPlugin,
  };
  return state;
}

async function count(t: TestBackend, table: string, where: (qb: any) => void = () => {}): Promise<number> {
  const [row] = await t.backend.db.knex(table).where(where).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

eachDialect('gates: pay to register (BTCPay Greenfield)', (dialect) => {
  const btcpay = new GreenfieldFake();
  const later = laterFailure();
  before(() => btcpay.start());
  after(() => btcpay.close());
  beforeEach(() => {
    btcpay.mode = 'normal';
    btcpay.received.length = 0;
    later.fail = false;
  });
  const settings = () => ({
    registrationRequirePayment: true,
    registrationPrice: '0.0001',
    registrationCurrency: 'BTC',
    registrationConfirmations: 2,
    registrationInvoiceExpiryMinutes: 20,
    btcpayUrl: btcpay.url,
    btcpayStoreId: FAKE_STORE_ID,
    btcpayApiKey: FAKE_API_KEY,
    upstreamTimeoutMs: 500,
  });
  const t = {} as TestBackend;
  // Built per test, after the fake has started: the settings need its URL.
  beforeEach(async () => {
    Object.assign(t, await createTestBackend(dialect, { plugins: [later.plugin], settings: settings() }));
  });
  afterEach(() => t.close());

  const invoiceFor = (btc: BtcKey) => t.client.post('/api/v1/auth/payment-invoice', { pubkey_hash: btc.pubkeyHash });
  const register = (btc: BtcKey, fields: Record<string, unknown> = {}, at = t.clock.now()) => t.client.post('/api/v1/auth/extension', extensionBody(btc, at, fields));

  it('creates an invoice bound to the wallet, with the configured terms, authenticated by token', async () => {
    const btc = new BtcKey();
    const res = await invoiceFor(btc);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ amount: '0.0001', currency: 'BTC' });
    expect(res.body.checkout_link).to.include(`/i/${res.body.invoice_id}`);
    const sent = btcpay.received.at(-1)!;
    expect(sent.path).to.equal(`/api/v1/stores/${FAKE_STORE_ID}/invoices`);
    expect(sent.headers.authorization).to.equal(`token ${FAKE_API_KEY}`);
    expect(sent.body).to.deep.include({ amount: '0.0001', currency: 'BTC', checkout: { speedPolicy: 'LowMediumSpeed', expirationMinutes: 20 } });
    expect(JSON.stringify(sent.body)).to.not.include(btc.pubkeyHash);
    expect(await count(t, 'registration_invoices')).to.equal(1);
    const caps = (await t.client.get('/api/v1/capabilities')).body;
    expect(caps).to.include({ payment_required: true });
    expect(caps.registration_price).to.deep.equal({ amount: '0.0001', currency: 'BTC' });
  });

  it('registers only with a Settled invoice bound to the same wallet, consumed once', async () => {
    const btc = new BtcKey();
    const { invoice_id } = (await invoiceFor(btc)).body;
    expect((await register(btc)).body.error.code).to.equal('payment_required');
    for (const status of ['New', 'Processing', 'Expired', 'Invalid', 'Paid', 'Complete', 'settled']) {
      btcpay.setStatus(invoice_id, status);
      const res = await register(btc, { payment_invoice_id: invoice_id });
      expect(res.status, status).to.equal(400);
      expect(res.body.error.code, status).to.equal('payment_invalid');
    }
    btcpay.setStatus(invoice_id, 'Settled');
    const other = new BtcKey();
    expect((await register(other, { payment_invoice_id: invoice_id })).body.error.code).to.equal('payment_invalid');
    expect((await register(btc, { payment_invoice_id: 'unknown-invoice' })).body.error.code).to.equal('payment_invalid');
    const ok = await register(btc, { payment_invoice_id: invoice_id });
    expect(ok.status).to.equal(200);
    expect(await count(t, 'registration_invoices', (qb) => qb.whereNotNull('consumed_at'))).to.equal(1);
    // Registered: no new invoice, and a rotated wallet cannot reuse the consumed one.
    expect((await invoiceFor(btc)).body.error.code).to.equal('already_registered');
  });

  it('a processor outage is 503 and consumes nothing', async () => {
    const btc = new BtcKey();
    const { invoice_id } = (await invoiceFor(btc)).body;
    btcpay.setStatus(invoice_id, 'Settled');
    for (const mode of ['down', 'malformed', 'slow'] as const) {
      btcpay.mode = mode;
      const res = await register(btc, { payment_invoice_id: invoice_id });
      expect(res.status, mode).to.equal(503);
      expect(res.body.error.code).to.equal('processor_unavailable');
      expect((await invoiceFor(new BtcKey())).status, mode).to.equal(503);
    }
    btcpay.mode = 'normal';
    expect(await count(t, 'registration_invoices', (qb) => qb.whereNotNull('consumed_at'))).to.equal(0);
    expect((await register(btc, { payment_invoice_id: invoice_id })).status).to.equal(200);
  });

  it('a failure between "settled" and "user created" leaves the paid invoice redeemable', async () => {
    const btc = new BtcKey();
    const { invoice_id } = (await invoiceFor(btc)).body;
    btcpay.setStatus(invoice_id, 'Settled');
    later.fail = true;
    expect((await register(btc, { payment_invoice_id: invoice_id })).body.error.code).to.equal('later_failure');
    expect(await count(t, 'users')).to.equal(0);
    expect(await count(t, 'registration_invoices', (qb) => qb.whereNotNull('consumed_at'))).to.equal(0);
    later.fail = false;
    t.clock.advance(1000);
    expect((await register(btc, { payment_invoice_id: invoice_id })).status).to.equal(200);
  });

  it('concurrent registrations with one invoice: one account, the invoice consumed once, no 500', async () => {
    const btc = new BtcKey();
    const { invoice_id } = (await invoiceFor(btc)).body;
    btcpay.setStatus(invoice_id, 'Settled');
    const base = t.clock.now().getTime();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => register(btc, { payment_invoice_id: invoice_id }, new Date(base - i * 1000))));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 400 || s === 409), statuses.join()).to.equal(true);
    expect(await count(t, 'users')).to.equal(1);
    expect(await count(t, 'registration_invoices', (qb) => qb.whereNotNull('consumed_at'))).to.equal(1);
  });

  it('refuses an invalid key with 400', async () => {
    expect((await t.client.post('/api/v1/auth/payment-invoice', { pubkey_hash: 'xyz' })).status).to.equal(400);
    expect((await t.client.post('/api/v1/auth/payment-invoice', {})).status).to.equal(400);
  });
});

eachDialect('gates: payment gate off', (dialect) => {
  const t = useTestBackend(dialect);
  it('payment-invoice is 400 payment_gate_off and nothing is asked at registration', async () => {
    const res = await t.client.post('/api/v1/auth/payment-invoice', { pubkey_hash: new BtcKey().pubkeyHash });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('payment_gate_off');
    expect((await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()))).status).to.equal(200);
    expect((await t.client.get('/api/v1/capabilities')).body).to.include({ payment_required: false, proof_of_work: false, invite_required: false });
  });
});
