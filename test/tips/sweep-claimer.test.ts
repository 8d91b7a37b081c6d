import { expect } from 'chai';
import { eachDialect, seedSession } from '../harness/index.js';
import { tipBody, txidOf, useChainFakes, useTipsWorld, type TipsWorld } from './harness.js';

/**
 * Issue 29 (4): the spec's sweep txid is the first recorded CLAIMER sweep txid, so only a caller
 * who made a successful claim call on the tip may record one. And what the XMR/WOW/Grin
 * reconcilers do when that first recorded txid never confirms: nothing (they can only see the
 * recorded transaction), so the tip stays `claiming`, is logged as stuck, and its sender can
 * still claw it back.
 */

const TIPS = '/api/v1/tips/social';
const rowOf = async (w: TipsWorld, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;
const post = (w: TipsWorld, who: { token: string }, path: string, body?: unknown) => w.t.client.post(`${TIPS}${path}`, body, { token: who.token });

async function pendingTip(w: TipsWorld, asset: 'btc' | 'xmr' | 'wow' | 'grin', fields: Record<string, unknown> = {}): Promise<string> {
  const created = await post(w, w.sender, '', tipBody(asset, fields));
  expect(created.status, created.text).to.equal(200);
  const id = created.body.tip_id as string;
  // The funding worker's move, by hand: the funding is not what is tested here.
  await w.t.backend.db.knex('social_tips').where({ id }).update({ status: 'pending' });
  return id;
}

eachDialect('tips: only a claimer records the sweep (issue 29, item 4)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  beforeEach(() => {
    for (const fake of [chains.btc, chains.xmrDaemon, chains.wowDaemon, chains.grin]) fake.mode = 'normal';
    chains.xmrDaemon.txs = new Map();
    chains.wowDaemon.txs = new Map();
    chains.grin.outputs = [];
    chains.grin.kernels = new Map();
  });

  it('a holder of a public tip’s id who never claimed it is refused (400 tip_not_claimer) and records nothing; the claimer records', async () => {
    const id = await pendingTip(w, 'btc');
    expect((await post(w, w.other, `/${id}/claim`)).status).to.equal(200);
    const before = await rowOf(w, id);
    const holder = await post(w, w.recipient, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') });
    expect([holder.status, holder.body.error?.code], holder.text).to.deep.equal([400, 'tip_not_claimer']);
    expect(await rowOf(w, id)).to.deep.equal(before);
    // The sender holds the id too, and never claimed.
    const sender = await post(w, w.sender, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') });
    expect([sender.status, sender.body.error?.code], sender.text).to.deep.equal([400, 'tip_not_claimer']);
    const sweep = txidOf('btc');
    const claimer = await post(w, w.other, `/${id}/confirm-sweep`, { sweep_txid: sweep });
    expect(claimer.body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: sweep, recorded: true });
    // Once recorded, a non-claimer is still refused (not told the txid); a later claimer is told it.
    const late = await post(w, w.recipient, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') });
    expect([late.status, late.body.error?.code]).to.deep.equal([400, 'tip_not_claimer']);
    expect((await post(w, w.recipient, `/${id}/claim`)).status).to.equal(200);
    expect((await post(w, w.recipient, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') })).body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: sweep, recorded: false });
  });

  it('nobody has claimed: 400 tip_not_claiming; a failed claim (not yet funded) makes nobody a claimer', async () => {
    const id = await pendingTip(w, 'grin');
    const early = await post(w, w.other, `/${id}/confirm-sweep`, { sweep_txid: txidOf('grin') });
    expect([early.status, early.body.error?.code]).to.deep.equal([400, 'tip_not_claiming']);
    const unfunded = (await post(w, w.sender, '', tipBody('grin'))).body.tip_id as string;
    expect((await post(w, w.other, `/${unfunded}/claim`)).body.error.code).to.equal('tip_not_funded');
    await w.t.backend.db.knex('social_tips').where({ id: unfunded }).update({ status: 'pending' });
    expect((await post(w, w.recipient, `/${unfunded}/claim`)).status).to.equal(200);
    const refused = await post(w, w.other, `/${unfunded}/confirm-sweep`, { sweep_txid: txidOf('grin') });
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'tip_not_claimer']);
    expect(await w.t.backend.db.knex('social_tip_claimers').where({ tip_id: unfunded }).select('user_id')).to.deep.equal([{ user_id: w.recipient.userId }]);
  });

  it('a claim made before claimers were recorded (no row): the claimer claims again, then records', async () => {
    const id = await pendingTip(w, 'btc');
    expect((await post(w, w.other, `/${id}/claim`)).status).to.equal(200);
    await w.t.backend.db.knex('social_tip_claimers').where({ tip_id: id }).delete();
    const refused = await post(w, w.other, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') });
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'tip_not_claimer']);
    expect((await post(w, w.other, `/${id}/claim`)).status).to.equal(200);
    expect((await post(w, w.other, `/${id}/confirm-sweep`, { sweep_txid: txidOf('btc') })).body.recorded).to.equal(true);
  });

  for (const asset of ['xmr', 'wow', 'grin'] as const) {
    it(`${asset}: the first recorded txid never confirms while another claimer’s sweep does: the tip stays claiming, is logged as stuck, and the sender can claw it back`, async () => {
      const id = await pendingTip(w, asset);
      const commitment = (await rowOf(w, id)).grin_commitment as string | null;
      const first = await seedSession(w.t.backend).then(({ auth }) => ({ token: auth.access_token }));
      for (const claimer of [first, w.other]) expect((await post(w, claimer, `/${id}/claim`)).status).to.equal(200);
      const bogus = txidOf(asset);
      expect((await post(w, first, `/${id}/confirm-sweep`, { sweep_txid: bogus })).body.recorded).to.equal(true);
      // The other claimer's real sweep confirms deep on chain; its txid cannot be recorded any more.
      const real = txidOf(asset);
      expect((await post(w, w.other, `/${id}/confirm-sweep`, { sweep_txid: real })).body).to.include({ sweep_txid: bogus, recorded: false });
      if (asset === 'grin') {
        chains.grin.tip = 2_000_000;
        chains.grin.kernels.set(real, 1_999_900);
        expect(chains.grin.outputs.some((output) => output.commit === commitment)).to.equal(false); // the output is spent
      } else {
        const daemon = asset === 'xmr' ? chains.xmrDaemon : chains.wowDaemon;
        daemon.txs.set(real, { in_pool: false, block_height: daemon.height - 100 });
      }
      for (let minute = 0; minute < 20; minute++) {
        w.t.clock.advance(60_000);
        await w.t.backend.scheduler.runNow('tips.sweep-reconciler');
      }
      expect((await rowOf(w, id)).status).to.equal('claiming');
      await w.t.backend.scheduler.runNow('tips.stuck-claiming');
      expect(w.t.logger.lines.filter((line) => line.msg === 'tip stuck in claiming' && line.tip_id === id)).to.have.length(1);
      // Twenty minutes on, the sender signs in again (access tokens last 15).
      const sender = { token: (await w.t.backend.sessions.start(w.sender.userId, 'extension')).access_token };
      const clawed = await post(w, sender, `/${id}/clawback`);
      expect([clawed.status, clawed.body.status], clawed.text).to.deep.equal([200, 'clawed_back']);
      await w.t.backend.scheduler.runNow('tips.sweep-reconciler');
      expect((await rowOf(w, id)).status, 'the recorded txid still never confirmed').to.equal('clawed_back');
    });
  }
});
