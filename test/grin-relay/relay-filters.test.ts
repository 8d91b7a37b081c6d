import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { createTestBackend, eachDialect, seedSession, type TestBackend } from '../harness/index.js';

const REAL = JSON.parse(readFileSync(new URL('../fixtures/grin-slatepacks.json', import.meta.url), 'utf8')) as { owner_rpc: string; user_s1: string };
const SLATEPACK = REAL.owner_rpc;
const RESPONSE = REAL.user_s1;
const TX_HASH = 'cd'.repeat(32);

interface Party {
  id: string;
  token: string;
}

/**
 * Who may touch which entry: the party filters of every step, of the erasure and of the export.
 * The "erased mid-step" cases erase a party between the step's read of the entry and its
 * conditional update (the update is delayed until the erasure committed), the race the WHERE's
 * party filter exists for.
 */
eachDialect('grin-relay: party filters', (dialect) => {
  const t = {} as TestBackend;
  const probe: WalletPlugin & { ctx?: PluginContext } = { name: 'hook-probe', setup: (ctx) => void (probe.ctx = ctx) };
  let sender: Party;
  let recipient: Party;
  let stranger: Party;
  beforeEach(async () => {
    Object.assign(t, await createTestBackend(dialect, { plugins: [grinRelayPlugin({ expiryHours: 24 }), probe] }));
    const party = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { id: userId, token: auth.access_token };
    };
    [sender, recipient, stranger] = [await party(), await party(), await party()];
  });
  afterEach(() => t.close());

  const post = (who: Party, step: string, body: unknown) => t.client.post(`/api/v1/wallet/grin/relay/${step}`, body, { token: who.token });
  const send = async (from: Party, to: Party) => {
    const res = await post(from, 'create', { recipient_user_id: to.id, slate_id: randomUUID(), slatepack: SLATEPACK, amount_nanogrin: 7 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.slate_id as string;
  };
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.code).to.equal(code);
  };
  const stored = async (slateId: string) =>
    (await t.backend.db.knex('grin_relay_entries').where({ slate_id: slateId }).first('sender_user_id', 'recipient_user_id', 'response_slatepack', 'status', 'tx_hash')) as
      | Record<string, unknown>
      | undefined;
  const erase = (userId: string) => t.backend.db.transaction((trx) => probe.ctx!.hooks.runUserErasure(trx, userId));
  /** The next conditional update of the relay runs only after `userId` has been erased. */
  const eraseBeforeNextUpdate = (userId: string) => {
    const db = t.backend.db as { transitionOne: (...args: never[]) => Promise<unknown> };
    const original = db.transitionOne;
    db.transitionOne = async (...args) => {
      db.transitionOne = original;
      await erase(userId);
      return original(...args);
    };
  };

  describe('erasure', () => {
    it('erasing a recipient cancels and detaches only their open entries, keeps their finalized ones finalized, and leaves other users’ entries alone', async () => {
      const open = await send(sender, recipient);
      const done = await send(sender, recipient);
      await post(recipient, 'respond', { slate_id: done, response_slatepack: RESPONSE });
      await post(sender, 'finalize', { slate_id: done, tx_hash: TX_HASH });
      const others = await send(sender, stranger);
      const othersResponded = await send(stranger, sender);
      await post(sender, 'respond', { slate_id: othersResponded, response_slatepack: RESPONSE });

      await erase(recipient.id);

      expect(await stored(open)).to.deep.equal({ sender_user_id: sender.id, recipient_user_id: null, response_slatepack: null, status: 'cancelled', tx_hash: null });
      expect(await stored(done)).to.deep.equal({ sender_user_id: sender.id, recipient_user_id: null, response_slatepack: null, status: 'finalized', tx_hash: TX_HASH });
      expect(await stored(others)).to.deep.equal({ sender_user_id: sender.id, recipient_user_id: stranger.id, response_slatepack: null, status: 'pending_recipient', tx_hash: null });
      expect(await stored(othersResponded)).to.deep.equal({
        sender_user_id: stranger.id,
        recipient_user_id: sender.id,
        response_slatepack: RESPONSE,
        status: 'pending_sender',
        tx_hash: null,
      });
    });
  });

  describe('export', () => {
    it('lists the user’s sent and received entries oldest first with their role, and no one else’s', async () => {
      await send(stranger, recipient);
      const sent = await send(sender, recipient);
      t.clock.advance(1_000);
      const received = await send(stranger, sender);
      await send(recipient, stranger);
      const exported = await probe.ctx!.hooks.collectUserExport(sender.id);
      const entries = (exported['grin-relay'] as { entries: Array<Record<string, unknown>> }).entries;
      expect(entries.map((entry) => [entry.slate_id, entry.role])).to.deep.equal([
        [sent, 'sender'],
        [received, 'recipient'],
      ]);
      expect(entries[0]).to.deep.include({ sender_user_id: sender.id, recipient_user_id: recipient.id, created_at: '2026-01-01T00:00:00.000Z' });
      expect(entries[1]).to.deep.include({ sender_user_id: stranger.id, recipient_user_id: sender.id, created_at: '2026-01-01T00:00:01.000Z' });
    });
  });

  describe('a party erased mid-step', () => {
    it('a recipient erased between the read and the update cannot cancel: 404, and the entry stays as the erasure left it', async () => {
      const slateId = await send(sender, recipient);
      eraseBeforeNextUpdate(recipient.id);
      expectError(await post(recipient, 'cancel', { slate_id: slateId }), 404, 'relay_not_found');
      expect(await stored(slateId)).to.include({ recipient_user_id: null, status: 'cancelled' });
    });

    it('a recipient erased between the read and the update of a finalized entry cannot cancel it: 404', async () => {
      const slateId = await send(sender, recipient);
      await post(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
      await post(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH });
      eraseBeforeNextUpdate(recipient.id);
      expectError(await post(recipient, 'cancel', { slate_id: slateId }), 404, 'relay_not_found');
      expect(await stored(slateId)).to.include({ recipient_user_id: null, status: 'finalized' });
    });

    it('a sender erased between the read and the update cannot cancel: 404 (the entry is gone)', async () => {
      const slateId = await send(sender, recipient);
      eraseBeforeNextUpdate(sender.id);
      expectError(await post(sender, 'cancel', { slate_id: slateId }), 404, 'relay_not_found');
      expect(await stored(slateId)).to.equal(undefined);
    });

    it('the recipient’s respond and the sender’s finalize of an entry deleted by the sender’s erasure meanwhile are 404', async () => {
      const toRespond = await send(sender, recipient);
      eraseBeforeNextUpdate(sender.id);
      expectError(await post(recipient, 'respond', { slate_id: toRespond, response_slatepack: RESPONSE }), 404, 'relay_not_found');
      expect(await stored(toRespond)).to.equal(undefined);

      const toFinalize = await send(stranger, recipient);
      await post(recipient, 'respond', { slate_id: toFinalize, response_slatepack: RESPONSE });
      eraseBeforeNextUpdate(stranger.id);
      expectError(await post(stranger, 'finalize', { slate_id: toFinalize, tx_hash: TX_HASH }), 404, 'relay_not_found');
      expect(await stored(toFinalize)).to.equal(undefined);
    });

    it('a sender whose recipient was erased meanwhile cannot finalize: 409, the entry was cancelled', async () => {
      const slateId = await send(sender, recipient);
      await post(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
      eraseBeforeNextUpdate(recipient.id);
      expectError(await post(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }), 409, 'relay_not_awaiting_finalization');
      expect(await stored(slateId)).to.include({ recipient_user_id: null, status: 'cancelled', tx_hash: null });
    });
  });
});
