import { expect } from 'chai';
import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { tipsPlugin } from '@wallet/tips';
import { createTestBackend, eachDialect, seedSession, seedUser, type DialectName, type TestBackend } from '../harness/index.js';
import { hex, SHARE_BASE, tipBody, txidOf, useChainFakes, type Asset } from './harness.js';

interface Party {
  userId: string;
  token: string;
}

/** The tips world plus a probe plugin holding the plugin context, to run the core hooks as the erasure and export features will. */
function useHookWorld(dialect: DialectName, chains: ReturnType<typeof useChainFakes>) {
  const world = {} as { t: TestBackend; ctx: PluginContext; sender: Party; recipient: Party & { username: string }; other: Party; bystander: Party & { username: string } };
  beforeEach(async () => {
    const probe: WalletPlugin = { name: 'hook-probe', setup: (ctx) => void (world.ctx = ctx) };
    const t = await createTestBackend(dialect, { plugins: [tipsPlugin({ enabled: true, targeted: true, shareBase: SHARE_BASE }), probe], settings: chains.settings() });
    const session = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { userId, token: auth.access_token };
    };
    const named = async () => {
      const username = `u${hex(4)}`;
      const { id } = await seedUser(t.backend, { username });
      return { userId: id, username, token: (await t.backend.sessions.start(id, 'extension')).access_token };
    };
    Object.assign(world, { t, sender: await session(), recipient: await named(), other: await session(), bystander: await named() });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}

/** Erasure as the erasure feature will run it: the hooks, then the user row, in one transaction. */
const ERASED_AT = '2026-01-01T00:10:00.000Z';
const iso = (value: unknown) => new Date(value as string | Date).toISOString();
const isTrue = (value: unknown) => value === true || value === 1;
const isFalse = (value: unknown) => value === false || value === 0;

eachDialect('tips: user erasure and export hooks', (dialect) => {
  const chains = useChainFakes();
  const w = useHookWorld(dialect, chains);

  const knex = () => w.t.backend.db.knex('social_tips');
  const row = async (id: string) => (await knex().where({ id }).first()) as Record<string, unknown> | undefined;
  const rowsOf = async (ids: string[]) => (await knex().whereIn('id', ids).orderBy('id')) as Array<Record<string, unknown>>;
  const post = (path: string, who: { token: string }, json?: unknown) => w.t.client.post(`/api/v1/tips/social${path}`, json, { token: who.token });
  const create = async (asset: Asset, who: Party, fields: Record<string, unknown> = {}) => {
    const res = await post('', who, tipBody(asset, fields));
    expect(res.status, res.text).to.equal(200);
    return res.body.tip_id as string;
  };
  // The funding worker and the sweep reconciler do not exist yet: their transitions are made by hand.
  const setStatus = (id: string, status: string) => knex().where({ id }).update({ status });
  const claim = async (id: string, who: Party) => {
    const res = await post(`/${id}/claim`, who);
    expect(res.status, res.text).to.equal(200);
  };
  const erase = async (userId: string) => {
    w.t.clock.set(ERASED_AT);
    await w.t.backend.db.transaction(async (trx) => {
      await w.ctx.hooks.runUserErasure(trx, userId);
      await trx('users').where({ id: userId }).delete();
    });
  };
  const expectError = (res: { status: number; body: any; text: string }, status: number, code: string) => {
    expect(res.status, res.text).to.equal(status);
    expect(res.body.error.code).to.equal(code);
  };

  /** Tips between `other` and `bystander` only: no erasure of sender or recipient may touch them. */
  const othersTips = async () => {
    const ids = [
      await create('btc', w.other, { draft: true }),
      await create('ltc', w.other),
      await create('grin', w.other, { recipient: w.bystander.username }),
      await create('wow', w.bystander, {}),
    ];
    await setStatus(ids[3]!, 'pending');
    return { ids, before: await rowsOf(ids) };
  };

  describe('erasing a sender', () => {
    it('deletes their draft, cancelled, claimed and clawed-back tips and keeps their open ones, unlinked and still claimable', async () => {
      const { sender, other, recipient } = w;
      const draft = await create('btc', sender, { draft: true });
      const cancelled = await create('btc', sender, { draft: true });
      expect((await post(`/${cancelled}/cancel`, sender)).status).to.equal(200);
      const claimed = await create('ltc', sender);
      await setStatus(claimed, 'pending');
      await claim(claimed, other);
      await setStatus(claimed, 'claimed');
      const clawedBack = await create('xmr', sender);
      expect((await post(`/${clawedBack}/clawback`, sender)).status).to.equal(200);
      const targetedCancelled = await create('wow', sender, { recipient: recipient.username });
      await setStatus(targetedCancelled, 'cancelled');

      const pendingConfirmation = await create('ltc', sender);
      const pendingPublic = await create('btc', sender);
      await setStatus(pendingPublic, 'pending');
      const claiming = await create('grin', sender);
      await setStatus(claiming, 'pending');
      await claim(claiming, other);
      const mismatch = await create('xmr', sender);
      await setStatus(mismatch, 'funding_mismatch');
      const pendingTargeted = await create('wow', sender, { recipient: recipient.username });
      await setStatus(pendingTargeted, 'pending');
      const open = [pendingConfirmation, pendingPublic, claiming, mismatch, pendingTargeted];
      const openBefore = await rowsOf(open);
      expect(openBefore.map((tip) => tip.status)).to.have.members(['pending_confirmation', 'pending', 'claiming', 'funding_mismatch', 'pending']);
      const others = await othersTips();

      await erase(sender.userId);

      for (const id of [draft, cancelled, claimed, clawedBack, targetedCancelled]) expect(await row(id), id).to.equal(undefined);
      const openAfter = await rowsOf(open);
      expect(openAfter.map(({ updated_at: updatedAt, ...tip }) => ({ ...tip, updated_at: iso(updatedAt) }))).to.deep.equal(
        openBefore.map(({ updated_at: _updatedAt, ...tip }) => ({ ...tip, sender_user_id: null, updated_at: ERASED_AT })),
      );
      expect(await rowsOf(others.ids)).to.deep.equal(others.before);
      expect((await knex().select('id')).map((tip) => tip.id as string)).to.have.members([...open, ...others.ids]);

      // The open public tip is still claimable by a holder of its id, the targeted one by its recipient.
      const res = await post(`/${pendingPublic}/claim`, recipient);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ tip_id: pendingPublic, status: 'claiming' });
      const targeted = await post(`/${pendingTargeted}/claim`, recipient);
      expect(targeted.status, targeted.text).to.equal(200);
      expect(targeted.body.ciphertext).to.equal(openBefore.find((tip) => tip.id === pendingTargeted)!.ciphertext);
      // Nobody is its sender any more: the erased sender's tips appear in no list.
      const sent = await w.t.client.get('/api/v1/tips/social/sent', { token: other.token });
      expect(sent.body.tips.map((tip: { tip_id: string }) => tip.tip_id)).to.have.members([others.ids[0], others.ids[1], others.ids[2]]);
    });
  });

  describe('erasing a recipient of targeted tips', () => {
    it('keeps the tips, unlinked and marked recipient_erased; nobody can claim them; the sender can claw them back', async () => {
      const { sender, recipient, other } = w;
      const pendingConfirmation = await create('btc', sender, { recipient: recipient.username });
      const pending = await create('grin', sender, { recipient: recipient.username });
      await setStatus(pending, 'pending');
      const claiming = await create('xmr', sender, { recipient: recipient.username });
      await setStatus(claiming, 'pending');
      await claim(claiming, recipient);
      const fromOther = await create('ltc', other, { recipient: recipient.username });
      await setStatus(fromOther, 'pending');
      const claimed = await create('wow', sender, { recipient: recipient.username });
      await setStatus(claimed, 'pending');
      await claim(claimed, recipient);
      await setStatus(claimed, 'claimed');
      const theirs = [pendingConfirmation, pending, claiming, fromOther, claimed];
      const before = await rowsOf(theirs);
      for (const tip of before) expect(isFalse(tip.recipient_erased)).to.equal(true);
      const others = await othersTips();

      await erase(recipient.userId);

      const after = await rowsOf(theirs);
      expect(after).to.have.length(5);
      for (const tip of after) expect(isTrue(tip.recipient_erased), tip.id as string).to.equal(true);
      const normal = (tips: Array<Record<string, unknown>>) => tips.map(({ updated_at: _u, recipient_erased: _e, ...tip }) => tip);
      expect(normal(after)).to.deep.equal(normal(before).map((tip) => ({ ...tip, recipient_user_id: null })));
      expect(after.map((tip) => iso(tip.updated_at))).to.deep.equal(after.map(() => ERASED_AT));
      expect(await rowsOf(others.ids)).to.deep.equal(others.before);

      // Nobody may claim: not the senders, not a stranger, not a new user.
      const stranger = await seedSession(w.t.backend);
      for (const id of theirs) {
        for (const who of [sender, other, { token: stranger.auth.access_token }]) expectError(await post(`/${id}/claim`, who), 400, 'tip_unknown');
      }
      expectError(await post(`/${claiming}/confirm-sweep`, other, { sweep_txid: txidOf('xmr') }), 400, 'tip_unknown');
      expect(await rowsOf(theirs)).to.deep.equal(after);

      // Each sender claws back its own open tips; a claimed one is settled.
      for (const [id, who] of [[pendingConfirmation, sender], [pending, sender], [claiming, sender], [fromOther, other]] as const) {
        const res = await post(`/${id}/clawback`, who);
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ tip_id: id, status: 'clawed_back' });
      }
      expectError(await post(`/${claimed}/clawback`, sender), 400, 'tip_settled');
      expectError(await post(`/${fromOther}/clawback`, sender), 400, 'tip_unknown');
      expect((await rowsOf(theirs)).map((tip) => tip.status)).to.have.members(['clawed_back', 'clawed_back', 'clawed_back', 'clawed_back', 'claimed']);
    });
  });

  describe('claims (social_tip_claimers holds user ids)', () => {
    const claimers = () => w.t.backend.db.knex('social_tip_claimers');
    const claimsOf = async (userId: string) => ((await claimers().where({ user_id: userId }).orderBy('tip_id')) as Array<Record<string, unknown>>).map((c) => c.tip_id as string);

    it('export lists the tips the user claimed, with when; erasing the claimer removes their claims and nobody else’s', async () => {
      const { sender, other, bystander } = w;
      const first = await create('btc', sender);
      const second = await create('grin', sender);
      for (const id of [first, second]) await setStatus(id, 'pending');
      w.t.clock.set('2026-01-01T00:01:00.000Z');
      await claim(first, other);
      w.t.clock.set('2026-01-01T00:02:00.000Z');
      await claim(second, other);
      // A repeated claim keeps the first time.
      w.t.clock.set('2026-01-01T00:03:00.000Z');
      await claim(first, other);
      await claim(first, bystander);
      const exported = (await w.ctx.hooks.collectUserExport(other.userId)).tips as { claimed: unknown[] };
      expect(exported.claimed).to.deep.equal([
        { tip_id: first, claimed_at: '2026-01-01T00:01:00.000Z' },
        { tip_id: second, claimed_at: '2026-01-01T00:02:00.000Z' },
      ]);
      expect(((await w.ctx.hooks.collectUserExport(bystander.userId)).tips as { claimed: unknown[] }).claimed).to.deep.equal([{ tip_id: first, claimed_at: '2026-01-01T00:03:00.000Z' }]);

      await erase(other.userId);
      expect(await claimsOf(other.userId)).to.deep.equal([]);
      expect(await claimsOf(bystander.userId)).to.deep.equal([first]);
    });

    it('erasing a sender removes the claims on the tips it deletes (claimed ones) and keeps the claims on its open tips', async () => {
      const { sender, other } = w;
      const settled = await create('ltc', sender);
      const open = await create('xmr', sender);
      for (const id of [settled, open]) await setStatus(id, 'pending');
      await claim(settled, other);
      await claim(open, other);
      await setStatus(settled, 'claimed');
      await erase(sender.userId);
      expect(await row(settled)).to.equal(undefined);
      expect(await claimsOf(other.userId)).to.deep.equal([open]);
    });
  });

  describe('export', () => {
    it('has sent and received sections with the user’s tips only, in any order, and no ciphertext, secret hash or funding key', async () => {
      const { sender, recipient, other } = w;
      const bodies = [
        tipBody('btc', { draft: true }),
        tipBody('xmr', { recipient: recipient.username }),
        tipBody('wow'),
        tipBody('grin', { recipient: recipient.username }),
      ];
      const sent: string[] = [];
      for (const [i, body] of bodies.entries()) {
        w.t.clock.set(`2026-01-01T00:0${i}:00.000Z`);
        const res = await post('', sender, body);
        expect(res.status, res.text).to.equal(200);
        sent.push(res.body.tip_id as string);
      }
      const fromOther = tipBody('ltc', { recipient: recipient.username });
      const res = await post('', other, fromOther);
      expect(res.status, res.text).to.equal(200);
      const received = [sent[1]!, sent[3]!, res.body.tip_id as string];
      const othersPublic = tipBody('btc');
      expect((await post('', other, othersPublic)).status).to.equal(200);

      const senderExport = (await w.ctx.hooks.collectUserExport(sender.userId)).tips as { sent: Array<Record<string, unknown>>; received: unknown[] };
      expect(Object.keys(senderExport)).to.have.members(['sent', 'received', 'claimed']);
      expect(senderExport.sent.map((tip) => tip.tip_id)).to.have.members(sent).and.have.length(4);
      expect(senderExport.received).to.deep.equal([]);
      const xmr = senderExport.sent.find((tip) => tip.tip_id === sent[1])!;
      expect(xmr).to.deep.equal({
        tip_id: sent[1],
        asset: 'xmr',
        amount: '1000000000',
        status: 'pending_confirmation',
        is_public: false,
        recipient_user_id: recipient.userId,
        tip_address: bodies[1]!.tip_address,
        grin_commitment: null,
        funding_txid: bodies[1]!.funding_txid,
        sweep_txid: null,
        share_url: `https://wallet.example.test/tip/${sent[1]}`,
        created_at: '2026-01-01T00:01:00.000Z',
        updated_at: '2026-01-01T00:01:00.000Z',
        funded_at: null,
        settled_at: null,
      });

      expect((senderExport as unknown as { claimed: unknown[] }).claimed).to.deep.equal([]);
      const recipientExport = (await w.ctx.hooks.collectUserExport(recipient.userId)).tips as { sent: unknown[]; received: Array<Record<string, unknown>> };
      expect(recipientExport.sent).to.deep.equal([]);
      expect(recipientExport.received.map((tip) => tip.tip_id)).to.have.members(received).and.have.length(3);
      expect(recipientExport.received.find((tip) => tip.tip_id === sent[3])).to.deep.equal({
        tip_id: sent[3],
        asset: 'grin',
        amount: '1000000000',
        status: 'pending_confirmation',
        sender_user_id: sender.userId,
        claimable: false,
        created_at: '2026-01-01T00:03:00.000Z',
        funded_at: null,
      });

      const strangerExport = (await w.ctx.hooks.collectUserExport(w.bystander.userId)).tips;
      expect(strangerExport).to.deep.equal({ sent: [], received: [], claimed: [] });

      const text = JSON.stringify([senderExport, recipientExport]);
      for (const body of [...bodies, fromOther, othersPublic]) {
        for (const field of ['ciphertext', 'secret_hash', 'funding_tx_key']) {
          if (body[field] !== undefined) expect(text, field).not.to.include(body[field] as string);
        }
      }
      expect(bodies.filter((body) => body.funding_tx_key !== undefined)).to.have.length(2);
      expect(bodies.filter((body) => body.ciphertext !== undefined)).to.have.length(2);
      expect(bodies.filter((body) => body.secret_hash !== undefined)).to.have.length(2);
      for (const field of ['ciphertext', 'secret_hash', 'funding_tx_key']) expect(text).not.to.include(field);
      // The other user's public tip is in neither export.
      expect(text).not.to.include(othersPublic.tip_address as string);
    });
  });
});
