import { expect } from 'chai';
import { eachDialect, seedSession, type TestResponse } from '../harness/index.js';
import { hex, tipBody, txidOf, useChainFakes, useTipsWorld, type TipsWorld } from './harness.js';

/**
 * Races with exactly one winner, through HTTP so the whole stack (pool, transactions, the
 * service's one conditional update per step) is exercised. Every race fires its requests with
 * Promise.all after the pool is warm, so they overlap in the database; the assertions are on
 * the outcome counts, which hold whatever order the database picks.
 */

const TIPS = '/api/v1/tips/social';
const REPEATS = 10;

type Answer = TestResponse<{ error?: { code?: string } } & Record<string, unknown>>;

const codeOf = (response: Answer) => response.body?.error?.code;
const outcome = (response: Answer) => (response.status === 200 ? 200 : `${response.status} ${codeOf(response)}`);

function tally(responses: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const response of responses) counts[String(outcome(response))] = (counts[String(outcome(response))] ?? 0) + 1;
  return counts;
}

eachDialect('tips: races', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);

  const post = (who: { token: string }, path: string, body?: unknown) => w.t.client.post(path, body, { token: who.token }) as Promise<Answer>;
  const row = async (id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;

  /** Opens pool connections (and the HTTP keep-alive sockets) before a race, so the race is not serialised by connection setup. */
  async function warm(world: TipsWorld) {
    await Promise.all(Array.from({ length: 12 }, () => world.t.client.get(`${TIPS}/sent`, { token: world.sender.token })));
  }

  async function create(body: Record<string, unknown>): Promise<string> {
    const created = await post(w.sender, TIPS, body);
    expect(created.status, created.text).to.equal(200);
    return created.body.tip_id as string;
  }

  /**
   * Stands in for the funding worker, which does not exist yet (a later part of the issue):
   * moves a funded tip to `pending` as a confirmed funding would.
   */
  async function confirmFunding(id: string) {
    await w.t.backend.db.knex('social_tips').where({ id, status: 'pending_confirmation' }).update({ status: 'pending' });
    expect((await row(id)).status).to.equal('pending');
  }

  it('50 concurrent confirm-sweeps with 50 different txids: all 200, exactly one recorded, all name the one stored txid', async () => {
    const id = await create(tipBody('btc'));
    await confirmFunding(id);
    for (const claimer of [w.other, w.recipient]) {
      const claimed = await post(claimer, `${TIPS}/${id}/claim`);
      expect([claimed.status, claimed.body.status], claimed.text).to.deep.equal([200, 'claiming']);
    }
    await warm(w);
    const txids = Array.from({ length: 50 }, () => txidOf('btc'));
    // Public: any holder who claimed may record the sweep; half the callers are the other claimer.
    const answers = await Promise.all(txids.map((sweep_txid, i) => post(i % 2 === 0 ? w.other : w.recipient, `${TIPS}/${id}/confirm-sweep`, { sweep_txid })));
    expect(tally(answers)).to.deep.equal({ 200: 50 });
    const recorded = answers.filter((a) => a.body.recorded === true);
    expect(recorded).to.have.length(1);
    const winner = recorded[0]!.body.sweep_txid as string;
    expect(txids.indexOf(winner)).to.equal(answers.indexOf(recorded[0]!));
    for (const answer of answers) expect(answer.body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: winner, recorded: answer === recorded[0] });
    expect(await row(id)).to.include({ sweep_txid: winner, status: 'claiming' });
  });

  it(`attach-funding with two different txids at once on one draft (${REPEATS} fresh drafts): one 200 stored, the other 400 tip_funding_conflict`, async () => {
    const drafts = await Promise.all(Array.from({ length: REPEATS }, () => create(tipBody('btc', { draft: true }))));
    await warm(w);
    for (const id of drafts) {
      const txids = [txidOf('btc'), txidOf('btc')];
      const answers = await Promise.all(txids.map((funding_txid) => post(w.sender, `${TIPS}/${id}/attach-funding`, { funding_txid })));
      expect(tally(answers)).to.deep.equal({ 200: 1, '400 tip_funding_conflict': 1 });
      const winner = answers.findIndex((a) => a.status === 200);
      expect(answers[winner]!.body).to.include({ tip_id: id, status: 'pending_confirmation' });
      expect(await row(id)).to.include({ status: 'pending_confirmation', funding_txid: txids[winner] });
    }
  });

  it(`attach-funding with the SAME txid twice at once (${REPEATS} fresh drafts): both 200 (idempotent), the txid stored once`, async () => {
    const drafts = await Promise.all(Array.from({ length: REPEATS }, () => create(tipBody('grin', { draft: true }))));
    await warm(w);
    for (const id of drafts) {
      const funding_txid = txidOf('grin');
      const answers = await Promise.all([0, 1].map(() => post(w.sender, `${TIPS}/${id}/attach-funding`, { funding_txid })));
      expect(tally(answers)).to.deep.equal({ 200: 2 });
      for (const answer of answers) expect(answer.body).to.include({ tip_id: id, status: 'pending_confirmation' });
      expect(await row(id)).to.include({ status: 'pending_confirmation', funding_txid });
    }
  });

  it(`cancel vs attach-funding at once on one draft (${2 * REPEATS} fresh drafts, five races at a time): exactly one wins, the loser gets its documented answer`, async () => {
    const drafts = await Promise.all(Array.from({ length: 2 * REPEATS }, () => create(tipBody('xmr', { draft: true }))));
    await warm(w);
    const race = (id: string, i: number) => {
      const funding = { funding_txid: txidOf('xmr'), funding_tx_key: hex(32) };
      const cancel = () => post(w.sender, `${TIPS}/${id}/cancel`);
      const attach = () => post(w.sender, `${TIPS}/${id}/attach-funding`, funding);
      // Half the races send the attach first, so neither side is always first on the wire.
      const both = i % 2 === 0 ? Promise.all([cancel(), attach()]) : Promise.all([attach(), cancel()]).then(([a, c]) => [c, a] as const);
      return both.then(([c, a]) => ({ id, funding, cancel: c, attach: a }));
    };
    // Rounds of five races at once: enough to keep the pool busy without queueing every request behind the others.
    const results = [];
    for (let round = 0; round < drafts.length; round += 5) results.push(...(await Promise.all(drafts.slice(round, round + 5).map((id, i) => race(id, round + i)))));
    for (const { id, funding, cancel, attach } of results) {
      const stored = await row(id);
      if (cancel.status === 200) {
        expect(cancel.body).to.deep.equal({ tip_id: id, status: 'cancelled' });
        expect([attach.status, codeOf(attach)], attach.text).to.deep.equal([400, 'tip_not_draft']);
        expect(stored).to.include({ status: 'cancelled', funding_txid: null, funding_tx_key: null });
      } else {
        expect([cancel.status, codeOf(cancel)], cancel.text).to.deep.equal([404, 'tip_not_found']);
        expect([attach.status, attach.body.status], attach.text).to.deep.equal([200, 'pending_confirmation']);
        expect(stored).to.include({ status: 'pending_confirmation', ...funding });
      }
    }
  });

  it('20 concurrent claims of one public pending tip by different users: all 200, status claiming', async () => {
    const id = await create(tipBody('grin'));
    await confirmFunding(id);
    const claimers = await Promise.all(Array.from({ length: 20 }, () => seedSession(w.t.backend).then(({ auth }) => ({ token: auth.access_token }))));
    await warm(w);
    const stored = await row(id);
    const answers = await Promise.all(claimers.map((who) => post(who, `${TIPS}/${id}/claim`)));
    expect(tally(answers)).to.deep.equal({ 200: 20 });
    for (const answer of answers) {
      expect(answer.body).to.deep.equal({
        tip_id: id,
        asset: 'grin',
        amount: stored.amount,
        status: 'claiming',
        tip_address: null,
        grin_commitment: stored.grin_commitment,
        ciphertext: null,
        secret_hash: stored.secret_hash,
        sweep_txid: null,
      });
    }
    expect(await row(id)).to.include({ status: 'claiming', sweep_txid: null });
  });

  it(`clawback vs claim at once on a pending tip (${REPEATS} tips): the outcomes match a serial order`, async () => {
    const ids = await Promise.all(Array.from({ length: REPEATS }, () => create(tipBody('ltc'))));
    for (const id of ids) await confirmFunding(id);
    await warm(w);
    for (const id of ids) {
      const [clawback, claim] = await Promise.all([post(w.sender, `${TIPS}/${id}/clawback`), post(w.other, `${TIPS}/${id}/claim`)]);
      // Either order leaves the tip clawed back: claiming is clawable.
      expect([clawback.status, clawback.body.status], clawback.text).to.deep.equal([200, 'clawed_back']);
      if (claim.status === 200) {
        // Claim first: it saw pending, then the clawback took claiming.
        expect(claim.body.status).to.equal('claiming');
      } else {
        // Clawback first: the claim is told why.
        expect([claim.status, codeOf(claim)], claim.text).to.deep.equal([400, 'tip_clawed_back']);
      }
      expect(await row(id)).to.include({ status: 'clawed_back' });
    }
  });
});
