import { expect } from 'chai';
import { eachDialect } from '../harness/index.js';
import { usePremiumWorld } from './harness.js';
import { api, codeOf, gate, gateInvoiceCreation } from './support.js';

/**
 * The slot an invoice creation reserves while the processor is asked: it is nobody's invoice
 * (activation and status never see it), and a processor failure gives back only that slot.
 */
eachDialect('premium: the reserved slot', (dialect) => {
  const w = usePremiumWorld(dialect, undefined, 20_000);

  it('while the processor is being asked, the slot exists, is not listed and cannot be activated', async () => {
    const alice = api(w, w.alice);
    // A gate that waits for a second request that never comes: the creation is held at the processor until restore().
    const held = gate(2);
    const restore = gateInvoiceCreation(w.btcpay, held);
    let creating;
    try {
      creating = alice.invoice('month');
      let reserved: string | undefined;
      for (let i = 0; i < 500 && reserved === undefined; i++) {
        reserved = ((await w.t.backend.db.knex('premium_invoices').where({ user_id: w.alice.userId }).first()) as { invoice_id: string } | undefined)?.invoice_id;
        if (reserved === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(reserved).to.match(/^reserved:[0-9a-f-]{36}$/);
      expect((await alice.status()).body.invoices).to.deep.equal([]);
      const activated = await alice.activate(reserved);
      expect([activated.status, codeOf(activated)]).to.deep.equal([400, 'premium_invoice_unknown']);
      expect(held.maxHeld, 'the creation was still at the processor').to.equal(1);
    } finally {
      restore();
    }
    const created = await creating;
    expect(created.status, created.text).to.equal(200);
    expect(((await w.t.backend.db.knex('premium_invoices').where({ user_id: w.alice.userId })) as Array<{ invoice_id: string }>).map((row) => row.invoice_id)).to.deep.equal([created.body.invoice_id]);
  });

  it('a processor failure gives back the failed request’s slot only: another user’s invoice stays', async () => {
    const bob = api(w, w.bob);
    const alice = api(w, w.alice);
    const kept = await bob.invoice('month');
    expect(kept.status).to.equal(200);
    w.btcpay.mode = 'down';
    expect(codeOf(await alice.invoice('month'))).to.equal('processor_unavailable');
    w.btcpay.mode = 'normal';
    expect(((await w.t.backend.db.knex('premium_invoices').select('invoice_id').orderBy('invoice_id')) as Array<{ invoice_id: string }>).map((row) => row.invoice_id)).to.deep.equal([kept.body.invoice_id]);
  });
});
