import { expect } from 'chai';
import { PREMIUM_INVOICES_TABLE } from '@wallet/premium';
import { eachDialect } from '../harness/index.js';
import { PREMIUM_OPTIONS } from './harness.js';
import { api, codeOf, DAY_MS, INVOICES_PATH, tally, useProbedPremiumWorld } from './support.js';

const MINUTE = 60_000;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('premium: lifecycle', (dialect) => {
  describe('premium on', () => {
    const w = useProbedPremiumWorld(dialect);
    const creations = () => w.btcpay.received.filter((r) => r.method === 'POST' && r.path === INVOICES_PATH).length;

    it('the pending cap counts unpaid unexpired invoices: an invoice stops counting exactly at its expires_at', async () => {
      const alice = api(w, w.alice);
      expect(w.t.clock.now().getTime()).to.equal(START);
      const first = await alice.invoice('month');
      expect(first.body.expires_at).to.equal(iso(START + 30 * MINUTE));
      w.t.clock.advance(10 * MINUTE);
      await alice.relogin();
      expect((await alice.invoice('year')).status).to.equal(200);
      w.t.clock.advance(10 * MINUTE);
      await alice.relogin();
      expect((await alice.invoice('month')).status).to.equal(200);
      expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
      w.t.clock.set(iso(START + 30 * MINUTE - 1));
      await alice.relogin();
      const refused = await alice.invoice('month');
      expect([refused.status, codeOf(refused)], 'one millisecond before the first expires').to.deep.equal([400, 'premium_invoice_limit']);
      expect(creations(), 'refused before the processor is asked').to.equal(3);
      w.t.clock.set(iso(START + 30 * MINUTE));
      const allowed = await alice.invoice('year');
      expect(allowed.status, `at expires_at: ${allowed.text}`).to.equal(200);
      expect(allowed.body.expires_at).to.equal(iso(START + 60 * MINUTE));
      // Exactly one slot was freed.
      expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
      expect(creations()).to.equal(4);
      // Bob's cap is his own.
      const bob = api(w, w.bob);
      await bob.relogin();
      expect((await bob.invoice('month')).status).to.equal(200);
    });

    it('invoices BTCPay already reports Expired or Invalid still count toward the cap until their own expires_at (docs/premium.md)', async () => {
      const alice = api(w, w.alice);
      const ids: string[] = [];
      for (const plan of ['month', 'month', 'year']) ids.push((await alice.invoice(plan)).body.invoice_id as string);
      w.btcpay.setStatus(ids[0]!, 'Expired');
      w.btcpay.setStatus(ids[1]!, 'Invalid');
      w.btcpay.setStatus(ids[2]!, 'Expired');
      expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
      w.t.clock.set(iso(START + 30 * MINUTE - 1));
      await alice.relogin();
      expect(tally([await alice.invoice('month')]), 'one millisecond before our expires_at').to.deep.equal({ '400 premium_invoice_limit': 1 });
      w.t.clock.set(iso(START + 30 * MINUTE));
      expect(tally([await alice.invoice('month')]), 'at our expires_at all three are free').to.deep.equal({ 200: 1 });
      expect(tally([await alice.invoice('month')])).to.deep.equal({ 200: 1 });
    });

    it('consumed invoices do not count toward the cap; a paid but unactivated one still does', async () => {
      const alice = api(w, w.alice);
      const ids: string[] = [];
      for (const plan of ['month', 'month', 'year']) ids.push((await alice.invoice(plan)).body.invoice_id as string);
      expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
      w.btcpay.setStatus(ids[0]!, 'Settled');
      w.btcpay.setStatus(ids[1]!, 'Settled');
      expect(tally([await alice.invoice('month')]), 'settled at the processor, not activated: still pending here').to.deep.equal({ '400 premium_invoice_limit': 1 });
      expect((await alice.activate(ids[0])).status).to.equal(200);
      expect(tally([await alice.invoice('month')])).to.deep.equal({ 200: 1 });
      expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
      expect((await alice.activate(ids[1])).status).to.equal(200);
      expect(tally([await alice.invoice('year')])).to.deep.equal({ 200: 1 });
      expect((await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).where({ user_id: w.alice.userId })).length).to.equal(5);
    });

    it('status lists the invoices newest first with activated_at; ties by invoice id', async () => {
      const alice = api(w, w.alice);
      const a = (await alice.invoice('month')).body.invoice_id as string;
      w.t.clock.advance(MINUTE);
      const b = (await alice.invoice('year')).body.invoice_id as string;
      w.t.clock.advance(MINUTE);
      const c = (await alice.invoice('month')).body.invoice_id as string;
      w.btcpay.setStatus(b, 'Settled');
      w.t.clock.advance(MINUTE);
      expect((await alice.activate(b)).status).to.equal(200);
      const status = await alice.status();
      expect(status.status).to.equal(200);
      const invoiceOf = (id: string) => w.btcpay.invoices.get(id)!;
      expect(status.body).to.deep.equal({
        active: true,
        premium_until: iso(START + 3 * MINUTE + 365 * DAY_MS),
        nostr_pubkey: w.alice.nostrPubkey,
        relay_premium: true,
        invoices: [
          { invoice_id: c, plan: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: iso(START + 2 * MINUTE), expires_at: iso(START + 32 * MINUTE), activated_at: null },
          { invoice_id: b, plan: 'year', days: 365, amount: '0.001', currency: 'BTC', created_at: iso(START + MINUTE), expires_at: iso(START + 31 * MINUTE), activated_at: iso(START + 3 * MINUTE) },
          { invoice_id: a, plan: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: iso(START), expires_at: iso(START + 30 * MINUTE), activated_at: null },
        ],
      });
      expect([invoiceOf(a).amount, invoiceOf(b).amount]).to.deep.equal(['0.0001', '0.001']);
      // Rows with one created_at come in invoice id order.
      const { time } = w.t.backend.db.dialect;
      const same = time(new Date(START + 5 * MINUTE));
      await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).insert(
        ['tie-c', 'tie-a', 'tie-b'].map((invoice_id) => ({ invoice_id, user_id: w.alice.userId, plan_id: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: same, expires_at: same, consumed_at: null })),
      );
      const ids = (await alice.status()).body.invoices.map((i: { invoice_id: string }) => i.invoice_id);
      expect(ids).to.deep.equal(['tie-a', 'tie-b', 'tie-c', c, b, a]);
    });

    it('status lists at most the 50 newest invoices', async () => {
      const alice = api(w, w.alice);
      const { time } = w.t.backend.db.dialect;
      // 55 invoices, one a minute (ids inv-00 … inv-54; inv-54 is the newest); bob's are never listed.
      const row = (i: number, userId: string, prefix: string) => ({
        invoice_id: `${prefix}-${String(i).padStart(2, '0')}`,
        user_id: userId,
        plan_id: 'month',
        days: 30,
        amount: '0.0001',
        currency: 'BTC',
        created_at: time(new Date(START - (60 - i) * MINUTE)),
        expires_at: time(new Date(START - (30 - i) * MINUTE)),
        consumed_at: i % 7 === 0 ? time(new Date(START - (59 - i) * MINUTE)) : null,
      });
      await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).insert(Array.from({ length: 55 }, (_, i) => row(i, w.alice.userId, 'inv')));
      await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).insert(Array.from({ length: 3 }, (_, i) => row(i + 50, w.bob.userId, 'bob')));
      const listed = (await alice.status()).body.invoices as Array<Record<string, unknown>>;
      expect(listed).to.have.length(50);
      expect(listed.map((i) => i.invoice_id)).to.deep.equal(Array.from({ length: 50 }, (_, k) => `inv-${String(54 - k).padStart(2, '0')}`));
      expect(listed[0]).to.deep.equal({ invoice_id: 'inv-54', plan: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: iso(START - 6 * MINUTE), expires_at: iso(START + 24 * MINUTE), activated_at: null });
      expect(listed.find((i) => i.invoice_id === 'inv-49')).to.include({ activated_at: iso(START - 10 * MINUTE) });
      expect(listed[49]).to.include({ invoice_id: 'inv-05', created_at: iso(START - 55 * MINUTE) });
      expect((await api(w, w.bob).status()).body.invoices.map((i: { invoice_id: string }) => i.invoice_id)).to.deep.equal(['bob-52', 'bob-51', 'bob-50']);
    });

    it('capabilities: premium_relay true and premium exactly {currency, plans, relay_url}', async () => {
      const res = await w.t.client.get('/api/v1/capabilities');
      expect(res.status).to.equal(200);
      expect(res.body.premium_relay).to.equal(true);
      expect(res.body.premium).to.deep.equal({
        currency: 'BTC',
        plans: [
          { id: 'month', days: 30, amount: '0.0001' },
          { id: 'year', days: 365, amount: '0.001' },
        ],
        relay_url: 'wss://relay.example.test',
      });
    });

    it('export: premium_until and the user’s invoices oldest first (no other user’s); erasure deletes only that user’s invoices', async () => {
      const alice = api(w, w.alice);
      const bob = api(w, w.bob);
      const first = (await alice.invoice('year')).body.invoice_id as string;
      w.t.clock.advance(MINUTE);
      const second = (await alice.invoice('month')).body.invoice_id as string;
      const bobs = (await bob.invoice('month')).body.invoice_id as string;
      w.btcpay.setStatus(first, 'Settled');
      w.btcpay.setStatus(bobs, 'Settled');
      expect((await alice.activate(first)).status).to.equal(200);
      expect((await bob.activate(bobs)).status).to.equal(200);
      const exported = await w.ctx.hooks.collectUserExport(w.alice.userId);
      expect(exported.premium).to.deep.equal({
        premium_until: iso(START + MINUTE + 365 * DAY_MS),
        invoices: [
          { invoice_id: first, plan: 'year', days: 365, amount: '0.001', currency: 'BTC', created_at: iso(START), expires_at: iso(START + 30 * MINUTE), activated_at: iso(START + MINUTE) },
          { invoice_id: second, plan: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: iso(START + MINUTE), expires_at: iso(START + 31 * MINUTE), activated_at: null },
        ],
      });
      const stranger = (await w.ctx.hooks.collectUserExport('00000000-0000-4000-8000-000000000000')).premium;
      expect(stranger).to.deep.equal({ premium_until: null, invoices: [] });

      // The hooks only (the user row stays, so its cascade cannot be what deletes the invoices).
      await w.t.backend.db.transaction((trx) => w.ctx.hooks.runUserErasure(trx, w.alice.userId));
      const left = (await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).select('invoice_id', 'user_id')) as Array<{ invoice_id: string; user_id: string }>;
      expect(left).to.deep.equal([{ invoice_id: bobs, user_id: w.bob.userId }]);
      expect((await w.ctx.hooks.collectUserExport(w.alice.userId)).premium).to.deep.equal({ premium_until: iso(START + MINUTE + 365 * DAY_MS), invoices: [] });
      expect(((await w.ctx.hooks.collectUserExport(w.bob.userId)).premium as { invoices: unknown[] }).invoices).to.have.length(1);
    });

    it('401 without a token on all three routes', async () => {
      const answers = await Promise.all([
        w.t.client.post('/api/v1/premium/invoice', { plan: 'month' }),
        w.t.client.post('/api/v1/premium/activate', { invoice_id: 'x' }),
        w.t.client.get('/api/v1/premium/status'),
      ]);
      expect(answers.map((a) => a.status)).to.deep.equal([401, 401, 401]);
      expect(w.btcpay.received).to.deep.equal([]);
      expect(await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE)).to.deep.equal([]);
    });
  });

  for (const [label, options] of [
    ['premiumPlugin({})', {}],
    ['enabled: false with every other option set', { ...PREMIUM_OPTIONS, enabled: false }],
  ] as const) {
    describe(`premium off: ${label}`, () => {
      const w = useProbedPremiumWorld(dialect, options);

      it('invoice and activate 400 premium_off, nothing sent to the processor; status still 200', async () => {
        const alice = api(w, w.alice);
        // An invoice from when premium was on: still not redeemable, and the processor not asked.
        const { time } = w.t.backend.db.dialect;
        await w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).insert({ invoice_id: 'old-1', user_id: w.alice.userId, plan_id: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: time(new Date(START)), expires_at: time(new Date(START + 30 * MINUTE)), consumed_at: null });
        const answers = [await alice.invoice('month'), await alice.activate('old-1'), await alice.activate('never-issued')];
        expect(answers.map((a) => [a.status, codeOf(a)])).to.deep.equal([
          [400, 'premium_off'],
          [400, 'premium_off'],
          [400, 'premium_off'],
        ]);
        expect(w.btcpay.received).to.deep.equal([]);
        const status = await alice.status();
        expect(status.status).to.equal(200);
        expect(status.body).to.deep.equal({
          active: false,
          premium_until: null,
          nostr_pubkey: w.alice.nostrPubkey,
          relay_premium: false,
          invoices: [{ invoice_id: 'old-1', plan: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: iso(START), expires_at: iso(START + 30 * MINUTE), activated_at: null }],
        });
        expect((await api(w, w.bob).status()).body).to.deep.equal({ active: false, premium_until: null, nostr_pubkey: w.bob.nostrPubkey, relay_premium: false, invoices: [] });
      });

      it('capabilities: premium_relay false and no premium key', async () => {
        const res = await w.t.client.get('/api/v1/capabilities');
        expect(res.status).to.equal(200);
        expect(res.body.premium_relay).to.equal(false);
        expect(res.body).to.not.have.property('premium');
      });
    });
  }
});
