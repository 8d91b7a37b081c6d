import { expect } from 'chai';
import { PREMIUM_INVOICES_TABLE } from '@wallet/premium';
import { eachDialect, NostrKey, seedSession } from '../harness/index.js';
import { usePremiumWorld } from './harness.js';
import { api, codeOf, DAY_MS, INVOICES_PATH, tally, type Party } from './support.js';

/**
 * Premium without a linked Nostr key (issue 29 item 10): the relay admits premium authors by
 * their npub only, so an account without one would pay for nothing. The invoice is refused before
 * the processor is asked, and the status says whether the relay admits the account as premium.
 */
eachDialect('premium: a linked Nostr key is required', (dialect) => {
  const w = usePremiumWorld(dialect);

  /** A signed-in account with no linked Nostr key. */
  async function unlinked(): Promise<Party> {
    const { userId, auth } = await seedSession(w.t.backend);
    return { userId, token: auth.access_token };
  }

  const invoiceRows = (userId: string) => w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).where({ user_id: userId });

  it('refuses the invoice of an account without a linked Nostr key: 400 premium_nostr_not_linked, nothing at the processor, nothing stored', async () => {
    const carol = await unlinked();
    const refused = await api(w, carol).invoice('month');
    expect(refused.status, refused.text).to.equal(400);
    expect(codeOf(refused)).to.equal('premium_nostr_not_linked');
    expect(w.btcpay.received, 'the processor is never asked').to.deep.equal([]);
    expect(await invoiceRows(carol.userId)).to.deep.equal([]);
    expect((await api(w, carol).status()).body).to.deep.equal({ active: false, premium_until: null, nostr_pubkey: null, relay_premium: false, invoices: [] });

    // Refused every time, never counted toward the pending cap.
    expect(tally(await Promise.all([1, 2, 3, 4].map(() => api(w, carol).invoice('year'))))).to.deep.equal({ '400 premium_nostr_not_linked': 4 });
    expect(w.btcpay.received).to.deep.equal([]);

    // Once a key is linked, the same account buys normally.
    const nostr = new NostrKey();
    await w.t.backend.db.knex('users').where({ id: carol.userId }).update({ nostr_pubkey: nostr.pubkey });
    const created = await api(w, carol).invoice('month');
    expect(created.status, created.text).to.equal(200);
    expect(w.btcpay.received.filter((r) => r.method === 'POST' && r.path === INVOICES_PATH)).to.have.length(1);
    expect(await invoiceRows(carol.userId)).to.have.length(1);
  });

  it('an unknown plan is still premium_plan_unknown without a linked key (the input is checked first)', async () => {
    const carol = await unlinked();
    const refused = await api(w, carol).invoice('decade');
    expect([refused.status, codeOf(refused)]).to.deep.equal([400, 'premium_plan_unknown']);
    expect(w.btcpay.received).to.deep.equal([]);
  });

  it('status: relay_premium is premium active AND a linked key, on both sides of the period end', async () => {
    const alice = api(w, w.alice);
    const id = (await alice.invoice('month')).body.invoice_id as string;
    w.btcpay.setStatus(id, 'Settled');
    const start = w.t.clock.now().getTime();
    const activated = await alice.activate(id);
    expect(activated.status, activated.text).to.equal(200);
    expect(activated.body).to.include({ active: true, nostr_pubkey: w.alice.nostrPubkey, relay_premium: true });

    // A premium account whose key is gone (an old purchase, a key unlinked) is active but not admitted.
    const carol = await unlinked();
    await w.t.backend.db.knex('users').where({ id: carol.userId }).update({ premium_until: w.t.backend.db.dialect.time(new Date(start + DAY_MS)) });
    expect((await api(w, carol).status()).body).to.include({ active: true, nostr_pubkey: null, relay_premium: false });

    w.t.clock.set(new Date(start + 30 * DAY_MS - 1).toISOString());
    await alice.relogin();
    expect((await alice.status()).body).to.include({ active: true, relay_premium: true });
    w.t.clock.set(new Date(start + 30 * DAY_MS).toISOString());
    await alice.relogin();
    expect((await alice.status()).body).to.include({ active: false, nostr_pubkey: w.alice.nostrPubkey, relay_premium: false });
  });
});
