import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { address as addressCodec, networks, Transaction } from 'bitcoinjs-lib';
import { TIPS_DEFAULTS } from '@wallet/tips';
import { tipsOptionProblems } from '../../packages/tips/src/options.js';
import { eachDialect, seedSession, type TestResponse } from '../harness/index.js';
import type { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { freshBtcChain, SHARE_BASE, tipAddress, tipBody, type TipsWorld, txidOf, useChainFakes, useTipsWorld } from './harness.js';

/**
 * Issue 29 (5): one account could freeze every tip's funding. The funding worker read the 100
 * least recently UPDATED waiting tips, and a tip the chain never confirms is never updated, so
 * 100 junk tips held the batch for ever. Now the worker reads the least recently READ first and
 * stamps what it reads (a fair rotation), and a sender may have at most
 * `maxUnconfirmedPerSender` tips waiting for their funding at once.
 */

const TIPS = '/api/v1/tips/social';
/** The funding worker's batch (WORKER_BATCH), written out: the bound below is computed from it, not read from the code. */
const BATCH = 100;

const statusOf = async (w: TipsWorld, id: string) => ((await w.t.backend.db.knex('social_tips').where({ id }).first()) as { status: string }).status;

eachDialect('tips: every waiting tip is checked within a bounded time (issue 29, item 5)', (dialect) => {
  const chains = useChainFakes();
  // The cap is raised here so that ONE account plants all the junk, as in the report.
  const w = useTipsWorld(dialect, chains, { enabled: true, targeted: true, shareBase: SHARE_BASE, maxUnconfirmedPerSender: 1000 });
  let chain: FakeUtxoChain;
  beforeEach(() => (chain = freshBtcChain(chains)));

  for (const junk of [99, 250]) {
    const bound = Math.ceil((junk + 1) / BATCH);
    it(`${junk} junk tips with txids the chain does not know, made first by one account: an honest tip is asked about and moves within ceil((${junk}+1)/${BATCH}) = ${bound} runs, and every junk tip is asked about too`, async () => {
      const junkTxids = new Set<string>();
      for (let i = 0; i < junk; i += 25) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(25, junk - i) }, () => {
            const body = tipBody('btc');
            junkTxids.add(body.funding_txid as string);
            return w.t.client.post(TIPS, body, { token: w.sender.token });
          }),
        );
        for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      }
      const address = tipAddress('btc');
      const funding = new Transaction();
      funding.addInput(randomBytes(32), 0);
      funding.addOutput(addressCodec.toOutputScript(address, networks.bitcoin), 50_000);
      const honestTxid = chain.put(funding.toHex(), 849_000);
      // The honest tip comes a second after the junk, so every junk tip is older than it.
      w.t.clock.advance(1_000);
      const honest = await w.t.client.post(TIPS, tipBody('btc', { tip_address: address, funding_txid: honestTxid }), { token: w.other.token });
      expect(honest.status, honest.text).to.equal(200);
      const asked = (txid: string) => chains.btc.received.filter((request) => request.path.includes(txid)).length;
      const askedBefore = asked(honestTxid);

      let movedAt = 0;
      for (let run = 1; run <= bound + 2 && movedAt === 0; run++) {
        w.t.clock.advance(60_000);
        await w.t.backend.scheduler.runNow('tips.funding-watch');
        if ((await statusOf(w, honest.body.tip_id as string)) === 'pending') movedAt = run;
      }
      expect(asked(honestTxid) - askedBefore, 'the honest txid was asked about').to.be.greaterThan(0);
      expect(movedAt, 'the run the honest tip moved in').to.be.within(1, bound);
      // Junk is not starved either: each one was asked about by then.
      const unasked = [...junkTxids].filter((txid) => asked(txid) === 0);
      if (movedAt === bound) expect(unasked).to.deep.equal([]);
    });
  }

  it('a junk tip that keeps failing does not stay at the front: 300 waiting tips are each read exactly once in 3 runs, then again in the next 3', async () => {
    for (let i = 0; i < 300; i += 25) {
      await Promise.all(Array.from({ length: 25 }, () => w.t.client.post(TIPS, tipBody('btc'), { token: w.sender.token })));
    }
    const reads = () => chains.btc.received.filter((request) => /^\/tx\/[0-9a-f]{64}/.test(request.path)).map((request) => request.path.split('/')[2]!);
    const perTxid = (paths: string[]) => {
      const counts = new Map<string, number>();
      for (const txid of paths) counts.set(txid, (counts.get(txid) ?? 0) + 1);
      return counts;
    };
    const start = reads().length;
    for (let run = 0; run < 3; run++) {
      w.t.clock.advance(60_000);
      await w.t.backend.scheduler.runNow('tips.funding-watch');
    }
    const firstRound = perTxid(reads().slice(start));
    expect(firstRound.size).to.equal(300);
    const middle = reads().length;
    for (let run = 0; run < 3; run++) {
      w.t.clock.advance(60_000);
      await w.t.backend.scheduler.runNow('tips.funding-watch');
    }
    const secondRound = perTxid(reads().slice(middle));
    expect(secondRound.size).to.equal(300);
    // Each txid costs the same number of calls in both rounds: nobody was read twice in a round.
    expect([...new Set(firstRound.values())]).to.have.length(1);
    expect([...secondRound.entries()].every(([txid, count]) => firstRound.get(txid) === count)).to.equal(true);
  });
});

eachDialect('tips: a sender’s unconfirmed tips are capped (issue 29, item 5)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains, { enabled: true, targeted: true, shareBase: SHARE_BASE, maxUnconfirmedPerSender: 5 });
  const post = (who: { token: string }, path: string, body?: unknown) => w.t.client.post(`${TIPS}${path}`, body, { token: who.token }) as Promise<TestResponse<any>>;
  const countOf = async (userId: string, status: string) =>
    Number(((await w.t.backend.db.knex('social_tips').where({ sender_user_id: userId, status }).count({ n: '*' }).first()) as { n: number | string }).n);

  it('the sixth funded tip is 409 tip_unconfirmed_limit and stores nothing; a draft is still made but cannot be funded; a tip leaving pending_confirmation frees a place; other senders are not affected', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await post(w.sender, '', tipBody('ltc'))).body.tip_id as string);
    const refused = await post(w.sender, '', tipBody('xmr'));
    expect([refused.status, refused.body.error?.code], refused.text).to.deep.equal([409, 'tip_unconfirmed_limit']);
    expect(await countOf(w.sender.userId, 'pending_confirmation')).to.equal(5);
    const draft = await post(w.sender, '', tipBody('btc', { draft: true }));
    expect(draft.status, draft.text).to.equal(200);
    const attach = await post(w.sender, `/${draft.body.tip_id}/attach-funding`, { funding_txid: txidOf('btc') });
    expect([attach.status, attach.body.error?.code], attach.text).to.deep.equal([409, 'tip_unconfirmed_limit']);
    expect(await statusOf(w, draft.body.tip_id)).to.equal('draft');
    expect((await post(w.other, '', tipBody('btc'))).status, 'another sender').to.equal(200);
    expect((await post(w.sender, `/${made[0]}/clawback`)).status).to.equal(200);
    const attached = await post(w.sender, `/${draft.body.tip_id}/attach-funding`, { funding_txid: txidOf('btc') });
    expect([attached.status, attached.body.status], attached.text).to.deep.equal([200, 'pending_confirmation']);
    // Attaching the same txid again is answered as is, even at the cap.
    expect((await post(w.sender, `/${draft.body.tip_id}/attach-funding`, { funding_txid: (await w.t.backend.db.knex('social_tips').where({ id: draft.body.tip_id }).first()).funding_txid })).status).to.equal(200);
  });

  it('12 concurrent creates with 3 places left: exactly 3 are made, 9 are 409 tip_unconfirmed_limit (repeated 3 times)', async () => {
    for (let round = 0; round < 3; round++) {
      const { userId, auth } = await seedSession(w.t.backend);
      const who = { token: auth.access_token };
      for (let i = 0; i < 2; i++) expect((await post(who, '', tipBody('btc'))).status).to.equal(200);
      await Promise.all(Array.from({ length: 12 }, () => w.t.client.get(`${TIPS}/sent`, { token: who.token })));
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(who, '', tipBody(i % 2 === 0 ? 'btc' : 'grin'))));
      const tally = answers.map((answer) => (answer.status === 200 ? '200' : `${answer.status} ${answer.body.error?.code}`)).sort();
      expect(tally).to.deep.equal([...Array(3).fill('200'), ...Array(9).fill('409 tip_unconfirmed_limit')]);
      expect(await countOf(userId, 'pending_confirmation')).to.equal(5);
    }
  });
});

describe('tips options: maxUnconfirmedPerSender', () => {
  const settings = { btcEsploraUrl: 'https://esplora.example' };
  const base = { enabled: true, shareBase: SHARE_BASE };
  it('defaults to 25 and takes a whole number from 1 to 1000', () => {
    expect(TIPS_DEFAULTS.maxUnconfirmedPerSender).to.equal(25);
    for (const ok of [1, 25, 1000]) expect(tipsOptionProblems({ ...base, maxUnconfirmedPerSender: ok }, settings), String(ok)).to.deep.equal([]);
    for (const bad of [0, -1, 1.5, 1001, Number.NaN, '5' as unknown as number]) {
      expect(tipsOptionProblems({ ...base, maxUnconfirmedPerSender: bad }, settings), String(bad)).to.deep.equal(['maxUnconfirmedPerSender (TIP_MAX_UNCONFIRMED_PER_SENDER) must be a whole number from 1 to 1000']);
    }
  });
});
