import { expect } from 'chai';
import { nip19 } from 'nostr-tools';
import { createRelayAdmission, REFUSALS } from '@wallet/relay-admission';
import type { WalletPlugin } from '@wallet/backend-core';
import { adminLogin, bootstrapAdmin, BtcKey, eachDialect, extensionBody, holdTransaction, NostrKey, seedUser, useTestBackend, waitingOn, type TestBackend } from '../../harness/index.js';
import { signed } from '../../relay-admission/world.js';
import { adminPlugin } from '../../../packages/core/src/admin/plugin.js';

const API = '/api/v1';

/** The export as the erasure feature collects it. */
let collectExport: (userId: string) => Promise<Record<string, Record<string, unknown>>>;

/** A plugin with a section in the account view, as tips or premium add theirs. */
const summaryProbe: WalletPlugin = {
  name: 'probe',
  setup(ctx) {
    ctx.hooks.onUserSummary(async (userId) => ({ seen: userId.length }));
    collectExport = (userId) => ctx.hooks.collectUserExport(userId);
  },
};

async function readAdmin(t: TestBackend, fullToken: string): Promise<string> {
  const reader = new NostrKey();
  expect((await t.client.post(`${API}/admin/keys`, { pubkey: reader.pubkey, scope: 'read' }, { token: fullToken })).status).to.equal(201);
  return adminLogin(t, reader);
}

eachDialect('admin: accounts (find, view, suspend, reinstate)', (dialect) => {
  const t = useTestBackend(dialect, () => ({ plugins: [summaryProbe], settings: { nip05CacheTtlSec: 300 } }));

  /** An extension wallet with a linked Nostr key and a username: every way to find it. */
  async function account() {
    const btc = new BtcKey();
    const login = await t.client.post(`${API}/auth/extension`, extensionBody(btc, t.clock.now()));
    expect(login.status, login.text).to.equal(200);
    const nostr = new NostrKey();
    const userId = login.body.user_id as string;
    await t.backend.db.knex('users').where({ id: userId }).update({ username: 'carol', nostr_pubkey: nostr.pubkey });
    return { btc, nostr, userId, access: login.body.access_token as string, refresh: login.body.refresh_token as string };
  }

  it('finds an account by exact user id, username, Nostr key (hex or npub) and receiving key, and nothing by a part of one', async () => {
    const { token } = await adminSession(t);
    const { btc, nostr, userId } = await account();
    await seedUser(t.backend, { username: 'carolyn' });
    const created = (await t.backend.db.knex('users').where({ id: userId }).first('created_at')).created_at;
    const listing = { user_id: userId, username: 'carol', nostr_pubkey: nostr.pubkey, created_at: new Date(created).toISOString(), suspended_at: null };
    for (const q of [userId, userId.toUpperCase(), 'carol', '@Carol', nostr.pubkey, nip19.npubEncode(nostr.pubkey), btc.publicKeyHex]) {
      const found = await t.client.get(`${API}/admin/users?q=${encodeURIComponent(q)}`, { token });
      expect([found.status, found.body], q).to.deep.equal([200, { users: [listing] }]);
    }
    for (const q of ['car', nostr.pubkey.slice(0, 60), btc.pubkeyHash, '%', "' or 1=1 --"]) {
      const found = await t.client.get(`${API}/admin/users?q=${encodeURIComponent(q)}`, { token });
      expect([found.status, found.body], q).to.deep.equal([200, { users: [] }]);
    }
    const empty = await t.client.get(`${API}/admin/users?q=%20`, { token });
    expect([empty.status, empty.body.error.code]).to.deep.equal([400, 'invalid_request']);
  });

  it('views an account without any peppered or hashed value: keys with their proven state, live sessions, each plugin’s section', async () => {
    const { token } = await adminSession(t);
    const { btc, userId } = await account();
    const view = await t.client.get(`${API}/admin/users/${userId}`, { token });
    expect(view.status, view.text).to.equal(200);
    expect(view.body).to.include({ user_id: userId, username: 'carol', extension_identity: true, premium_until: null, suspended_at: null, suspension_reason: null });
    expect(view.body.keys).to.deep.equal([{ asset: 'btc', key_type: 'primary', public_key: btc.publicKeyHex, public_spend_key: null, proven: true, created_at: t.clock.now().toISOString() }]);
    expect(view.body.sessions.live).to.equal(1);
    expect(view.body.sessions.list[0].platform).to.equal('extension');
    expect(view.body.sections).to.deep.include({ probe: { seen: 36 } });
    const stored = await t.backend.db.knex('users').where({ id: userId }).first('pubkey_hash', 'seed_fingerprint');
    for (const secretOutput of [stored.pubkey_hash, stored.seed_fingerprint, btc.pubkeyHash]) expect(view.text).to.not.include(secretOutput);
    const unknown = await t.client.get(`${API}/admin/users/00000000-0000-4000-8000-000000000000`, { token });
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([404, 'admin_user_not_found']);
    const malformed = await t.client.get(`${API}/admin/users/nope`, { token });
    expect([malformed.status, malformed.body.error.code]).to.deep.equal([400, 'invalid_request']);
    expect((await t.client.get(`${API}/admin/users/${userId}`)).status, 'no token').to.equal(401);
  });

  it('a suspension ends every session, refuses every login and refresh, withdraws the NIP-05 entry and relay admission; reinstating undoes all but the sessions', async () => {
    const { token } = await adminSession(t);
    const { btc, nostr, userId, access, refresh } = await account();
    await t.backend.db.knex('users').where({ id: userId }).update({ premium_until: t.backend.db.dialect.time(new Date(t.clock.now().getTime() + 86_400_000)) });
    const nip05 = async () => (await t.client.get('/.well-known/nostr.json?name=carol')).body.names;
    expect(await nip05()).to.deep.equal({ carol: nostr.pubkey });
    const admission = createRelayAdmission({ knex: t.backend.db.knex, now: () => t.clock.now(), logger: t.logger, cacheTtlMs: 0, verifySignatures: false });
    try {
      expect(await admission.admit(signed(nostr, 1))).to.deep.equal({ accept: true, message: '' });

      const suspended = await t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: '  phishing reports  ' }, { token });
      expect(suspended.status, suspended.text).to.equal(200);
      expect(suspended.body).to.include({ suspended_at: t.clock.now().toISOString(), suspension_reason: 'phishing reports' });
      expect(suspended.body.sessions).to.deep.equal({ live: 0, list: [] });
      expect((await t.client.get(`${API}/auth/me`, { token: access })).status, 'the access token died with its session').to.equal(401);
      t.clock.advance(1_000);
      const relogin = await t.client.post(`${API}/auth/extension`, extensionBody(btc, t.clock.now()));
      expect([relogin.status, relogin.body.error?.code]).to.deep.equal([403, 'account_suspended']);
      const refreshed = await t.client.post(`${API}/auth/refresh`, { refresh_token: refresh });
      expect([refreshed.status, refreshed.body.error?.code]).to.deep.equal([403, 'account_suspended']);
      expect(await nip05(), 'withdrawn at once, though NIP-05 answers are cached').to.deep.equal({});
      expect(await admission.admit(signed(nostr, 1))).to.deep.equal({ accept: false, message: REFUSALS.notAUser });
      const entry = await t.backend.db.knex('admin_audit').where({ action: 'account_suspended' }).first();
      expect(entry.target).to.equal(`user:${userId}`);
      expect(JSON.parse(entry.details)).to.deep.equal({ reason: 'phishing reports', sessions_ended: 1 });
      expect((await collectExport(userId)).core!.suspension, 'the user’s export says so').to.deep.equal({ suspended_at: suspended.body.suspended_at, reason: 'phishing reports' });
      const again = await t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: 'twice' }, { token });
      expect([again.status, again.body.error.code]).to.deep.equal([409, 'account_already_suspended']);

      const reinstated = await t.client.post(`${API}/admin/users/${userId}/reinstate`, { reason: 'appeal upheld' }, { token });
      expect(reinstated.status, reinstated.text).to.equal(200);
      expect(reinstated.body).to.include({ suspended_at: null, suspension_reason: null });
      expect(reinstated.body.sessions.live, 'no session comes back').to.equal(0);
      expect((await collectExport(userId)).core!.suspension).to.equal(null);
      t.clock.advance(1_000);
      const back = await t.client.post(`${API}/auth/extension`, extensionBody(btc, t.clock.now()));
      expect(back.status, back.text).to.equal(200);
      expect(await nip05()).to.deep.equal({ carol: nostr.pubkey });
      expect(await admission.admit(signed(nostr, 1))).to.deep.equal({ accept: true, message: '' });
      const lifted = await t.backend.db.knex('admin_audit').where({ action: 'account_reinstated' }).first();
      expect([lifted.target, JSON.parse(lifted.details)]).to.deep.equal([`user:${userId}`, { reason: 'appeal upheld' }]);
      const notSuspended = await t.client.post(`${API}/admin/users/${userId}/reinstate`, { reason: 'again' }, { token });
      expect([notSuspended.status, notSuspended.body.error.code]).to.deep.equal([409, 'account_not_suspended']);
      expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
    } finally {
      await admission.close();
    }
  });

  it('refuses a suspension without a reason, of an unknown user, or by a read-scope admin, changing nothing', async () => {
    const { token } = await adminSession(t);
    const { userId, access } = await account();
    const reader = await readAdmin(t, token);
    const auditBefore = await t.backend.db.knex('admin_audit').count({ n: '*' }).first();
    for (const [body, code] of [[{}, 'invalid_request'], [{ reason: '   ' }, 'invalid_request'], [{ reason: 'x'.repeat(501) }, 'invalid_request'], [{ reason: 'ok', extra: 1 }, 'invalid_request']] as const) {
      const res = await t.client.post(`${API}/admin/users/${userId}/suspend`, body, { token });
      expect([res.status, res.body.error.code], JSON.stringify(body)).to.deep.equal([400, code]);
    }
    const unknown = await t.client.post(`${API}/admin/users/00000000-0000-4000-8000-000000000000/suspend`, { reason: 'spam' }, { token });
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([404, 'admin_user_not_found']);
    const byReader = await t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: 'spam' }, { token: reader });
    expect([byReader.status, byReader.body.error.code]).to.deep.equal([403, 'admin_forbidden']);
    expect((await t.client.get(`${API}/admin/users/${userId}`, { token: reader })).status, 'a reader may look').to.equal(200);
    expect((await t.backend.db.knex('users').where({ id: userId }).first('suspended_at')).suspended_at).to.equal(null);
    expect((await t.client.get(`${API}/auth/me`, { token: access })).status).to.equal(200);
    expect(await t.backend.db.knex('admin_audit').count({ n: '*' }).first()).to.deep.equal(auditBefore);
  });

  it('a session of a suspended account made live again by hand still does not refresh: the rotation itself requires the account not suspended (403, nothing rotated)', async () => {
    const { token } = await adminSession(t);
    const { userId, refresh } = await account();
    expect((await t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: 'spam' }, { token })).status).to.equal(200);
    await t.backend.db.knex('sessions').where({ user_id: userId }).update({ revoked_at: null });
    const before = await t.backend.db.knex('sessions').where({ user_id: userId }).orderBy('id');
    const refused = await t.client.post(`${API}/auth/refresh`, { refresh_token: refresh });
    expect([refused.status, refused.body.error?.code]).to.deep.equal([403, 'account_suspended']);
    expect(await t.backend.db.knex('sessions').where({ user_id: userId }).orderBy('id')).to.deep.equal(before);
  });

  // A refresh runs no guard and no transaction: one statement that share-locks the user's row.
  // These prove it is ordered with a suspension (which locks that row, then revokes the
  // sessions) both ways round, with the two provably overlapping: on Postgres each waits on the
  // other's row lock; on SQLite both queue for the one connection a held transaction has.
  it('a suspension holding the user row, then a refresh: the refresh waits, finds its session ended and answers 403 account_suspended', async () => {
    const { token } = await adminSession(t);
    const { userId, refresh } = await account();
    const knex = t.backend.db.knex;
    // Stops the suspension at its audit entry, after it locked the user, set the suspension and revoked the sessions.
    const audit = await holdTransaction(knex, (trx) => (dialect === 'postgres' ? trx.raw('lock table admin_audit in exclusive mode') : trx.raw('select 1')));
    let suspended = false;
    let refreshed = false;
    const suspending = t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: 'race' }, { token }).finally(() => (suspended = true));
    try {
      const suspension = await waitingOn(knex, audit, { statement: /lock table "admin_audit"/i, settled: () => suspended });
      const refreshing = t.client.post(`${API}/auth/refresh`, { refresh_token: refresh }).finally(() => (refreshed = true));
      await waitingOn(knex, suspension ?? audit, { statement: /^with "?transitioned"? as \(update "sessions"/i, alreadyWaiting: 1, settled: () => refreshed });
      await audit.release();
      const [suspension2, refreshed2] = await Promise.all([suspending, refreshing]);
      expect(suspension2.status, suspension2.text).to.equal(200);
      if (dialect === 'postgres' || refreshed2.status !== 200) {
        expect([refreshed2.status, refreshed2.body.error?.code], refreshed2.text).to.deep.equal([403, 'account_suspended']);
      } else {
        // SQLite serialises whole requests on its one connection, and the suspension's first
        // statement is its admin's session check, not its transaction: the refresh may get the
        // connection between them. Then it ran wholly first, and the suspension ended its session.
        expect((await t.client.get(`${API}/auth/me`, { token: refreshed2.body.access_token })).status, 'the refreshed session was ended').to.equal(401);
      }
    } finally {
      if (!audit.trx.isCompleted()) await audit.release();
    }
    const live = await knex('sessions').where({ user_id: userId }).whereNull('revoked_at').count({ n: '*' }).first();
    expect(Number(live!.n)).to.equal(0);
    expect(JSON.parse((await knex('admin_audit').where({ action: 'account_suspended' }).first()).details).sessions_ended).to.equal(1);
  });

  it('a refresh holding the user row, then a suspension: the suspension waits, and then ends the session the refresh made', async () => {
    const { token } = await adminSession(t);
    const { userId, refresh } = await account();
    const knex = t.backend.db.knex;
    // Stops the refresh's statement at the session row, after its share lock on the user row.
    const sessionRow = await holdTransaction(knex, (trx) => (dialect === 'postgres' ? trx.raw('select id from sessions where user_id = ? for update', [userId]) : trx.raw('select 1')));
    let suspended = false;
    let refreshed = false;
    const refreshing = t.client.post(`${API}/auth/refresh`, { refresh_token: refresh }).finally(() => (refreshed = true));
    try {
      const rotation = await waitingOn(knex, sessionRow, { statement: /^with "?transitioned"? as \(update "sessions"/i, settled: () => refreshed });
      const suspending = t.client.post(`${API}/admin/users/${userId}/suspend`, { reason: 'race' }, { token }).finally(() => (suspended = true));
      await waitingOn(knex, rotation ?? sessionRow, { statement: /from "users"/i, alreadyWaiting: 1, settled: () => suspended });
      await sessionRow.release();
      const [refreshed2, suspension] = await Promise.all([refreshing, suspending]);
      expect(refreshed2.status, refreshed2.text).to.equal(200);
      expect(suspension.status, suspension.text).to.equal(200);
      expect((await t.client.get(`${API}/auth/me`, { token: refreshed2.body.access_token })).status, 'the refreshed session was ended').to.equal(401);
    } finally {
      if (!sessionRow.trx.isCompleted()) await sessionRow.release();
    }
    const live = await knex('sessions').where({ user_id: userId }).whereNull('revoked_at').count({ n: '*' }).first();
    expect(Number(live!.n)).to.equal(0);
    expect(JSON.parse((await knex('admin_audit').where({ action: 'account_suspended' }).first()).details).sessions_ended).to.equal(1);
  });
});

eachDialect('admin: the service report, the admin OpenAPI document and the audit pages', (dialect) => {
  const t = useTestBackend(dialect);

  it('GET /admin/system: versions, every migration applied, the features, chains and readiness', async () => {
    const { token } = await adminSession(t);
    const res = await t.client.get(`${API}/admin/system`, { token });
    expect(res.status, res.text).to.equal(200);
    const { createRequire } = await import('node:module');
    const pkg = createRequire(import.meta.url)('../../../packages/core/package.json') as { version: string };
    expect(res.body.versions).to.deep.equal({ core: pkg.version, api: (t.backend.openapi() as { info: { version: string } }).info.version, node: process.versions.node });
    expect(res.body.database).to.deep.equal({ dialect });
    expect(res.body.readiness).to.deep.equal({ ready: true, check: null, message: null });
    expect(res.body.migrations.pending).to.deep.equal([]);
    expect(res.body.migrations.applied.map((m: { id: string }) => m.id)).to.include.members(['core/001_core_schema', 'core/009_operator_console']);
    expect(res.body.features.map((f: { name: string }) => f.name)).to.include.members(['core', 'core-admin']);
    expect(res.body.chains.map((c: { asset: string }) => c.asset)).to.deep.equal(['btc', 'ltc', 'xmr', 'wow', 'grin']);
    for (const chain of res.body.chains) expect(chain.upstream).to.equal(chain.enabled ? (chain.height === null ? 'not_answering' : 'answering') : 'disabled');
    expect((await t.client.get(`${API}/admin/system`)).status).to.equal(401);
  });

  it('GET /admin/openapi.json: every admin route and only those, to admin sessions only', async () => {
    const { token } = await adminSession(t);
    const res = await t.client.get(`${API}/admin/openapi.json`, { token });
    expect(res.status).to.equal(200);
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`)).sort();
    const declared = (adminPlugin().routes ?? []).filter((route) => route.includes(' /api/v1/admin/'));
    expect(documented).to.include.members(declared);
    expect(documented.filter((route) => !route.includes(' /api/v1/admin/')), 'nothing but admin routes').to.deep.equal([]);
    expect(documented).to.include('POST /api/v1/admin/users/{user_id}/suspend');
    expect((await t.client.get(`${API}/admin/openapi.json`)).status).to.equal(401);
  });

  it('every state-changing admin route refuses a read-scope admin with 403 before doing anything, and logout is the one it may use', async () => {
    const { token } = await adminSession(t);
    const reader = await readAdmin(t, token);
    const doc = (await t.client.get(`${API}/admin/openapi.json`, { token })).body as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((method) => method !== 'get').map((method) => ({ method: method.toUpperCase(), path })));
    expect(writes.length).to.be.greaterThan(5);
    const before = await t.backend.db.knex('admin_audit').count({ n: '*' }).first();
    for (const { method, path } of writes) {
      if (path.endsWith('/admin/login') || path.endsWith('/admin/logout')) continue;
      const concrete = path.replace(/\{[a-z_]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.client.request(method, concrete, { json: {}, token: reader });
      expect([res.status, res.body.error?.code], `${method} ${path}`).to.deep.equal([403, 'admin_forbidden']);
    }
    expect(await t.backend.db.knex('admin_audit').count({ n: '*' }).first()).to.deep.equal(before);
    expect((await t.client.post(`${API}/admin/logout`, undefined, { token: reader })).status).to.equal(204);
    expect((await t.client.get(`${API}/admin/me`, { token: reader })).status).to.equal(401);
  });

  it('GET /admin/audit pages both ways with exact filters; GET /admin/audit/verify reports where the chain broke', async () => {
    const { token } = await adminSession(t);
    for (const title of ['a', 'b', 'c']) expect((await t.client.request('PUT', `${API}/admin/config/landing`, { json: { title }, token })).status).to.equal(200);
    const all = (await t.client.get(`${API}/admin/audit?limit=500`, { token })).body.entries as Array<{ seq: number; action: string; actor_kind: string }>;
    const seqs = all.map((entry) => entry.seq);
    expect(seqs).to.deep.equal(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const updates = all.filter((entry) => entry.action === 'operator_settings_updated').map((entry) => entry.seq);
    expect(updates).to.have.length(3);
    const filtered = await t.client.get(`${API}/admin/audit?action=operator_settings_updated`, { token });
    expect(filtered.body.entries.map((entry: { seq: number }) => entry.seq)).to.deep.equal(updates);
    const newest = await t.client.get(`${API}/admin/audit?action=operator_settings_updated&before_seq=${updates[2]}&limit=1`, { token });
    expect(newest.body.entries.map((entry: { seq: number }) => entry.seq), 'newest first below before_seq').to.deep.equal([updates[1]]);
    const byActor = await t.client.get(`${API}/admin/audit?actor_kind=cli`, { token });
    expect(byActor.body.entries.map((entry: { seq: number }) => entry.seq)).to.deep.equal(all.filter((entry) => entry.actor_kind === 'cli').map((entry) => entry.seq));
    for (const query of ['after_seq=1&before_seq=5', 'actor_kind=robot', 'before_seq=0', 'limit=501']) {
      const bad = await t.client.get(`${API}/admin/audit?${query}`, { token });
      expect([bad.status, bad.body.error.code], query).to.deep.equal([400, 'invalid_request']);
    }
    // No checkpoint is sealed this early in a chain (one every 10,000 entries): both walks start at the first entry.
    expect((await t.client.get(`${API}/admin/audit/verify`, { token })).body).to.deep.equal({ ok: true, entries: seqs.length, from_seq: 0, broken_at: null, reason: null });
    await t.backend.db.knex('admin_audit').where({ seq: updates[1] }).update({ target: 'settings:retention' });
    const brokenBody = { ok: false, entries: updates[1]! - 1, from_seq: 0, broken_at: updates[1], reason: 'the entry was altered after it was written' };
    expect((await t.client.get(`${API}/admin/audit/verify`, { token })).body).to.deep.equal(brokenBody);
    expect((await t.client.get(`${API}/admin/audit/verify?full=true`, { token })).body).to.deep.equal(brokenBody);
    await t.backend.db.knex('admin_audit_checkpoint').insert({ seq: 2, row_hash: 'a'.repeat(64), created_at: t.backend.db.dialect.time(t.clock.now()), mac: 'b'.repeat(64) });
    expect((await t.client.get(`${API}/admin/audit/verify`, { token })).body).to.deep.include({ ok: false, from_seq: 0, broken_at: 2, reason: 'the checkpoint at entry 2 was altered (verify with full to walk the chain from its start)' });
    expect((await t.client.get(`${API}/admin/audit/verify?full=true`, { token })).body).to.deep.equal(brokenBody);
    for (const query of ['full=yes', 'full=1', 'full=']) {
      const bad = await t.client.get(`${API}/admin/audit/verify?${query}`, { token });
      expect([bad.status, bad.body.error.code], query).to.deep.equal([400, 'invalid_request']);
    }
  });
});

async function adminSession(t: TestBackend): Promise<{ token: string }> {
  const { nostr } = await bootstrapAdmin(t);
  return { token: await adminLogin(t, nostr) };
}
