import { expect } from 'chai';
import { eachDialect } from '../harness/index.js';
import { usePremiumWorld } from './harness.js';
import { api, codeOf } from './support.js';

const DAY_MS = 86_400_000;


eachDialect('premium: routes', (dialect) => {
  const w = usePremiumWorld(dialect);

  it('an invoice for a plan: the processor is asked for the plan amount with the configured speed and expiry; the answer names where to pay', async () => {
    const alice = api(w, w.alice);
    const created = await alice.invoice('month');
    expect(created.status, created.text).to.equal(200);
    const stored = w.btcpay.invoices.get(created.body.invoice_id)!;
    expect(stored).to.include({ amount: '0.0001', currency: 'BTC' });
    expect(stored.checkout).to.deep.equal({ speedPolicy: 'LowMediumSpeed', expirationMinutes: 30 });
    expect(stored.metadata).to.deep.equal({ orderId: 'wallet-premium-month' });
    expect(created.body).to.deep.equal({
      invoice_id: stored.id,
      plan: 'month',
      days: 30,
      amount: '0.0001',
      currency: 'BTC',
      checkout_link: stored.checkoutLink,
      expires_at: new Date(w.t.clock.now().getTime() + 30 * 60_000).toISOString(),
    });
  });

  it('activation: unknown, another user’s and unpaid invoices are refused; a Settled one extends premium by the plan’s days once', async () => {
    const alice = api(w, w.alice);
    const bob = api(w, w.bob);
    const id = (await alice.invoice('month')).body.invoice_id as string;
    expect(codeOf(await alice.activate('no-such-invoice'))).to.equal('premium_invoice_unknown');
    for (const status of ['New', 'Processing', 'Expired', 'Invalid', 'SettledPartially', 'settled']) {
      w.btcpay.setStatus(id, status);
      const refused = await alice.activate(id);
      expect([refused.status, codeOf(refused)], status).to.deep.equal([400, 'premium_invoice_unpaid']);
    }
    w.btcpay.setStatus(id, 'Settled');
    expect(codeOf(await bob.activate(id))).to.equal('premium_invoice_unknown');
    const start = w.t.clock.now().getTime();
    const activated = await alice.activate(id);
    expect(activated.status, activated.text).to.equal(200);
    expect(activated.body).to.include({ active: true, premium_until: new Date(start + 30 * DAY_MS).toISOString(), nostr_pubkey: w.alice.nostrPubkey, relay_premium: true });
    expect(activated.body.invoices).to.have.length(1);
    expect(activated.body.invoices[0]).to.include({ invoice_id: id, plan: 'month', days: 30, activated_at: new Date(start).toISOString() });
    expect(codeOf(await alice.activate(id))).to.equal('premium_invoice_used');
    expect((await bob.status()).body).to.deep.equal({ active: false, premium_until: null, nostr_pubkey: w.bob.nostrPubkey, relay_premium: false, invoices: [] });
  });

  it('stacks from the current end while active, from now once it lapsed', async () => {
    const alice = api(w, w.alice);
    const paid = async (plan: string) => {
      await alice.relogin();
      const created = await alice.invoice(plan);
      expect(created.status, created.text).to.equal(200);
      const id = created.body.invoice_id as string;
      w.btcpay.setStatus(id, 'Settled');
      return alice.activate(id);
    };
    const start = w.t.clock.now().getTime();
    await paid('month');
    w.t.clock.advance(10 * DAY_MS);
    expect((await paid('year')).body.premium_until).to.equal(new Date(start + (30 + 365) * DAY_MS).toISOString());
    w.t.clock.advance(395 * DAY_MS - 10 * DAY_MS - 1);
    await alice.relogin();
    expect((await alice.status()).body.active).to.equal(true);
    w.t.clock.advance(1);
    expect((await alice.status()).body.active).to.equal(false);
    w.t.clock.advance(DAY_MS);
    const lapsedAt = w.t.clock.now().getTime();
    expect((await paid('month')).body).to.include({ active: true, premium_until: new Date(lapsedAt + 30 * DAY_MS).toISOString() });
  });

  it('unknown plan, bad bodies, a processor outage (503, nothing stored)', async () => {
    const alice = api(w, w.alice);
    expect(codeOf(await alice.invoice('week'))).to.equal('premium_plan_unknown');
    expect(codeOf(await alice.invoice(''))).to.equal('invalid_request');
    expect(codeOf(await alice.activate(''))).to.equal('invalid_request');
    w.btcpay.mode = 'down';
    const down = await alice.invoice('month');
    expect([down.status, codeOf(down)]).to.deep.equal([503, 'processor_unavailable']);
    expect((await alice.status()).body.invoices).to.deep.equal([]);
    // The slot reserved for it was given back: nothing stored, the cap untouched.
    expect(await w.t.backend.db.knex('premium_invoices').where({ user_id: w.alice.userId })).to.deep.equal([]);
  });
});
