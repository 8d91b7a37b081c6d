import { expect } from 'chai';
import { PREMIUM_INVOICES_TABLE } from '@wallet/premium';
import { eachDialect } from '../harness/index.js';
import { PREMIUM_OPTIONS } from './harness.js';
import { api, DAY_MS, gate, gateInvoiceCreation, gateInvoiceReads, INVOICES_PATH, tally, useProbedPremiumWorld, type ProbedWorld } from './support.js';

/**
 * Premium races through HTTP (pool, transactions, the user's row lock). Every race is held at
 * the processor until all its requests are there at once (the gate counts them: held, not
 * timed), so every request has passed the service's checks before the processor call and the
 * database alone decides; the assertions are outcome counts, whatever order it picks.
 */
eachDialect('premium: races', (dialect) => {
  // Held requests wait for the whole race, far longer than the harness's 500 ms processor timeout.
  const w = useProbedPremiumWorld(dialect, PREMIUM_OPTIONS, 20_000);

  const rows = (userId: string) => w.t.backend.db.knex(PREMIUM_INVOICES_TABLE).where({ user_id: userId }) as Promise<Array<Record<string, unknown>>>;

  /** Opens pool connections and keep-alive sockets first, so connection setup does not serialise the race. */
  async function warm(world: ProbedWorld) {
    await Promise.all(Array.from({ length: 12 }, () => api(world, world.alice).status()));
  }

  async function settled(who: ReturnType<typeof api>, plan: string): Promise<string> {
    const created = await who.invoice(plan);
    expect(created.status, created.text).to.equal(200);
    const id = created.body.invoice_id as string;
    w.btcpay.setStatus(id, 'Settled');
    return id;
  }

  const reads = () => w.btcpay.received.filter((r) => r.method === 'GET' && r.path.startsWith(`${INVOICES_PATH}/`)).length;
  const creations = () => w.btcpay.received.filter((r) => r.method === 'POST' && r.path === INVOICES_PATH).length;

  it('50 concurrent activations of one settled invoice, all past the "already used" check at once: exactly one 200, 49 premium_invoice_used, premium extended once', async () => {
    const alice = api(w, w.alice);
    const id = await settled(alice, 'month');
    const start = w.t.clock.now().getTime();
    await warm(w);
    const g = gate(50);
    const restore = gateInvoiceReads(w.btcpay, g);
    let answers;
    try {
      answers = await Promise.all(Array.from({ length: 50 }, () => alice.activate(id)));
    } finally {
      restore();
    }
    expect(g.maxHeld, 'all 50 were at the processor together').to.equal(50);
    expect(reads()).to.equal(50);
    expect(tally(answers)).to.deep.equal({ 200: 1, '400 premium_invoice_used': 49 });
    const until = new Date(start + 30 * DAY_MS).toISOString();
    const winner = answers.find((a) => a.status === 200)!;
    expect(winner.body).to.include({ active: true, premium_until: until });
    expect(winner.body.invoices).to.have.length(1);
    expect(winner.body.invoices[0]).to.include({ invoice_id: id, activated_at: new Date(start).toISOString() });
    expect((await w.t.backend.db.knex('users').where({ id: w.alice.userId }).first()).premium_until).to.not.equal(null);
    expect((await alice.status()).body.premium_until).to.equal(until);
    const stored = await rows(w.alice.userId);
    expect(stored.map((r) => new Date(r.consumed_at as string).toISOString())).to.deep.equal([new Date(start).toISOString()]);
    // And afterwards, the plain refusal (no processor call).
    expect(tally([await alice.activate(id)])).to.deep.equal({ '400 premium_invoice_used': 1 });
    expect(reads()).to.equal(50);
  });

  it('two different settled invoices of one user activated at once (6 rounds): both 200, the days stack every round', async () => {
    const alice = api(w, w.alice);
    const start = w.t.clock.now().getTime();
    await warm(w);
    for (let round = 1; round <= 6; round += 1) {
      const month = await settled(alice, 'month');
      const year = await settled(alice, 'year');
      const g = gate(2);
      const restore = gateInvoiceReads(w.btcpay, g);
      let answers;
      try {
        answers = await Promise.all([alice.activate(month), alice.activate(year)]);
      } finally {
        restore();
      }
      expect(g.maxHeld, `round ${round}: both at the processor together`).to.equal(2);
      expect(tally(answers), `round ${round}`).to.deep.equal({ 200: 2 });
      const expected = new Date(start + round * (30 + 365) * DAY_MS).toISOString();
      // Each answer is the status read after its own commit: the later one's is the stacked end; the
      // earlier one's is one plan's end, or the stacked end too when it was read after both commits.
      const ends = answers.map((a) => a.body.premium_until as string).sort();
      expect(ends[1], `round ${round}`).to.equal(expected);
      const previous = start + (round - 1) * (30 + 365) * DAY_MS;
      expect([new Date(previous + 30 * DAY_MS).toISOString(), new Date(previous + 365 * DAY_MS).toISOString(), expected], `round ${round}`).to.include(ends[0]);
      expect((await alice.status()).body.premium_until, `round ${round}`).to.equal(expected);
    }
    expect((await rows(w.alice.userId)).filter((r) => r.consumed_at === null)).to.deep.equal([]);
  });

  it('concurrent invoice creations past the pending cap of 3: exactly 3 per user reach the processor and are stored, the others premium_invoice_limit without a processor invoice', async () => {
    const alice = api(w, w.alice);
    const bob = api(w, w.bob);
    await warm(w);
    // Six slots exist (3 per user): the gate holds the processor until all six are there at once.
    const g = gate(6);
    const restore = gateInvoiceCreation(w.btcpay, g);
    let aliceAnswers;
    let bobAnswers;
    try {
      [aliceAnswers, bobAnswers] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, (_, i) => alice.invoice(i % 2 === 0 ? 'month' : 'year'))),
        Promise.all(Array.from({ length: 10 }, () => bob.invoice('month'))),
      ]);
    } finally {
      restore();
    }
    expect(g.maxHeld, 'the six slots were at the processor together').to.equal(6);
    expect(creations(), 'no invoice beyond the cap was created on the processor').to.equal(6);
    expect(tally(aliceAnswers), 'alice').to.deep.equal({ 200: 3, '400 premium_invoice_limit': 7 });
    expect(tally(bobAnswers), 'bob').to.deep.equal({ 200: 3, '400 premium_invoice_limit': 7 });
    for (const [who, answers] of [[w.alice, aliceAnswers], [w.bob, bobAnswers]] as const) {
      const stored = await rows(who.userId);
      expect(stored).to.have.length(3);
      expect(stored.map((r) => r.invoice_id).sort()).to.deep.equal(answers.filter((a) => a.status === 200).map((a) => a.body.invoice_id as string).sort());
    }
    // The cap refuses before the processor is asked.
    expect(tally([await alice.invoice('month')])).to.deep.equal({ '400 premium_invoice_limit': 1 });
    expect(creations()).to.equal(6);
  });
});
