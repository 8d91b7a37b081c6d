import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { RegistrationGate, WalletPlugin } from '@wallet/backend-core';
import { adminLogin, bootstrapAdmin, BtcKey, eachDialect, extensionBody, NostrKey, seedSession, useTestBackend, type DialectName, type TestBackend } from '../../harness/index.js';

const API = '/api/v1/admin/invites';
const T0 = '2026-01-01T00:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE58_128 = /^[1-9A-HJ-NP-Za-km-z]{21,22}$/;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** An admin list's cursor for an invite, computed here (core's paging convention): base64url of `<created_at epoch ms>.<id>`. */
const cursorOf = (invite: { created_at: string; id: string }) => Buffer.from(`${Date.parse(invite.created_at)}.${invite.id}`, 'utf8').toString('base64url');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function latch<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A registration gate that runs after the invite gate, in the same registering transaction: when
 * armed it reports the transaction's Postgres pid and holds the transaction open (with the invite
 * row's lock) until released.
 */
function holdGate(dialect: DialectName) {
  const state = { armed: false, held: latch<number | null>(), release: latch() };
  const gate: RegistrationGate = {
    name: 'test-hold',
    async admit(_attempt, trx) {
      if (!state.armed) return;
      state.armed = false;
      const pid = dialect === 'postgres' ? ((await trx.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid : null;
      state.held.resolve(pid);
      await state.release.promise;
    },
  };
  const plugin: WalletPlugin = { name: 'test-hold', setup: (ctx) => ctx.registration.addGate(gate) };
  return {
    plugin,
    arm() {
      state.armed = true;
      state.held = latch<number | null>();
      state.release = latch();
    },
    get held() {
      return state.held.promise;
    },
    release: () => state.release.resolve(),
  };
}

async function audit(t: TestBackend, token: string) {
  const res = await t.client.get('/api/v1/admin/audit?limit=500', { token });
  expect(res.status, res.text).to.equal(200);
  return res.body.entries as Array<{ action: string; target: string | null; details: unknown; actor_pubkey_prefix: string | null }>;
}

async function rows(t: TestBackend) {
  return t.backend.db.knex('invite_codes').select('*').orderBy('id');
}

/** Everything an invite request may change. */
async function snapshot(t: TestBackend) {
  return { invites: await rows(t), audit: await t.backend.db.knex('admin_audit').select('seq', 'row_hash').orderBy('seq') };
}

/** Blocked backends of this database whose blockers include `pid`, caught waiting on a lock while running `query`. */
async function waitBlockedBy(t: TestBackend, pid: number, query: RegExp, settled: () => boolean, what: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    expect(settled(), `${what} finished without waiting`).to.equal(false);
    expect(Date.now() < deadline, `${what} never showed up waiting`).to.equal(true);
    const found = (
      (await t.backend.db.knex.raw(
        `select pid, wait_event_type, state, query from pg_stat_activity where datname = current_database() and ? = any(pg_blocking_pids(pid))`,
        [pid],
      )) as { rows: Array<{ pid: number; wait_event_type: string | null; state: string; query: string }> }
    ).rows.filter((row) => row.state === 'active' && row.wait_event_type === 'Lock' && query.test(row.query));
    if (found.length === 1) return found[0]!.pid;
    await sleep(10);
  }
}

eachDialect('gates: the operator’s invites (admin API)', (dialect: DialectName) => {
  const hold = holdGate(dialect);
  const t = useTestBackend(dialect, { settings: { registrationRequireInvite: true }, plugins: [hold.plugin] });
  const register = (code?: string) => t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), code === undefined ? {} : { invite_code: code }));
  const mint = (token: string, body: unknown) => t.client.post(API, body, { token });
  const list = (token: string, query = '') => t.client.get(`${API}${query}`, { token });
  const revoke = (token: string, id: string) => t.client.post(`${API}/${id}/revoke`, undefined, { token });

  let token: string;
  let pubkey: string;
  let admin: NostrKey;
  beforeEach(async () => {
    const { nostr } = await bootstrapAdmin(t);
    admin = nostr;
    token = await adminLogin(t, nostr);
    pubkey = nostr.pubkey;
  });
  /** Moves the clock (past the admin session's lifetime too) and logs in again. */
  const setClock = async (at: Date | string) => {
    t.clock.set(at);
    token = await adminLogin(t, admin);
  };

  it('mint: 201 with the raw codes once; stored as sha256 with an id; audited with ids, never a code or hash; each code registers exactly once', async () => {
    const res = await mint(token, { count: 3, label: 'beta', expires_at: '2026-01-02T00:00:00Z' });
    expect(res.status, res.text).to.equal(201);
    const invites = res.body.invites as Array<{ id: string; code: string }>;
    expect(invites).to.have.length(3);
    const ids = invites.map((i) => i.id);
    const codes = invites.map((i) => i.code);
    for (const { id, code } of invites) {
      expect(id).to.match(UUID);
      expect(code).to.match(BASE58_128);
    }
    expect(new Set(ids).size).to.equal(3);
    expect(new Set(codes).size).to.equal(3);
    expect(res.body).to.deep.equal({ invites: invites.map(({ id, code }) => ({ id, code, label: 'beta', created_at: T0, expires_at: '2026-01-02T00:00:00.000Z' })) });

    const stored = await rows(t);
    expect(stored.map((r) => [r.id, r.code_hash, r.label, r.used_at, r.revoked_at])).to.deep.equal(
      invites.map(({ id, code }) => [id, sha256(code), 'beta', null, null]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(JSON.stringify(stored)).to.not.match(new RegExp(codes.join('|')));

    const entries = await audit(t, token);
    const last = entries.at(-1)!;
    expect(last).to.include({ action: 'invites_minted', actor_kind: 'admin', actor_pubkey_prefix: pubkey.slice(0, last.actor_pubkey_prefix!.length), target: null });
    expect(last.details).to.deep.equal({ count: 3, label: 'beta', expires_at: '2026-01-02T00:00:00.000Z', ids });
    const auditText = JSON.stringify(await t.backend.db.knex('admin_audit').select('*'));
    for (const code of codes) {
      expect(auditText).to.not.include(code);
      expect(auditText).to.not.include(sha256(code));
    }

    // The minted codes work at registration, each exactly once.
    for (const code of codes) {
      expect((await register(code)).status).to.equal(200);
      const again = await register(code);
      expect([again.status, again.body.error.code]).to.deep.equal([400, 'invite_invalid']);
    }

    const plain = await mint(token, { count: 1 });
    expect(plain.status).to.equal(201);
    expect(plain.body.invites[0]).to.deep.equal({ id: plain.body.invites[0].id, code: plain.body.invites[0].code, label: null, created_at: T0, expires_at: null });
    const edge = await mint(token, { count: 100, label: 'x'.repeat(100) });
    expect([edge.status, edge.body.invites.length]).to.deep.equal([201, 100]);
    expect((await audit(t, token)).at(-1)!.details).to.deep.equal({ count: 100, label: 'x'.repeat(100), expires_at: null, ids: edge.body.invites.map((i: { id: string }) => i.id) });
  });

  it('mint: bad input is 400 (a past or present expiry is invite_expiry_past) and changes nothing', async () => {
    const before = await snapshot(t);
    const bad: Array<[unknown, string]> = [
      [{}, 'invalid_request'],
      [{ count: 0 }, 'invalid_request'],
      [{ count: 101 }, 'invalid_request'],
      [{ count: 1.5 }, 'invalid_request'],
      [{ count: '3' }, 'invalid_request'],
      [{ count: 1, label: '' }, 'invalid_request'],
      [{ count: 1, label: 'x'.repeat(101) }, 'invalid_request'],
      [{ count: 1, label: 'a\u0000b' }, 'invalid_request'],
      [{ count: 1, label: 7 }, 'invalid_request'],
      [{ count: 1, expires_at: 'tomorrow' }, 'invalid_request'],
      [{ count: 1, expires_at: 1767312000 }, 'invalid_request'],
      [{ count: 1, code: 'chosen' }, 'invalid_request'],
      [{ count: 1, expires_at: '2025-12-31T23:59:59.999Z' }, 'invite_expiry_past'],
      [{ count: 1, expires_at: T0 }, 'invite_expiry_past'],
    ];
    for (const [body, code] of bad) {
      const res = await mint(token, body);
      expect([res.status, res.body.error?.code], JSON.stringify(body)).to.deep.equal([400, code]);
    }
    expect(await snapshot(t)).to.deep.equal(before);
    const soon = await mint(token, { count: 1, expires_at: '2026-01-01T00:00:00.001Z' });
    expect(soon.status).to.equal(201);
  });

  it('scope and authentication: a read admin lists but gets 403 admin_forbidden on POSTs, nothing changes; no token or a user token is 401', async () => {
    const minted = await mint(token, { count: 2, label: 'r' });
    const [a] = minted.body.invites as Array<{ id: string }>;
    const reader = new NostrKey();
    expect((await t.client.post('/api/v1/admin/keys', { pubkey: reader.pubkey, scope: 'read' }, { token })).status).to.equal(201);
    const readerToken = await adminLogin(t, reader);
    const before = await snapshot(t);

    const read = await list(readerToken);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal((await list(token)).body);
    for (const res of [await mint(readerToken, { count: 1 }), await revoke(readerToken, a!.id)]) expect([res.status, res.body.error.code]).to.deep.equal([403, 'admin_forbidden']);
    expect(await snapshot(t)).to.deep.equal(before);

    const user = await seedSession(t.backend);
    for (const auth of [undefined, user.auth.access_token]) {
      for (const res of [await t.client.get(API, { token: auth }), await mint(auth as string, { count: 1 }), await revoke(auth as string, a!.id)]) expect(res.status).to.equal(401);
    }
    expect(await snapshot(t)).to.deep.equal(before);
  });

  it('list: exact bodies newest first (ties by id), state as of the request, paging by after ← next_after, filters; never a code', async () => {
    const HOUR = 3_600_000;
    const batch = async (body: Record<string, unknown>) => {
      const res = await mint(token, body);
      expect(res.status, res.text).to.equal(201);
      t.clock.advance(1000);
      return res.body.invites as Array<{ id: string; code: string; label: string | null; created_at: string; expires_at: string | null }>;
    };
    const byIdDesc = <T extends { id: string }>(items: T[]) => [...items].sort((x, y) => (x.id < y.id ? 1 : -1));
    const a = byIdDesc(await batch({ count: 2, label: 'a' }));
    const b = await batch({ count: 1, label: 'b', expires_at: new Date(Date.parse(T0) + HOUR).toISOString() });
    const c = byIdDesc(await batch({ count: 2, label: 'c', expires_at: new Date(Date.parse(T0) + 2 * HOUR).toISOString() }));
    const d = await batch({ count: 1 });
    const all = [...d, ...c, ...b, ...a];
    const codes = all.map((i) => i.code);

    const usedAt = t.clock.now().toISOString();
    expect((await register(a[1]!.code)).status).to.equal(200);
    t.clock.advance(1000);
    const revokedAt = t.clock.now().toISOString();
    expect((await revoke(token, c[0]!.id)).status).to.equal(200);

    const expected = (at: number) =>
      all.map(({ id, label, created_at, expires_at }) => {
        const used_at = id === a[1]!.id ? usedAt : null;
        const revoked_at = id === c[0]!.id ? revokedAt : null;
        const state = used_at ? 'used' : revoked_at ? 'revoked' : expires_at !== null && Date.parse(expires_at) <= at ? 'expired' : 'unused';
        return { id, label, created_at, expires_at, used_at, revoked_at, state };
      });
    const now = () => t.clock.now().getTime();

    const full = await list(token);
    expect([full.status, full.body]).to.deep.equal([200, { invites: expected(now()), next_after: null }]);
    expect(full.body.invites.map((i: { label: string | null }) => i.label)).to.deep.equal([null, 'c', 'c', 'b', 'a', 'a']);
    expect(full.text).to.not.match(new RegExp(codes.join('|')));
    for (const code of codes) expect(full.text).to.not.include(sha256(code));

    // Pages of two: the cursor splits batch c (same created_at) and nothing is skipped or repeated; the last page has no next.
    const listed = expected(now());
    const pages: unknown[][] = [];
    const nexts: unknown[] = [];
    let after = '';
    for (let n = 0; n < 10; n++) {
      const page = await list(token, `?limit=2${after}`);
      expect(page.status, page.text).to.equal(200);
      pages.push(page.body.invites);
      nexts.push(page.body.next_after);
      if (page.body.next_after === null) break;
      after = `&after=${page.body.next_after as string}`;
    }
    expect(pages).to.deep.equal([listed.slice(0, 2), listed.slice(2, 4), listed.slice(4, 6)]);
    expect(nexts).to.deep.equal([cursorOf(listed[1]!), cursorOf(listed[3]!), null]);
    expect((await list(token, `?after=${cursorOf(a[0]!)}`)).body).to.deep.equal({ invites: listed.slice(5), next_after: null });
    // The tie-break: after c[0], c[1] (same created_at, the lower id) comes first.
    expect((await list(token, `?after=${cursorOf(c[0]!)}&limit=1`)).body).to.deep.equal({ invites: listed.slice(2, 3), next_after: cursorOf(c[1]!) });
    // A position no invite has is still a position: batch c's time with an id above every id starts at c[0].
    expect((await list(token, `?after=${cursorOf({ created_at: c[0]!.created_at, id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' })}&limit=2`)).body).to.deep.equal({ invites: listed.slice(1, 3), next_after: cursorOf(c[1]!) });

    const filtered = async (state: string, query = '') => (await list(token, `?state=${state}${query}`)).body.invites;
    const ofState = (state: string) => expected(now()).filter((i) => i.state === state);
    expect(await filtered('used')).to.deep.equal(ofState('used')).and.to.have.length(1);
    expect(await filtered('revoked')).to.deep.equal(ofState('revoked')).and.to.have.length(1);
    expect(await filtered('unused')).to.deep.equal(ofState('unused')).and.to.have.length(4);
    expect(await filtered('expired')).to.deep.equal([]);
    expect(await filtered('all')).to.deep.equal(expected(now()));
    expect(await filtered('unused', `&limit=1&after=${cursorOf(c[1]!)}`)).to.deep.equal([expected(now())[3]]);

    // The expiry boundary: unused up to the last millisecond before expires_at, expired at it.
    const bExpires = Date.parse(b[0]!.expires_at!);
    await setClock(new Date(bExpires - 1));
    expect((await list(token)).body.invites[3]).to.include({ id: b[0]!.id, state: 'unused' });
    expect(await filtered('expired')).to.deep.equal([]);
    await setClock(new Date(bExpires));
    expect((await list(token)).body).to.deep.equal({ invites: expected(bExpires), next_after: null });
    expect((await list(token)).body.invites[3]).to.include({ id: b[0]!.id, state: 'expired' });
    expect(await filtered('expired')).to.deep.equal([expected(bExpires)[3]]);
    expect((await filtered('unused')).map((i: { id: string }) => i.id)).to.deep.equal([d[0]!.id, c[1]!.id, a[0]!.id]);
    // … and the gate agrees: the expired code no longer registers, with the one literal error.
    const late = await register(b[0]!.code);
    expect([late.status, late.body.error.code, late.body.error.message]).to.deep.equal([400, 'invite_invalid', 'Invalid invite code']);

    // Not a cursor: an invite's id (the old form), free text, the cursor's body in clear, a non-canonical encoding.
    const notCursors = [a[0]!.id, 'nope', '', `${Date.parse(a[0]!.created_at)}.${a[0]!.id}`, `${cursorOf(a[0]!)}=`, Buffer.from(`0${Date.parse(a[0]!.created_at)}.${a[0]!.id}`).toString('base64url')];
    for (const query of ['?state=open', '?state=', '?limit=0', '?limit=501', '?limit=x', '?limit=1.5', ...notCursors.map((text) => `?after=${encodeURIComponent(text)}`)]) {
      const res = await list(token, query);
      expect([res.status, res.body.error?.code], query).to.deep.equal([400, 'invalid_request']);
    }
  });

  it('revoke: the invite with state revoked, audited by id; the code then gets the one literal error; 409 when not revocable, 404 unknown, 400 malformed', async () => {
    const minted = (await mint(token, { count: 4, label: 'rv', expires_at: '2026-01-01T01:00:00.000Z' })).body.invites as Array<{ id: string; code: string }>;
    const [target, used, expiring, spare] = minted as [(typeof minted)[0], (typeof minted)[0], (typeof minted)[0], (typeof minted)[0]];
    t.clock.advance(5000);
    const res = await revoke(token, target.id.toUpperCase());
    expect([res.status, res.body]).to.deep.equal([
      200,
      { id: target.id, label: 'rv', created_at: T0, expires_at: '2026-01-01T01:00:00.000Z', used_at: null, revoked_at: '2026-01-01T00:00:05.000Z', state: 'revoked' },
    ]);
    const entry = (await audit(t, token)).at(-1)!;
    expect(entry).to.include({ action: 'invite_revoked', target: `invite:${target.id}`, details: null });
    expect(JSON.stringify(await t.backend.db.knex('admin_audit').select('*'))).to.not.include(target.code);

    // The revoked code gets exactly the error an unknown, a used and an expired code get.
    const messages = new Set<string>();
    expect((await register(used.code)).status).to.equal(200);
    const refusals = [await register(target.code), await register('unknownCode1111111111'), await register(used.code)];
    await setClock('2026-01-01T01:00:00.000Z');
    refusals.push(await register(expiring.code));
    for (const refused of refusals) {
      expect([refused.status, refused.body.error.code]).to.deep.equal([400, 'invite_invalid']);
      messages.add(JSON.stringify(refused.body.error));
    }
    expect([...messages]).to.have.length(1);

    const before = await snapshot(t);
    for (const id of [target.id, used.id, expiring.id, spare.id]) {
      const refused = await revoke(token, id);
      expect([refused.status, refused.body.error.code], id).to.deep.equal([409, 'invite_not_revocable']);
    }
    const unknown = await revoke(token, '00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([404, 'invite_not_found']);
    const malformed = await revoke(token, 'not-a-uuid');
    expect([malformed.status, malformed.body.error.code]).to.deep.equal([400, 'invalid_request']);
    expect(await snapshot(t)).to.deep.equal(before);
  });

  it('race: a registration holding the code’s row makes a concurrent revoke wait, then lose (409); one winner', async () => {
    const [invite] = (await mint(token, { count: 1 })).body.invites as Array<{ id: string; code: string }>;
    hold.arm();
    const registering = register(invite!.code);
    let revokeSettled = false;
    let revoking: Promise<Awaited<ReturnType<typeof revoke>>> | undefined;
    try {
      const pid = await within(hold.held, 10_000, 'the registration holds the invite row');
      revoking = revoke(token, invite!.id).finally(() => (revokeSettled = true));
      revoking.catch(() => undefined);
      if (dialect === 'postgres') {
        // Proved, not assumed: the revoke's UPDATE waits on the registration's row lock.
        await waitBlockedBy(t, pid!, /^update "invite_codes"/i, () => revokeSettled, 'the revoke');
      }
      // SQLite: one connection, so the revoke cannot start before the registration commits.
      await sleep(100);
      expect(revokeSettled, 'the revoke ran while the registration held the row').to.equal(false);
    } finally {
      hold.release();
    }
    const registered = await within(registering, 10_000, 'registration');
    const revoked = await within(revoking!, 10_000, 'revoke');
    expect(registered.status, registered.text).to.equal(200);
    expect([revoked.status, revoked.body.error?.code]).to.deep.equal([409, 'invite_not_revocable']);
    const row = await t.backend.db.knex('invite_codes').where({ id: invite!.id }).first();
    expect([row.used_at === null, row.revoked_at]).to.deep.equal([false, null]);
    expect((await audit(t, token)).map((e) => e.action)).to.not.include('invite_revoked');
  });

  if (dialect === 'postgres') {
    it('race: a revoke holding the code’s row makes a concurrent registration wait, then lose (invite_invalid); one winner', async () => {
      const [invite] = (await mint(token, { count: 1 })).body.invites as Array<{ id: string; code: string }>;
      const { knex } = t.backend.db;
      // Hold the audit chain's table lock: the revoke updates the invite row, then waits in its audit append.
      const heldAudit = latch<number>();
      const releaseAudit = latch();
      const holder = knex.transaction(async (trx) => {
        await t.backend.db.dialect.lockTableForWrites(trx, 'admin_audit');
        heldAudit.resolve(((await trx.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid);
        await releaseAudit.promise;
      });
      let revokeSettled = false;
      let registerSettled = false;
      let revoking: Promise<Awaited<ReturnType<typeof revoke>>> | undefined;
      let registering: Promise<Awaited<ReturnType<typeof register>>> | undefined;
      try {
        const holderPid = await within(heldAudit.promise, 10_000, 'audit lock held');
        revoking = revoke(token, invite!.id).finally(() => (revokeSettled = true));
        revoking.catch(() => undefined);
        const revokePid = await waitBlockedBy(t, holderPid, /^lock table "admin_audit"/i, () => revokeSettled, 'the revoke');
        registering = register(invite!.code).finally(() => (registerSettled = true));
        registering.catch(() => undefined);
        await waitBlockedBy(t, revokePid, /^update "invite_codes"/i, () => registerSettled, 'the registration');
      } finally {
        releaseAudit.resolve();
        await holder;
      }
      const revoked = await within(revoking!, 10_000, 'revoke');
      const registered = await within(registering!, 10_000, 'registration');
      expect(revoked.status, revoked.text).to.equal(200);
      expect(revoked.body).to.include({ id: invite!.id, state: 'revoked', used_at: null });
      expect([registered.status, registered.body.error?.code, registered.body.error?.message]).to.deep.equal([400, 'invite_invalid', 'Invalid invite code']);
      expect(Number((await knex('users').count({ n: '*' }).first())!.n)).to.equal(0);
    });
  }
});
