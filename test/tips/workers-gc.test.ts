import { expect } from 'chai';
import { eachDialect } from '../harness/index.js';
import { tipBody, useChainFakes, useTipsWorld, type Asset, type TipsWorld } from './harness.js';

/**
 * The tips' three scheduler tasks at their boundaries (spec › Limits: "more than 7 days",
 * "more than 15 minutes"). The ManualClock is moved across every boundary, never slept; every
 * instant below is a literal, so a cutoff off by one millisecond either way fails.
 */
const T = '2026-01-01T00:00:00.000Z';
const T_PLUS_7D = '2026-01-08T00:00:00.000Z';
const T_PLUS_7D_1MS = '2026-01-08T00:00:00.001Z';

const iso = (value: unknown) => new Date(value as string | Date).toISOString();

function tipsOf(w: TipsWorld) {
  const knex = () => w.t.backend.db.knex('social_tips');
  const create = async (asset: Asset, fields: Record<string, unknown> = {}, token = w.sender.token) => {
    const res = await w.t.client.post('/api/v1/tips/social', tipBody(asset, fields), { token });
    expect(res.status, res.text).to.equal(200);
    return res.body.tip_id as string;
  };
  const row = async (id: string) => (await knex().where({ id }).first()) as Record<string, unknown>;
  const statusOf = async (id: string) => (await row(id)).status as string;
  const table = async () => (await knex().orderBy('id')) as Array<Record<string, unknown>>;
  // The funding worker does not exist yet: a confirmed funding is put in place by hand.
  const fund = (id: string) => knex().where({ id, status: 'pending_confirmation' }).update({ status: 'pending' });
  const lines = (msg: string) => w.t.logger.lines.filter((line) => line.msg === msg);
  /** A fresh access token at the clock's current time (the world's tokens expire once the clock moves past their TTL). */
  const tokenOf = async (userId: string) => (await w.t.backend.sessions.start(userId, 'extension')).access_token;
  return { knex, create, row, statusOf, table, fund, lines, tokenOf };
}

eachDialect('tips workers: draft GC, lifecycle GC, stuck-claiming', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);

  describe('tips.draft-gc', () => {
    it('cancels a draft created at T only after T + 7 days (not at exactly T + 7 days), leaves every non-draft tip of the same age alone, and logs only when it cancelled', async () => {
      const { create, row, statusOf, table, fund, lines } = tipsOf(w);
      w.t.clock.set(T);
      const draftBtc = await create('btc', { draft: true });
      const draftXmr = await create('xmr', { draft: true });
      const pendingConfirmation = await create('ltc');
      const pending = await create('wow');
      await fund(pending);
      const targeted = await create('grin', { recipient: w.recipient.username });
      const cancelledDraft = await create('btc', { draft: true });
      expect((await w.t.client.post(`/api/v1/tips/social/${cancelledDraft}/cancel`, undefined, { token: w.sender.token })).status).to.equal(200);
      const clawedBack = await create('btc');
      expect((await w.t.client.post(`/api/v1/tips/social/${clawedBack}/clawback`, undefined, { token: w.sender.token })).status).to.equal(200);
      const others = [pendingConfirmation, pending, targeted, cancelledDraft, clawedBack];
      const othersBefore = (await table()).filter((tip) => others.includes(tip.id as string));
      expect(othersBefore.map((tip) => tip.status)).to.have.members(['pending_confirmation', 'pending', 'pending_confirmation', 'cancelled', 'clawed_back']);

      w.t.clock.set(T_PLUS_7D);
      expect(await w.t.backend.scheduler.runNow('tips.draft-gc')).to.equal(true);
      expect(await statusOf(draftBtc)).to.equal('draft');
      expect(await statusOf(draftXmr)).to.equal('draft');
      expect(lines('stale tip drafts cancelled')).to.deep.equal([]);

      w.t.clock.set(T_PLUS_7D_1MS);
      expect(await w.t.backend.scheduler.runNow('tips.draft-gc')).to.equal(true);
      for (const id of [draftBtc, draftXmr]) {
        const tip = await row(id);
        expect(tip.status).to.equal('cancelled');
        expect(iso(tip.created_at)).to.equal(T);
        expect(iso(tip.updated_at)).to.equal(T_PLUS_7D_1MS);
        expect(tip.funding_txid).to.equal(null);
      }
      expect((await table()).filter((tip) => others.includes(tip.id as string))).to.deep.equal(othersBefore);
      const logged = lines('stale tip drafts cancelled');
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include({ level: 'info', task: 'tips.draft-gc', cancelled: 2 });

      // Nothing left to cancel: no second line.
      w.t.clock.set('2026-01-08T01:00:00.001Z');
      expect(await w.t.backend.scheduler.runNow('tips.draft-gc')).to.equal(true);
      expect(lines('stale tip drafts cancelled')).to.have.length(1);
    });

    it('cancels only the drafts past the boundary when drafts of different ages are due', async () => {
      const { create, statusOf, lines } = tipsOf(w);
      w.t.clock.set(T);
      const older = await create('btc', { draft: true });
      w.t.clock.set('2026-01-01T00:00:00.001Z');
      const younger = await create('btc', { draft: true });

      w.t.clock.set(T_PLUS_7D_1MS);
      await w.t.backend.scheduler.runNow('tips.draft-gc');
      expect(await statusOf(older)).to.equal('cancelled');
      expect(await statusOf(younger)).to.equal('draft');
      expect(lines('stale tip drafts cancelled').map((line) => line.cancelled)).to.deep.equal([1]);
    });
  });

  describe('tips.lifecycle-gc', () => {
    it('cancels pending_confirmation only after T + 7 days, leaves pending, funding_mismatch and draft tips alone, and the sender can still claw the cancelled tip back', async () => {
      const { knex, create, row, statusOf, table, fund, lines, tokenOf } = tipsOf(w);
      w.t.clock.set(T);
      const publicTip = await create('btc');
      const targeted = await create('xmr', { recipient: w.recipient.username });
      const pending = await create('ltc');
      await fund(pending);
      const mismatch = await create('grin');
      await knex().where({ id: mismatch }).update({ status: 'funding_mismatch' });
      const draft = await create('btc', { draft: true });
      const others = [pending, mismatch, draft];
      const othersBefore = (await table()).filter((tip) => others.includes(tip.id as string));
      expect(othersBefore.map((tip) => tip.status)).to.have.members(['pending', 'funding_mismatch', 'draft']);

      w.t.clock.set(T_PLUS_7D);
      expect(await w.t.backend.scheduler.runNow('tips.lifecycle-gc')).to.equal(true);
      expect(await statusOf(publicTip)).to.equal('pending_confirmation');
      expect(await statusOf(targeted)).to.equal('pending_confirmation');
      expect(lines('unconfirmed tips cancelled')).to.deep.equal([]);

      w.t.clock.set(T_PLUS_7D_1MS);
      expect(await w.t.backend.scheduler.runNow('tips.lifecycle-gc')).to.equal(true);
      for (const id of [publicTip, targeted]) {
        const tip = await row(id);
        expect(tip.status).to.equal('cancelled');
        expect(iso(tip.updated_at)).to.equal(T_PLUS_7D_1MS);
        expect(tip.funding_txid).to.match(/^[0-9a-f]{64}$/);
      }
      expect((await table()).filter((tip) => others.includes(tip.id as string))).to.deep.equal(othersBefore);
      const logged = lines('unconfirmed tips cancelled');
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include({ level: 'info', task: 'tips.lifecycle-gc', cancelled: 2 });

      // A cancelled tip may have been funded late: its sender takes it back.
      w.t.clock.set('2026-01-09T00:00:00.000Z');
      const senderToken = await tokenOf(w.sender.userId);
      for (const id of [publicTip, targeted]) {
        const res = await w.t.client.post(`/api/v1/tips/social/${id}/clawback`, undefined, { token: senderToken });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ tip_id: id, status: 'clawed_back' });
        const tip = await row(id);
        expect(tip.status).to.equal('clawed_back');
        expect(iso(tip.settled_at)).to.equal('2026-01-09T00:00:00.000Z');
      }
      // Nothing left to cancel: no second line.
      await w.t.backend.scheduler.runNow('tips.lifecycle-gc');
      expect(lines('unconfirmed tips cancelled')).to.have.length(1);
    });
  });

  describe('tips.stuck-claiming', () => {
    it('logs a tip whose last update is more than 15 minutes old (not exactly 15), with its id and no user id, and changes no row', async () => {
      const { create, table, fund, lines, tokenOf } = tipsOf(w);
      w.t.clock.set(T);
      const claimedAtC = await create('btc');
      const sweptAtC1 = await create('grin', { recipient: w.recipient.username });
      const stillPending = await create('ltc');
      for (const id of [claimedAtC, sweptAtC1, stillPending]) await fund(id);

      w.t.clock.set('2026-01-01T01:00:00.000Z');
      const [otherToken, recipientToken] = [await tokenOf(w.other.userId), await tokenOf(w.recipient.userId)];
      let res = await w.t.client.post(`/api/v1/tips/social/${claimedAtC}/claim`, undefined, { token: otherToken });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.equal('claiming');
      res = await w.t.client.post(`/api/v1/tips/social/${sweptAtC1}/claim`, undefined, { token: recipientToken });
      expect(res.status, res.text).to.equal(200);
      w.t.clock.set('2026-01-01T01:00:00.001Z');
      res = await w.t.client.post(`/api/v1/tips/social/${sweptAtC1}/confirm-sweep`, { sweep_txid: `08${'ab'.repeat(32)}` }, { token: recipientToken });
      expect(res.status, res.text).to.equal(200);
      const before = await table();
      expect(before.map((tip) => tip.status)).to.have.members(['claiming', 'claiming', 'pending']);
      const stuck = () => lines('tip stuck in claiming');

      w.t.clock.set('2026-01-01T01:15:00.000Z');
      expect(await w.t.backend.scheduler.runNow('tips.stuck-claiming')).to.equal(true);
      expect(stuck()).to.deep.equal([]);

      w.t.clock.set('2026-01-01T01:15:00.001Z');
      expect(await w.t.backend.scheduler.runNow('tips.stuck-claiming')).to.equal(true);
      expect(stuck().map(({ time: _time, ...line }) => line)).to.deep.equal([
        { level: 'warn', msg: 'tip stuck in claiming', component: 'scheduler', task: 'tips.stuck-claiming', tip_id: claimedAtC, asset: 'btc', sweep_recorded: false },
      ]);

      w.t.clock.set('2026-01-01T01:15:00.002Z');
      expect(await w.t.backend.scheduler.runNow('tips.stuck-claiming')).to.equal(true);
      expect(stuck().slice(1).map(({ time: _time, ...line }) => line)).to.have.deep.members([
        { level: 'warn', msg: 'tip stuck in claiming', component: 'scheduler', task: 'tips.stuck-claiming', tip_id: claimedAtC, asset: 'btc', sweep_recorded: false },
        { level: 'warn', msg: 'tip stuck in claiming', component: 'scheduler', task: 'tips.stuck-claiming', tip_id: sweptAtC1, asset: 'grin', sweep_recorded: true },
      ]);
      expect(stuck()).to.have.length(3);

      expect(await table()).to.deep.equal(before);
      const text = w.t.logger.text();
      for (const userId of [w.sender.userId, w.recipient.userId, w.other.userId]) expect(text).not.to.include(userId);
      expect(text).not.to.include(stillPending);
    });
  });
});

eachDialect('tips workers: registration', (dialect) => {
  const chains = useChainFakes();

  describe('tips on', () => {
    const w = useTipsWorld(dialect, chains);
    it('registers the draft GC, the lifecycle GC and the stuck-claiming logger', () => {
      expect(w.t.backend.scheduler.taskNames).to.include.members(['tips.draft-gc', 'tips.lifecycle-gc', 'tips.stuck-claiming']);
    });
  });

  describe('tips off', () => {
    const w = useTipsWorld(dialect, chains, { enabled: false });
    it('registers none of the three tasks', async () => {
      const names = w.t.backend.scheduler.taskNames;
      expect(names.filter((name) => name.startsWith('tips.'))).to.deep.equal([]);
      expect(names).to.not.include.any.members(['tips.draft-gc', 'tips.lifecycle-gc', 'tips.stuck-claiming']);
      expect(await w.t.backend.scheduler.runNow('tips.draft-gc').catch((err: Error) => err.message)).to.equal('no scheduler task "tips.draft-gc"');
    });
  });
});
