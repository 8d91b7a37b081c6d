import { expect } from 'chai';
import { PREMIUM_INVOICES_TABLE } from '@wallet/premium';
import { eachDialect } from '../harness/index.js';
import { usePremiumWorld } from './harness.js';
import { api, codeOf, DAY_MS, INVOICES_PATH, tally } from './support.js';
import { allowPremiumUpdates, refusePremiumUpdates } from './triggers.js';

eachDialect('premium: activation failures', (dialect) => {
  const w = usePremiumWorld(dialect);

  const knex = () => w.t.backend.db.knex;
  const invoiceRow = async (id: string) => (await knex()(PREMIUM_INVOICES_TABLE).where({ invoice_id: id }).first()) as Record<string, unknown>;
  const premiumUntilOf = async (userId: string) => {
    const value = ((await knex()('users').where({ id: userId }).first()) as { premium_until: unknown }).premium_until;
    return value === null ? null : new Date(value as string).toISOString();
  };
  const reads = () => w.btcpay.received.filter((r) => r.method === 'GET' && r.path.startsWith(`${INVOICES_PATH}/`)).length;

  async function settled(plan: string): Promise<string> {
    const created = await api(w, w.alice).invoice(plan);
    expect(created.status, created.text).to.equal(200);
    const id = created.body.invoice_id as string;
    w.btcpay.setStatus(id, 'Settled');
    return id;
  }

  it('premium_until refuses the update after the invoice was consumed: the request fails, the invoice is not consumed, premium_until unchanged; once the fault is gone the same invoice activates', async () => {
    const alice = api(w, w.alice);
    const start = w.t.clock.now().getTime();
    const year = await settled('year');
    expect((await alice.activate(year)).status).to.equal(200);
    const afterYear = new Date(start + 365 * DAY_MS).toISOString();
    expect(await premiumUntilOf(w.alice.userId)).to.equal(afterYear);

    const month = await settled('month');
    await refusePremiumUpdates(dialect, knex());
    let failed;
    try {
      failed = await alice.activate(month);
      // The fault really sits in the users update: a direct update is refused too.
      const direct = await knex()('users').where({ id: w.alice.userId }).update({ premium_until: w.t.backend.db.dialect.time(new Date(0)) }).then(() => 'updated', (err: Error) => err.message);
      expect(direct).to.include('boom');
    } finally {
      await allowPremiumUpdates(dialect, knex());
    }
    expect([failed.status, codeOf(failed)], failed.text).to.deep.equal([500, 'internal_error']);
    expect(failed.text, 'the database error stays inside').to.not.include('boom');
    expect((await invoiceRow(month)).consumed_at).to.equal(null);
    expect(await premiumUntilOf(w.alice.userId)).to.equal(afterYear);
    const status = await alice.status();
    expect(status.body).to.include({ active: true, premium_until: afterYear });
    expect(status.body.invoices.find((i: { invoice_id: string }) => i.invoice_id === month)).to.include({ activated_at: null });

    w.t.clock.advance(60_000);
    const retried = await alice.activate(month);
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.body).to.include({ active: true, premium_until: new Date(start + (365 + 30) * DAY_MS).toISOString() });
    expect(new Date((await invoiceRow(month)).consumed_at as string).toISOString()).to.equal(new Date(start + 60_000).toISOString());
    expect(tally([await alice.activate(month)])).to.deep.equal({ '400 premium_invoice_used': 1 });
  });

  it('the processor down during activate: 503 processor_unavailable, nothing consumed; redeemable once it is back', async () => {
    const alice = api(w, w.alice);
    const start = w.t.clock.now().getTime();
    const id = await settled('month');
    for (const mode of ['down', 'malformed'] as const) {
      w.btcpay.mode = mode;
      const down = await alice.activate(id);
      expect([down.status, codeOf(down)], mode).to.deep.equal([503, 'processor_unavailable']);
      expect((await invoiceRow(id)).consumed_at, mode).to.equal(null);
      expect(await premiumUntilOf(w.alice.userId), mode).to.equal(null);
    }
    expect(reads(), 'the processor was asked both times').to.equal(2);
    w.btcpay.mode = 'normal';
    const back = await alice.activate(id);
    expect(back.status, back.text).to.equal(200);
    expect(back.body).to.include({ active: true, premium_until: new Date(start + 30 * DAY_MS).toISOString() });
    expect(await premiumUntilOf(w.alice.userId)).to.equal(new Date(start + 30 * DAY_MS).toISOString());
  });

  it('the processor answers 404 for the invoice: 400 premium_invoice_unpaid, nothing consumed; a processor error status is 503', async () => {
    const alice = api(w, w.alice);
    const id = await settled('month');
    const known = w.btcpay.invoices.get(id)!;
    w.btcpay.invoices.delete(id);
    const unknown = await alice.activate(id);
    expect([unknown.status, codeOf(unknown)], unknown.text).to.deep.equal([400, 'premium_invoice_unpaid']);
    expect(reads()).to.equal(1);
    expect((await invoiceRow(id)).consumed_at).to.equal(null);
    expect(await premiumUntilOf(w.alice.userId)).to.equal(null);
    // Not 404 but another refusal (a revoked API key): the processor is unusable, not the invoice unpaid.
    const fallback = w.btcpay.fallback!;
    w.btcpay.fallback = () => ({ status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } });
    try {
      const refused = await alice.activate(id);
      expect([refused.status, codeOf(refused)]).to.deep.equal([503, 'processor_unavailable']);
    } finally {
      w.btcpay.fallback = fallback;
    }
    w.btcpay.invoices.set(id, known);
    expect((await alice.activate(id)).status).to.equal(200);
  });
});
