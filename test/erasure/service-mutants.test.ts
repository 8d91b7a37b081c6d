import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Database, Knex, PluginContext, WalletPlugin } from '@wallet/backend-core';
import { captureLogger } from '@wallet/backend-core/testing';
import { ErasureService } from '../../packages/erasure/src/service.js';
import { eachDialect, NostrKey, seedUser, type TestBackend } from '../harness/index.js';
import { API, proof, requestSeal, useErasureWorld } from './harness.js';

const HOUR_MS = 3_600_000;
const GRACE_MS = 72 * HOUR_MS;
const REQUEST_PATH = `${API}/account/erasure`;
const confirmPath = (id: string) => `${API}/account/erasure/${id}/confirm`;
const cancelPath = (id: string) => `${API}/account/erasure/${id}`;
const START = '2026-01-01T00:00:00.000Z';

/** Captures the plugin context (to build a service over a wrapped database) and records erasure hook calls. */
function contextProbe() {
  const state = { ctx: undefined as PluginContext | undefined, erased: [] as Array<string | null>, onErasure: undefined as ((trx: Knex.Transaction, userId: string) => Promise<void>) | undefined };
  const plugin: WalletPlugin = {
    name: 'erasure-probe',
    setup(ctx) {
      state.ctx = ctx;
      ctx.hooks.onUserErasure(async (trx, userId) => {
        state.erased.push(userId);
        await state.onErasure?.(trx, userId);
      });
    },
  };
  return { plugin, state };
}

eachDialect('erasure: service survivors', (dialect) => {
  const probe = contextProbe();
  const w = useErasureWorld(dialect, { enabled: true }, [probe.plugin]);
  beforeEach(() => {
    probe.state.erased = [];
    probe.state.onErasure = undefined;
  });
  const knex = () => w.t.backend.db.knex;
  const at = (iso: string) => w.t.backend.db.dialect.time(new Date(iso));

  function service(db: Database = probe.state.ctx!.db): ErasureService {
    const ctx = probe.state.ctx!;
    return new ErasureService({ db, clock: ctx.clock, users: ctx.users, auth: ctx.auth, audit: ctx.audit, hooks: ctx.hooks, crypto: ctx.crypto, enabled: true, graceMs: GRACE_MS, loginEvents: 'purge' });
  }

  async function request(t: TestBackend, key: NostrKey): Promise<string> {
    const res = await t.client.post(REQUEST_PATH, await proof(t, key, 'erasure_request', REQUEST_PATH));
    expect(res.status, res.text).to.equal(200);
    return res.body.erasure_id as string;
  }

  async function confirm(t: TestBackend, key: NostrKey, id: string) {
    const res = await t.client.post(confirmPath(id), await proof(t, key, 'erasure_confirm', confirmPath(id)));
    expect(res.status, res.text).to.equal(200);
    return res.body as Record<string, unknown>;
  }

  async function cancel(t: TestBackend, key: NostrKey, id: string) {
    return t.client.delete(cancelPath(id), await proof(t, key, 'erasure_cancel', cancelPath(id), 'DELETE'));
  }

  /** A confirmed request due at `due`, stored directly (user_id may be null: an account deleted otherwise). */
  async function dueRequest(userId: string | null, due: string): Promise<string> {
    const id = randomUUID();
    await knex()('erasure_requests').insert({ id, user_id: userId, status: 'confirmed', created_at: at(START), confirmed_at: at(START), due_at: at(due), attempts: 0, integrity: userId === null ? null : requestSeal(id, userId, due) });
    return id;
  }

  const requestRow = async (id: string) => {
    const row = await knex()('erasure_requests').where({ id }).first();
    return { status: row.status as string, user_id: row.user_id as string | null, attempts: Number(row.attempts), last_error: row.last_error as string | null };
  };

  describe('a key without an account', () => {
    it('request, confirm and cancel answer with literal times and store nothing', async () => {
      const { t } = w;
      const stranger = new NostrKey();
      t.clock.set('2026-02-01T10:00:00.000Z');
      const requested = await t.client.post(REQUEST_PATH, await proof(t, stranger, 'erasure_request', REQUEST_PATH));
      expect(requested.status, requested.text).to.equal(200);
      expect(requested.body.erasure_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect({ ...requested.body, erasure_id: 'x' }).to.deep.equal({ erasure_id: 'x', status: 'requested', confirm_by: '2026-02-02T10:00:00.000Z', due_at: null });
      const id = randomUUID();
      const confirmed = await t.client.post(confirmPath(id), await proof(t, stranger, 'erasure_confirm', confirmPath(id)));
      expect([confirmed.status, confirmed.body], confirmed.text).to.deep.equal([200, { erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-02-04T10:00:00.000Z' }]);
      const cancelled = await cancel(t, stranger, id);
      expect([cancelled.status, cancelled.body], cancelled.text).to.deep.equal([200, { erasure_id: id, status: 'cancelled', confirm_by: null, due_at: null }]);
      expect(await knex()('erasure_requests')).to.deep.equal([]);
    });
  });

  describe('confirm and cancel', () => {
    it('a confirmation that lost the race to another confirmation of the same request answers that confirmed request', async () => {
      const { t, user } = w;
      const id = await request(t, user.key);
      const body = await proof(t, user.key, 'erasure_confirm', confirmPath(id));
      // The other confirmation commits between this one's read of the row and its transaction.
      const racing: Database = {
        ...probe.state.ctx!.db,
        knex: new Proxy(knex(), {
          get(target, prop, receiver) {
            if (prop !== 'transaction') return Reflect.get(target, prop, receiver) as unknown;
            return async (work: (trx: Knex.Transaction) => Promise<unknown>) => {
              await target('erasure_requests').where({ id }).update({ status: 'confirmed', confirmed_at: at(START), due_at: at('2026-01-04T00:05:00.000Z') });
              return target.transaction(work);
            };
          },
        }),
      };
      expect(await service(racing).confirm(id, body)).to.deep.equal({ erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-01-04T00:05:00.000Z' });
    });

    it('cancel acts on its own request only: another user’s requested erasure stays requested', async () => {
      const { t, user } = w;
      const otherKey = new NostrKey();
      await seedUser(t.backend, { nostrPubkey: otherKey.pubkey });
      const other = await request(t, otherKey);
      const mine = await request(t, user.key);
      const res = await cancel(t, user.key, mine);
      expect([res.status, res.body.status], res.text).to.deep.equal([200, 'cancelled']);
      expect((await requestRow(other)).status).to.equal('requested');
      expect((await requestRow(mine)).status).to.equal('cancelled');
    });

    it('cancelling a cancelled request answers it again and keeps its first end time', async () => {
      const { t, user } = w;
      const id = await request(t, user.key);
      await confirm(t, user.key, id);
      t.clock.advance(HOUR_MS);
      expect((await cancel(t, user.key, id)).status).to.equal(200);
      t.clock.advance(HOUR_MS);
      const again = await cancel(t, user.key, id);
      expect([again.status, again.body], again.text).to.deep.equal([200, { erasure_id: id, status: 'cancelled', confirm_by: null, due_at: null }]);
      const row = await knex()('erasure_requests').where({ id }).first();
      expect(new Date(row.ended_at).toISOString()).to.equal('2026-01-01T01:00:00.000Z');
    });
  });

  describe('the sweeper', () => {
    it("a request expires the caller's own unconfirmed request past its window, not another user's (that is the sweeper's)", async () => {
      const { t, user } = w;
      const otherKey = new NostrKey();
      await seedUser(t.backend, { nostrPubkey: otherKey.pubkey });
      const theirs = await request(t, otherKey);
      const mine = await request(t, user.key);
      t.clock.advance(24 * HOUR_MS);
      const again = await request(t, user.key);
      expect(again).to.not.equal(mine);
      expect([(await requestRow(mine)).status, (await requestRow(theirs)).status]).to.deep.equal(['expired', 'requested']);
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 0, failed: 0, expired: 1 });
      expect((await requestRow(theirs)).status).to.equal('expired');
    });

    it('a request made an hour ago is not expired; one made 24 h ago is', async () => {
      const { t, user } = w;
      const old = await request(t, user.key);
      t.clock.advance(23 * HOUR_MS);
      const otherKey = new NostrKey();
      await seedUser(t.backend, { nostrPubkey: otherKey.pubkey });
      const fresh = await request(t, otherKey);
      t.clock.advance(HOUR_MS);
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 0, failed: 0, expired: 1 });
      expect([(await requestRow(old)).status, (await requestRow(fresh)).status]).to.deep.equal(['expired', 'requested']);
    });

    it('one sweep erases at most 20 due requests, earliest due first, and reports and logs each; the next sweep takes the rest', async () => {
      const { t } = w;
      t.clock.set('2026-01-10T00:00:00.000Z');
      const ids: string[] = [];
      // Stored latest-due first, so the table's own order is the reverse of the due order.
      for (let i = 20; i >= 0; i--) {
        const { id: userId } = await seedUser(t.backend);
        ids[i] = await dueRequest(userId, new Date(Date.parse('2026-01-05T00:00:00.000Z') + i * 60_000).toISOString());
      }
      const logger = captureLogger();
      expect(await service().sweep(logger)).to.deep.equal({ completed: 20, failed: 0, expired: 0 });
      expect(logger.lines.filter((line) => line.msg === 'account erased').map((line) => line.erasure_id)).to.deep.equal(ids.slice(0, 20));
      expect(await knex()('erasure_requests').where({ status: 'confirmed' }).pluck('id')).to.deep.equal([ids[20]]);
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 1, failed: 0, expired: 0 });
      expect(await knex()('erasure_requests').where({ status: 'confirmed' }).pluck('id')).to.deep.equal([]);
    });

    it('requests due at the same time are taken in id order', async () => {
      const { t } = w;
      t.clock.set('2026-01-10T00:00:00.000Z');
      const ids = Array.from({ length: 21 }, () => randomUUID()).sort();
      // Stored highest id first, so the table's (and the due-time index's) own order is the reverse of the id order.
      for (const id of [...ids].reverse()) {
        const { id: userId } = await seedUser(t.backend);
        await knex()('erasure_requests').insert({ id, user_id: userId, status: 'confirmed', created_at: at(START), confirmed_at: at(START), due_at: at('2026-01-05T00:00:00.000Z'), attempts: 0, integrity: requestSeal(id, userId, '2026-01-05T00:00:00.000Z') });
      }
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 20, failed: 0, expired: 0 });
      expect(await knex()('erasure_requests').where({ status: 'confirmed' }).pluck('id')).to.deep.equal([ids[20]]);
    });

    it('a failure is reported, recorded on its own request only (the error cut to 500 characters) and rolled back', async () => {
      const { t, user } = w;
      const id = await request(t, user.key);
      await confirm(t, user.key, id);
      t.clock.advance(GRACE_MS);
      const otherKey = new NostrKey();
      await seedUser(t.backend, { nostrPubkey: otherKey.pubkey });
      const other = await request(t, otherKey);
      probe.state.onErasure = async () => {
        throw new Error('x'.repeat(600));
      };
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 0, failed: 1, expired: 0 });
      expect(await requestRow(id)).to.deep.equal({ status: 'confirmed', user_id: user.id, attempts: 1, last_error: `Error: ${'x'.repeat(493)}` });
      expect(await requestRow(other)).to.deep.equal({ status: 'requested', user_id: (await knex()('users').where({ nostr_pubkey: otherKey.pubkey }).first()).id, attempts: 0, last_error: null });
    });

    it('a request changed while it is carried out fails with nothing erased', async () => {
      const { t, user } = w;
      const id = await request(t, user.key);
      await confirm(t, user.key, id);
      t.clock.advance(GRACE_MS);
      probe.state.onErasure = async (trx) => {
        await trx('erasure_requests').where({ id }).update({ status: 'cancelled' });
      };
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 0, failed: 1, expired: 0 });
      expect(await requestRow(id)).to.deep.equal({ status: 'confirmed', user_id: user.id, attempts: 1, last_error: 'Error: the erasure request changed while it was being carried out' });
      expect(await knex()('users').where({ id: user.id }).pluck('id')).to.deep.equal([user.id]);
    });

    it('a failure before any request is claimed is thrown as it is', async () => {
      const { t, user } = w;
      const id = await request(t, user.key);
      await confirm(t, user.key, id);
      t.clock.advance(GRACE_MS);
      const db = probe.state.ctx!.db;
      const broken: Database = {
        ...db,
        dialect: {
          ...db.dialect,
          lockRowsSkipLocked: <T extends Knex.QueryBuilder>(): T => {
            throw new Error('the claim failed');
          },
        },
      };
      let thrown: Error | undefined;
      await service(broken)
        .sweep(captureLogger())
        .catch((err: Error) => {
          thrown = err;
        });
      expect(thrown?.message).to.equal('the claim failed');
      expect(await requestRow(id)).to.deep.equal({ status: 'confirmed', user_id: user.id, attempts: 0, last_error: null });
    });

    it('a due request whose account is already gone completes without running the hooks; account_erasure_completed is a system entry', async () => {
      const { t } = w;
      t.clock.set('2026-01-10T00:00:00.000Z');
      const id = await dueRequest(null, '2026-01-05T00:00:00.000Z');
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 1, failed: 0, expired: 0 });
      expect(probe.state.erased).to.deep.equal([]);
      expect(await requestRow(id)).to.deep.equal({ status: 'completed', user_id: null, attempts: 0, last_error: null });
      const entry = await knex()('admin_audit').where({ action: 'account_erasure_completed' }).first();
      expect([entry.actor_kind, entry.target, JSON.parse(entry.details)]).to.deep.equal(['system', `erasure:${id}`, { audit_entries_scrubbed: 0, scrubbed: [], login_events: 'purge' }]);
    });

    it('an account without username or Nostr key: only the entries naming its id are scrubbed, whatever the others say', async () => {
      const { t } = w;
      t.clock.set('2026-01-10T00:00:00.000Z');
      const { id: userId } = await seedUser(t.backend);
      const ctx = probe.state.ctx!;
      for (const target of [`user:${userId}`, 'note:Stryker was here!', 'note:anything else'])
        await t.backend.db.transaction((trx) => ctx.audit.append(trx, { action: 'test.note', actorKind: 'system', target }));
      await dueRequest(userId, '2026-01-05T00:00:00.000Z');
      expect(await service().sweep(captureLogger())).to.deep.equal({ completed: 1, failed: 0, expired: 0 });
      expect(probe.state.erased).to.deep.equal([userId]);
      expect(await knex()('admin_audit').where({ action: 'test.note' }).orderBy('seq').pluck('target')).to.deep.equal(['[erased]', 'note:Stryker was here!', 'note:anything else']);
      expect(await t.backend.setup.verifyAudit()).to.deep.include({ ok: true });
    });
  });
});
