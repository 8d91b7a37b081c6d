import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { WalletPlugin } from '@wallet/backend-core';
import { captureLogger } from '@wallet/backend-core/testing';
import { erasurePlugin } from '@wallet/erasure';
import { ErasureService } from '../../packages/erasure/src/service.js';
import { adminLogin, auditProbe, bootstrapAdmin, createTestBackend, eachDialect, NostrKey, REPO_ROOT, seedUser, spawnEntry, type TestBackend } from '../harness/index.js';
import { API, proof, requestAndConfirm, requestSeal, useErasureWorld } from './harness.js';

const HOUR_MS = 3_600_000;
const GRACE_MS = 72 * HOUR_MS;

async function seedLoginEvents(t: TestBackend, userId: string, n: number): Promise<void> {
  const { time } = t.backend.db.dialect;
  for (let i = 0; i < n; i++) {
    await t.backend.db.knex('login_events').insert({ id: randomUUID(), user_id: userId, platform: 'extension', ip_hash: `ip${i}`.padEnd(64, '0'), fingerprint: `fp${i}`.padEnd(64, '0'), created_at: time(new Date(Date.UTC(2026, 0, 1, 0, 0, i))) });
  }
}

/** Everything about one user that an erasure touches. */
async function footprint(t: TestBackend, userId: string) {
  const knex = t.backend.db.knex;
  return {
    user: await knex('users').where({ id: userId }).first(),
    sessions: await knex('sessions').where({ user_id: userId }).orderBy('id'),
    loginEvents: await knex('login_events').where({ user_id: userId }).orderBy('id'),
    audit: await knex('admin_audit').orderBy('seq'),
    head: await knex('admin_audit_head').first(),
  };
}

/** A plugin with its own per-user rows whose erasure hook throws while `failing` is set. */
function flakyPlugin() {
  const state = { failing: true, calls: 0 };
  const plugin: WalletPlugin = {
    name: 'flaky',
    migrations: [
      {
        id: '001_flaky_rows',
        async up(trx) {
          await trx.schema.createTable('flaky_rows', (t) => {
            t.increments('id');
            t.string('user_id', 36).notNullable();
            t.string('note', 50).notNullable();
          });
        },
      },
    ],
    setup(ctx) {
      ctx.hooks.onUserErasure(async (trx, userId) => {
        state.calls += 1;
        // work that must be rolled back with the failure
        await trx('flaky_rows').where({ user_id: userId }).delete();
        await trx('sessions').where({ user_id: userId }).delete();
        if (state.failing) throw new Error('flaky hook failed');
      });
    },
  };
  return { plugin, state };
}

eachDialect('erasure sweeper: a failing hook rolls everything back', (dialect) => {
  const flaky = flakyPlugin();
  const w = useErasureWorld(dialect, { enabled: true }, [flaky.plugin]);

  it('nothing erased, the request stays confirmed with attempts and last_error, /admin/erasure/stuck lists it; fixed, the next sweep completes it', async () => {
    const { t, user } = w;
    flaky.state.failing = true;
    flaky.state.calls = 0;
    const other = await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey, username: 'otto' });
    await t.backend.db.knex('flaky_rows').insert([
      { user_id: user.id, note: 'mine' },
      { user_id: other.id, note: 'theirs' },
    ]);
    await seedLoginEvents(t, user.id, 2);
    await t.backend.sessions.start(user.id, 'web');
    // an audit entry that names the user (the scrub would rewrite it)
    const exported = await t.client.post(`${API}/account/export`, await proof(t, user.key, 'erasure_export', `${API}/account/export`));
    expect(exported.status).to.equal(200);
    // one more session (revoked at confirmation, kept as a row) for the hook's delete to undo;
    // after confirmation the account is frozen and no session can be started
    await t.backend.sessions.start(user.id, 'extension');
    const id = await requestAndConfirm(t, user.key);
    t.clock.advance(GRACE_MS + 90_000);
    const admin = await bootstrapAdmin(t);
    const adminToken = await adminLogin(t, admin.nostr);
    const before = await footprint(t, user.id);
    expect(before.sessions).to.have.length(3);
    expect(before.loginEvents).to.have.length(2);
    const auditCount = before.audit.length;

    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    expect(flaky.state.calls).to.equal(1);
    expect(await footprint(t, user.id)).to.deep.equal(before);
    expect((await t.backend.db.knex('flaky_rows').orderBy('id')).map((r: { note: string }) => r.note)).to.deep.equal(['mine', 'theirs']);
    const row = await t.backend.db.knex('erasure_requests').where({ id }).first();
    expect(row).to.include({ status: 'confirmed', user_id: user.id, attempts: 1, last_error: 'Error: flaky hook failed', ended_at: null });
    expect((await t.backend.db.knex('admin_audit')).length).to.equal(auditCount);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
    const failedLog = t.logger.lines.find((line) => line.msg === 'account erasure failed; nothing was erased and it is retried at the next sweep');
    expect(failedLog).to.include({ erasure_id: id, error: 'Error: flaky hook failed' });

    const stuck = await t.client.get(`${API}/admin/erasure/stuck`, { token: adminToken });
    expect([stuck.status, stuck.body], stuck.text).to.deep.equal([200, { requests: [{ erasure_id: id, due_at: '2026-01-04T00:00:00.000Z', overdue_sec: 90, attempts: 1, last_error: 'Error: flaky hook failed' }] }]);
    expect((await t.client.get(`${API}/admin/erasure/stuck`)).status, 'admin only').to.equal(401);

    // a second failing sweep counts up
    t.clock.advance(60_000);
    await t.backend.scheduler.runNow('erasure.sweep');
    const again = await t.client.get(`${API}/admin/erasure/stuck`, { token: adminToken });
    expect(again.body.requests).to.deep.equal([{ erasure_id: id, due_at: '2026-01-04T00:00:00.000Z', overdue_sec: 150, attempts: 2, last_error: 'Error: flaky hook failed' }]);

    flaky.state.failing = false;
    t.clock.advance(60_000);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.equal(undefined);
    expect((await t.backend.db.knex('flaky_rows')).map((r: { note: string }) => r.note)).to.deep.equal(['theirs']);
    expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'completed', user_id: null, attempts: 2, last_error: null });
    expect((await t.client.get(`${API}/admin/erasure/stuck`, { token: adminToken })).body).to.deep.equal({ requests: [] });
    expect(await t.backend.db.knex('users').where({ id: other.id }).first()).to.not.equal(undefined);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
  });
});

eachDialect('erasure sweeper: killed mid-transaction', (dialect) => {
  const w = useErasureWorld(dialect);

  it('SIGKILL while the sweep holds its transaction: nothing half-erased, a later sweep completes the erasure', async function () {
    this.timeout(120_000);
    const { t, user } = w;
    await seedLoginEvents(t, user.id, 2);
    await t.backend.sessions.start(user.id, 'web');
    const id = await requestAndConfirm(t, user.key);
    t.clock.advance(GRACE_MS);
    const before = await footprint(t, user.id);
    const child = spawnEntry('test/erasure/sweep-child.ts', [], { cwd: REPO_ROOT, env: { DIALECT: dialect, DATABASE_URL: t.databaseUrl, NOW: t.clock.now().toISOString() } });
    try {
      await child.waitFor('IN_HOOK', 60_000);
      child.child.kill('SIGKILL');
      expect(await child.exited).to.equal('SIGKILL');
    } finally {
      child.child.kill('SIGKILL');
    }
    expect(child.stdout()).to.not.include('SWEPT');
    expect(await footprint(t, user.id)).to.deep.equal(before);
    expect(before.user.username).to.match(/^erin/);
    expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'confirmed', attempts: 0, last_error: null });
    // the child's scheduler lease outlives it; past it, the sweep here completes the erasure
    t.clock.advance(HOUR_MS);
    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.equal(undefined);
    expect(await t.backend.db.knex('sessions').where({ user_id: user.id })).to.deep.equal([]);
    expect(await t.backend.db.knex('login_events').where({ user_id: user.id })).to.deep.equal([]);
    expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'completed', user_id: null });
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
  });
});

/** A sweeper that bypasses the scheduler's lease: the service itself, built from the plugin context. */
function directSweeper(hook?: (userId: string) => Promise<void>) {
  let service: ErasureService | undefined;
  const plugin: WalletPlugin = {
    name: 'direct-sweeper',
    setup(ctx) {
      if (hook) ctx.hooks.onUserErasure((_trx, userId) => hook(userId));
      service = new ErasureService({ db: ctx.db, clock: ctx.clock, users: ctx.users, auth: ctx.auth, audit: ctx.audit, hooks: ctx.hooks, crypto: ctx.crypto, enabled: true, graceMs: GRACE_MS, loginEvents: 'purge' });
    },
  };
  return { plugin, sweep: () => service!.sweep(captureLogger()) };
}

eachDialect('erasure sweeper: two backends on one database', (dialect) => {
  let backends: TestBackend[] = [];
  afterEach(async () => {
    for (const b of backends) await b.close();
    backends = [];
  });

  it('sweeping at once, several due requests: each erased exactly once, one account_erasure_completed each, the chain verifies', async function () {
    this.timeout(120_000);
    const erased: string[] = [];
    const slow = async (userId: string) => {
      erased.push(userId);
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const a = directSweeper(slow);
    const b = directSweeper(slow);
    const first = await createTestBackend(dialect, { plugins: [a.plugin, erasurePlugin({ enabled: true })] });
    backends.push(first);
    const second = await createTestBackend(dialect, { databaseUrl: first.databaseUrl, plugins: [b.plugin, erasurePlugin({ enabled: true })] });
    backends.push(second);
    const { time } = first.backend.db.dialect;
    const ids: string[] = [];
    const users: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { id: userId } = await seedUser(first.backend, { nostrPubkey: new NostrKey().pubkey, username: `swept${i}` });
      const id = randomUUID();
      await first.backend.db.knex('erasure_requests').insert({ id, user_id: userId, status: 'confirmed', created_at: time(new Date('2025-12-28T00:00:00.000Z')), confirmed_at: time(new Date('2025-12-28T00:00:00.000Z')), due_at: time(new Date('2025-12-31T00:00:00.000Z')), attempts: 0, integrity: requestSeal(id, userId, '2025-12-31T00:00:00.000Z') });
      ids.push(id);
      users.push(userId);
    }
    const survivor = await seedUser(first.backend, { username: 'survivor' });
    // both sweep at once (twice each, to take whatever the other had to leave)
    const reports = await Promise.all([a.sweep(), b.sweep(), a.sweep(), b.sweep()]);
    for (let round = 0; round < 3 && (await first.backend.db.knex('erasure_requests').where({ status: 'confirmed' })).length > 0; round++) await Promise.all([a.sweep(), b.sweep()]);
    const completed = reports.reduce((sum, r) => sum + r.completed, 0);
    expect(completed).to.be.at.most(6);
    expect(await first.backend.db.knex('users').whereIn('id', users)).to.deep.equal([]);
    expect(await first.backend.db.knex('users').where({ id: survivor.id }).first()).to.not.equal(undefined);
    const rows = (await first.backend.db.knex('erasure_requests').orderBy('id')) as Array<{ id: string; status: string; user_id: string | null }>;
    expect(rows.map((r) => [r.id, r.status, r.user_id])).to.deep.equal([...ids].sort().map((id) => [id, 'completed', null]));
    const audit = (await first.backend.db.knex('admin_audit').orderBy('seq')) as Array<{ action: string; target: string }>;
    expect(audit.map((e) => e.action)).to.deep.equal(Array(6).fill('account_erasure_completed'));
    expect(audit.map((e) => e.target).sort()).to.deep.equal(ids.map((id) => `erasure:${id}`).sort());
    expect(await first.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 6 });
    // hooks ran for each user at least once; a committed erasure never ran twice for one user
    expect([...new Set(erased)].sort()).to.deep.equal([...users].sort());
    if (dialect === 'postgres') expect(erased).to.have.length(6);
  });

  it('both schedulers at once: the lease lets one sweep; the request is erased once', async () => {
    const first = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });
    backends.push(first);
    const second = await createTestBackend(dialect, { databaseUrl: first.databaseUrl, plugins: [erasurePlugin({ enabled: true })] });
    backends.push(second);
    const key = new NostrKey();
    await seedUser(first.backend, { nostrPubkey: key.pubkey, username: 'lease' });
    const id = await requestAndConfirm(first, key);
    first.clock.advance(GRACE_MS);
    second.clock.advance(GRACE_MS);
    const ran = await Promise.all([first.backend.scheduler.runNow('erasure.sweep'), second.backend.scheduler.runNow('erasure.sweep')]);
    expect(ran.filter(Boolean)).to.have.length(1);
    expect(await first.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'completed', user_id: null });
    const actions = ((await first.backend.db.knex('admin_audit').orderBy('seq')) as Array<{ action: string }>).map((e) => e.action);
    expect(actions).to.deep.equal(['account_erasure_completed']);
  });
});

for (const mode of ['purge', 'anonymize'] as const) {
  eachDialect(`erasure sweeper: ERASURE_LOGIN_EVENTS=${mode}`, (dialect) => {
    const w = useErasureWorld(dialect, { enabled: true, loginEvents: mode });

    it(mode === 'purge' ? "the user's login events are deleted; others' untouched" : "the user's login events stay without user_id and fingerprint; others' untouched", async () => {
      const { t, user } = w;
      const other = await seedUser(t.backend, { username: 'bystander' });
      await seedLoginEvents(t, user.id, 3);
      await seedLoginEvents(t, other.id, 1);
      const othersBefore = await t.backend.db.knex('login_events').where({ user_id: other.id });
      const mine = ((await t.backend.db.knex('login_events').where({ user_id: user.id }).orderBy('id')) as Array<{ id: string; ip_hash: string; platform: string }>).map((r) => r.id);
      await requestAndConfirm(t, user.key);
      t.clock.advance(GRACE_MS);
      await t.backend.scheduler.runNow('erasure.sweep');
      expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.equal(undefined);
      const kept = (await t.backend.db.knex('login_events').whereIn('id', mine).orderBy('id')) as Array<Record<string, unknown>>;
      if (mode === 'purge') expect(kept).to.deep.equal([]);
      else {
        expect(kept.map((r) => [r.id, r.user_id, r.fingerprint, r.platform])).to.deep.equal(mine.map((id) => [id, null, null, 'extension']));
        expect(kept.map((r) => (r.ip_hash as string).slice(0, 3))).to.have.members(['ip0', 'ip1', 'ip2']);
      }
      expect(await t.backend.db.knex('login_events').where({ user_id: other.id })).to.deep.equal(othersBefore);
      const completed = (await t.backend.db.knex('admin_audit').orderBy('seq', 'desc').first()) as { details: unknown };
      const details = typeof completed.details === 'string' ? JSON.parse(completed.details) : completed.details;
      expect(details).to.deep.equal({ audit_entries_scrubbed: 0, scrubbed: [], login_events: mode });
    });
  });
}

type Tamper = 'edit an action' | 'delete the newest' | 'delete a middle entry' | 'edit the head';

eachDialect('erasure sweeper: the audit chain', (dialect) => {
  const probe = auditProbe();
  const w = useErasureWorld(dialect, { enabled: true }, [probe.plugin]);

  /** Six entries: 1 is about the user (target `user:<id>`); 3 and 5 merely mention the user's key and username, and 2, 4, 6 are unrelated. */
  async function chain(t: TestBackend, user: { id: string; key: NostrKey }): Promise<void> {
    const username = ((await t.backend.db.knex('users').where({ id: user.id }).first()) as { username: string }).username;
    await t.backend.db.knex.transaction(async (trx) => {
      await probe.append(trx, { action: 'probe_one', actorKind: 'system', target: `user:${user.id}` });
      await probe.append(trx, { action: 'probe_two', actorKind: 'system', target: 'setting:x' });
      await probe.append(trx, { action: 'probe_three', actorKind: 'system', target: 'other', details: { pubkey: user.key.pubkey } });
      await probe.append(trx, { action: 'probe_four', actorKind: 'system', target: 'setting:y', details: { n: 4 } });
      await probe.append(trx, { action: 'probe_five', actorKind: 'system', target: `name:${username}` });
      await probe.append(trx, { action: 'probe_six', actorKind: 'system', target: 'setting:z' });
    });
  }

  async function tamper(t: TestBackend, kind: Tamper): Promise<void> {
    const knex = t.backend.db.knex;
    const newest = Number(((await knex('admin_audit').max({ m: 'seq' })) as Array<{ m: number | string }>)[0]!.m);
    if (kind === 'edit an action') await knex('admin_audit').where({ seq: 2 }).update({ action: 'probe_forged' });
    if (kind === 'delete the newest') await knex('admin_audit').where({ seq: newest }).delete();
    if (kind === 'delete a middle entry') await knex('admin_audit').where({ seq: 3 }).delete();
    if (kind === 'edit the head') await knex('admin_audit_head').update({ seq: newest - 1 });
  }

  it('after an erasure the chain verifies: the entry about the user is scrubbed, mentions by text are not, and the completion names what was re-sealed', async () => {
    const { t, user } = w;
    await chain(t, user);
    const firstHash = ((await t.backend.db.knex('admin_audit').where({ seq: 1 }).first()) as { row_hash: string }).row_hash;
    await requestAndConfirm(t, user.key);
    t.clock.advance(GRACE_MS);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 7 });
    const rows = (await t.backend.db.knex('admin_audit').orderBy('seq')) as Array<{ seq: number | string; action: string; target: string; details: unknown }>;
    const parse = (d: unknown) => (typeof d === 'string' ? JSON.parse(d) : d);
    expect(rows.map((r) => [Number(r.seq), r.action, r.target, parse(r.details)])).to.deep.equal([
      [1, 'probe_one', '[erased]', { erased: true }],
      [2, 'probe_two', 'setting:x', null],
      [3, 'probe_three', 'other', { pubkey: user.key.pubkey }],
      [4, 'probe_four', 'setting:y', { n: 4 }],
      [5, 'probe_five', rows[4]!.target, null],
      [6, 'probe_six', 'setting:z', null],
      [7, 'account_erasure_completed', rows[6]!.target, { audit_entries_scrubbed: 1, scrubbed: [{ seq: 1, row_hash: firstHash }], login_events: 'purge' }],
    ]);
  });

  const VERDICTS: Record<Tamper, (n: number) => unknown> = {
    'edit an action': () => ({ ok: false, entries: 1, brokenAt: 2, reason: 'the entry was altered after it was written' }),
    'delete the newest': (n) => ({ ok: false, entries: n - 1, brokenAt: n, reason: `entries ${n}..${n} were deleted (the head says the chain ends at ${n})` }),
    'delete a middle entry': () => ({ ok: false, entries: 2, brokenAt: 3, reason: 'entry 3 is missing (next is 4)' }),
    'edit the head': (n) => ({ ok: false, entries: n, brokenAt: n + 1, reason: 'the sealed chain head was altered' }),
  };

  for (const kind of Object.keys(VERDICTS) as Tamper[]) {
    it(`${kind}: detected after the erasure exactly as before it`, async () => {
      const { t, user } = w;
      await chain(t, user);
      await requestAndConfirm(t, user.key);
      t.clock.advance(GRACE_MS);
      await t.backend.scheduler.runNow('erasure.sweep');
      expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
      await tamper(t, kind);
      expect(await t.backend.setup.verifyAudit()).to.deep.equal(VERDICTS[kind](7));
    });

    it(`${kind} BEFORE the sweep: detected, and the erasure fails with nothing erased and last_error naming the audit chain`, async () => {
      const { t, user } = w;
      await chain(t, user);
      const id = await requestAndConfirm(t, user.key);
      await tamper(t, kind);
      const verdict = await t.backend.setup.verifyAudit();
      expect(verdict).to.deep.equal(VERDICTS[kind](6));
      t.clock.advance(GRACE_MS);
      const audit = await t.backend.db.knex('admin_audit').orderBy('seq');
      await t.backend.scheduler.runNow('erasure.sweep');
      expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.not.equal(undefined);
      expect(await t.backend.db.knex('admin_audit').orderBy('seq')).to.deep.equal(audit);
      const row = (await t.backend.db.knex('erasure_requests').where({ id }).first()) as { status: string; attempts: number; last_error: string };
      const v = verdict as { brokenAt: number; reason: string };
      expect([row.status, row.attempts, row.last_error]).to.deep.equal(['confirmed', 1, `Error: the audit chain does not verify (entry ${v.brokenAt}: ${v.reason}); no erasure runs until it does`]);
    });
  }

  it('one user\'s audit entry edited: the sweep erases nobody, not even users the chain does not name, and appends nothing; repaired, the next sweep erases all three', async () => {
    const { t, user } = w;
    await chain(t, user);
    const others = [new NostrKey(), new NostrKey()];
    const otherIds: string[] = [];
    for (const [i, key] of others.entries()) otherIds.push((await seedUser(t.backend, { nostrPubkey: key.pubkey, username: `bystander${i}` })).id);
    const ids = [await requestAndConfirm(t, user.key)];
    for (const key of others) ids.push(await requestAndConfirm(t, key));
    // entry 1 is about the user (target user:<id>); the other two users have no entry at all
    const original = (await t.backend.db.knex('admin_audit').where({ seq: 1 }).first()) as { action: string };
    await t.backend.db.knex('admin_audit').where({ seq: 1 }).update({ action: 'probe_forged' });
    const audit = await t.backend.db.knex('admin_audit').orderBy('seq');
    const head = await t.backend.db.knex('admin_audit_head').first();
    t.clock.advance(GRACE_MS);
    await t.backend.scheduler.runNow('erasure.sweep');

    expect(await t.backend.db.knex('users').whereIn('id', [user.id, ...otherIds]).count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 3 : '3' }]);
    expect(await t.backend.db.knex('admin_audit').orderBy('seq'), 'nothing appended onto the broken chain').to.deep.equal(audit);
    expect(await t.backend.db.knex('admin_audit_head').first()).to.deep.equal(head);
    const rows = (await t.backend.db.knex('erasure_requests').whereIn('id', ids)) as Array<{ status: string; attempts: number; last_error: string }>;
    const stop = 'Error: the audit chain does not verify (entry 1: the entry was altered after it was written); no erasure runs until it does';
    expect(rows.map((r) => [r.status, r.attempts, r.last_error])).to.deep.equal(ids.map(() => ['confirmed', 1, stop]));
    const stopped = t.logger.lines.filter((line) => line.msg === 'account erasures stopped; nothing was erased');
    expect(stopped.map((line) => [line.reason, line.due])).to.deep.equal([[stop.slice('Error: '.length), 3]]);
    expect(t.logger.lines.filter((line) => line.msg === 'erasure sweep').map((line) => [line.completed, line.failed, line.expired]), 'the sweep report').to.deep.equal([[0, 3, 0]]);

    await t.backend.db.knex('admin_audit').where({ seq: 1 }).update({ action: original.action });
    t.clock.advance(60_000);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').whereIn('id', [user.id, ...otherIds])).to.deep.equal([]);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 9 });
  });

  it('no request due: the sweep does not walk the chain (a broken chain stops only erasures that are due)', async () => {
    const { t, user } = w;
    await chain(t, user);
    // a request cancelled within its grace period keeps a due time that then passes: it is not due
    const other = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: other.pubkey, username: 'changed_mind' });
    const cancelled = await requestAndConfirm(t, other);
    const cancel = `${API}/account/erasure/${cancelled}`;
    expect((await t.client.delete(cancel, await proof(t, other, 'erasure_cancel', cancel, 'DELETE'))).status).to.equal(200);
    t.clock.advance(GRACE_MS + 60_000);
    // confirmed now: due only after another grace period
    const pending = await requestAndConfirm(t, user.key);
    await t.backend.db.knex('admin_audit').where({ seq: 2 }).update({ action: 'probe_forged' });
    const rows = await t.backend.db.knex('erasure_requests').orderBy('id');
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(t.logger.lines.filter((line) => line.msg === 'account erasures stopped; nothing was erased')).to.deep.equal([]);
    expect(await t.backend.db.knex('erasure_requests').orderBy('id')).to.deep.equal(rows);
    expect(await t.backend.db.knex('erasure_requests').where({ id: pending }).first()).to.include({ status: 'confirmed', attempts: 0, last_error: null });
  });
});
