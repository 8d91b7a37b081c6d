import { expect } from 'chai';
import {
  ADMIN_LOGIN,
  adminLogin,
  adminLoginResponse,
  bootstrapAdmin,
  eachDialect,
  NostrKey,
  seedSession,
  useTestBackend,
  type TestBackend,
} from '../../harness/index.js';

const actions = async (t: TestBackend) => (await t.backend.db.knex('admin_audit').orderBy('seq').select('action')).map((row) => row.action as string);

eachDialect('admin: login and the admin API', (dialect) => {
  const t = useTestBackend(dialect, { settings: { adminSessionTtlSec: 600 } });

  it('refuses every login until setup has locked the latch', async () => {
    const res = await adminLoginResponse(t, new NostrKey());
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('admin_setup_incomplete');
  });

  it('logs the bootstrapped admin in with a signed action; the session reaches /admin/me and is audited with the peer IP', async () => {
    const { nostr, keyId } = await bootstrapAdmin(t);
    const res = await adminLoginResponse(t, nostr);
    expect(res.status).to.equal(200);
    expect(res.body.token).to.match(/^adm_[A-Za-z0-9_-]{43}$/);
    expect(res.body.admin).to.include({ id: keyId, pubkey: nostr.pubkey, scope: 'full', intact: true });
    const me = await t.client.get('/api/v1/admin/me', { token: res.body.token });
    expect(me.status).to.equal(200);
    expect(me.body.id).to.equal(keyId);
    const session = await t.backend.db.knex('admin_sessions').first();
    expect(session.token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(session)).to.not.include(res.body.token);
    expect(session.peer_ip).to.equal('127.0.0.1');
    const login = await t.backend.db.knex('admin_audit').where({ action: 'admin_login' }).first();
    expect(login).to.include({ actor_kind: 'admin', actor_pubkey_prefix: nostr.pubkey.slice(0, 16), peer_ip: '127.0.0.1' });
  });

  it('a replayed proof, a wrong purpose, a foreign key and a garbled body are refused', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const challenge = await t.client.get('/api/v1/admin/login-challenge');
    const nonce = challenge.body.nonce as string;
    const proof = nostr.signedAction(ADMIN_LOGIN, nonce, 'admin_login', t.clock.now());
    expect((await t.client.post(ADMIN_LOGIN, { nostr_token: proof, nonce })).status).to.equal(200);
    const replay = await t.client.post(ADMIN_LOGIN, { nostr_token: proof, nonce });
    expect([replay.status, replay.body.error.code]).to.deep.equal([401, 'nonce_invalid']);
    const wrongPurpose = await adminLoginResponse(t, nostr, { purpose: 'nostr_link' });
    expect([wrongPurpose.status, wrongPurpose.body.error.code]).to.deep.equal([401, 'signed_action_invalid']);
    const stranger = await adminLoginResponse(t, new NostrKey());
    expect([stranger.status, stranger.body.error.code]).to.deep.equal([401, 'admin_login_refused']);
    const garbled = await t.client.post(ADMIN_LOGIN, { nostr_token: 'x', nonce: 'not-a-nonce' });
    expect([garbled.status, garbled.body.error.code]).to.deep.equal([400, 'invalid_request']);
    expect(Number((await t.backend.db.knex('admin_sessions').count({ n: '*' }).first())!.n)).to.equal(1);
  });

  it('admin routes refuse user tokens, user routes refuse admin tokens', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const adminToken = await adminLogin(t, nostr);
    const user = await seedSession(t.backend);
    for (const path of ['/api/v1/admin/me', '/api/v1/admin/keys', '/api/v1/admin/audit', '/api/v1/admin/config/restore']) {
      const res = await t.client.get(path, { token: user.auth.access_token });
      expect([res.status, res.body.error.code], path).to.deep.equal([401, 'admin_unauthorized']);
      expect((await t.client.get(path)).status, `${path} without a token`).to.equal(401);
    }
    const userRoute = await t.client.get('/api/v1/users/me/username', { token: adminToken });
    expect([userRoute.status, userRoute.body.error.code]).to.deep.equal([401, 'unauthorized']);
    expect((await t.client.get('/api/v1/users/me/username', { token: user.auth.access_token })).status).to.equal(200);
  });

  it('a new key waits until its holder logs in; a read-scope admin reads but cannot write', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const reader = new NostrKey();
    const created = await t.client.post('/api/v1/admin/keys', { pubkey: reader.pubkey, scope: 'read' }, { token });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ pubkey: reader.pubkey, scope: 'read', activated_at: null, revoked_at: null, intact: true });
    const readerToken = await adminLogin(t, reader);
    const me = await t.client.get('/api/v1/admin/me', { token: readerToken });
    expect(me.body.activated_at).to.be.a('string');
    expect((await t.client.get('/api/v1/admin/keys', { token: readerToken })).body.keys).to.have.length(2);
    expect((await t.client.get('/api/v1/admin/audit', { token: readerToken })).status).to.equal(200);
    const write = await t.client.post('/api/v1/admin/keys', { pubkey: new NostrKey().pubkey, scope: 'full' }, { token: readerToken });
    expect([write.status, write.body.error.code]).to.deep.equal([403, 'admin_forbidden']);
    const put = await t.client.request('PUT', '/api/v1/admin/config/landing', { json: { title: 'x' }, token: readerToken });
    expect([put.status, put.body.error.code]).to.deep.equal([403, 'admin_forbidden']);
    const revoke = await t.client.post(`/api/v1/admin/keys/${created.body.id}/revoke`, undefined, { token: readerToken });
    expect(revoke.status).to.equal(403);
    expect(await actions(t)).to.deep.equal(['setup_bootstrap', 'admin_login', 'admin_key_created', 'admin_key_activated', 'admin_login']);
  });

  it('keys are accepted as npub too; a live duplicate is 409, also when two requests race', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const other = new NostrKey();
    const npub = other.npub;
    const results = await Promise.all([0, 1, 2].map(() => t.client.post('/api/v1/admin/keys', { pubkey: npub, scope: 'full' }, { token })));
    expect(results.map((r) => r.status).sort()).to.deep.equal([201, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(['admin_key_exists', 'conflict']).to.include(r.body.error.code);
    expect(results.find((r) => r.status === 201)!.body.pubkey).to.equal(other.pubkey);
    const bad = await t.client.post('/api/v1/admin/keys', { pubkey: 'npub1nope', scope: 'full' }, { token });
    expect([bad.status, bad.body.error.details?.[0]?.path]).to.deep.equal([400, 'body.pubkey']);
    const badScope = await t.client.post('/api/v1/admin/keys', { pubkey: new NostrKey().pubkey, scope: 'root' }, { token });
    expect(badScope.status).to.equal(400);
  });

  it('revoking a key ends its sessions; the last full key cannot be revoked over HTTP', async () => {
    const { nostr, keyId } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const last = await t.client.post(`/api/v1/admin/keys/${keyId}/revoke`, undefined, { token });
    expect([last.status, last.body.error.code]).to.deep.equal([409, 'admin_last_key']);
    const second = new NostrKey();
    const created = await t.client.post('/api/v1/admin/keys', { pubkey: second.pubkey, scope: 'full' }, { token });
    const secondToken = await adminLogin(t, second);
    const revoked = await t.client.post(`/api/v1/admin/keys/${created.body.id}/revoke`, undefined, { token });
    expect(revoked.status).to.equal(200);
    expect(revoked.body.revoked_at).to.be.a('string');
    expect((await t.client.get('/api/v1/admin/me', { token: secondToken })).status).to.equal(401);
    expect((await adminLoginResponse(t, second)).body.error.code).to.equal('admin_login_refused');
    const again = await t.client.post(`/api/v1/admin/keys/${created.body.id}/revoke`, undefined, { token });
    expect([again.status, again.body.error.code]).to.deep.equal([404, 'admin_key_not_found']);
    expect((await t.client.post('/api/v1/admin/keys/not-a-uuid/revoke', undefined, { token })).status).to.equal(400);
    // The revoked public key may be allowed again: only live rows are unique.
    expect((await t.client.post('/api/v1/admin/keys', { pubkey: second.pubkey, scope: 'read' }, { token })).status).to.equal(201);
  });

  it('sessions cascade when their key row is deleted', async () => {
    const { nostr, keyId } = await bootstrapAdmin(t);
    await adminLogin(t, nostr);
    await adminLogin(t, nostr);
    expect(Number((await t.backend.db.knex('admin_sessions').count({ n: '*' }).first())!.n)).to.equal(2);
    await t.backend.db.knex('admin_keys').where({ id: keyId }).delete();
    expect(Number((await t.backend.db.knex('admin_sessions').count({ n: '*' }).first())!.n)).to.equal(0);
  });

  it('logout ends the session; sessions expire after ADMIN_SESSION_TTL_SEC', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    expect((await t.client.post('/api/v1/admin/logout', undefined, { token })).status).to.equal(204);
    expect((await t.client.get('/api/v1/admin/me', { token })).status).to.equal(401);
    const later = await adminLogin(t, nostr);
    t.clock.advance(599_000);
    expect((await t.client.get('/api/v1/admin/me', { token: later })).status).to.equal(200);
    t.clock.advance(2_000);
    expect((await t.client.get('/api/v1/admin/me', { token: later })).status).to.equal(401);
  });

  it('a key row edited in the database is refused on every lookup and listed as not intact', async () => {
    const { nostr, keyId } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const second = new NostrKey();
    const created = await t.client.post('/api/v1/admin/keys', { pubkey: second.pubkey, scope: 'read' }, { token });
    await adminLogin(t, second);
    await t.client.post(`/api/v1/admin/keys/${created.body.id}/revoke`, undefined, { token });
    // Un-revoke by hand: the MAC covers revoked_at, so the row is refused.
    await t.backend.db.knex('admin_keys').where({ id: created.body.id }).update({ revoked_at: null });
    expect((await adminLoginResponse(t, second)).body.error.code).to.equal('admin_login_refused');
    // Promote by hand: scope is sealed too, and the edited key's live session dies with it.
    await t.backend.db.knex('admin_keys').where({ id: keyId }).update({ scope: 'read' });
    expect((await t.client.get('/api/v1/admin/me', { token })).status).to.equal(401);
    expect((await adminLoginResponse(t, nostr)).body.error.code).to.equal('admin_login_refused');
    const keys = await t.backend.setup.listKeys();
    expect(keys.map((key) => [key.id, key.intact])).to.have.deep.members([
      [keyId, false],
      [created.body.id, false],
    ]);
    expect(t.logger.lines.some((line) => line.msg === 'admin key failed its integrity check; refusing it')).to.equal(true);
  });

  it('the audit route pages oldest first after a seq', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const page = await t.client.get('/api/v1/admin/audit?after_seq=1&limit=5', { token });
    expect(page.status).to.equal(200);
    expect(page.body.entries.map((e: { seq: number; action: string }) => [e.seq, e.action])).to.deep.equal([[2, 'admin_login']]);
    expect(page.body.entries[0].row_hash).to.match(/^[0-9a-f]{64}$/);
    expect((await t.client.get('/api/v1/admin/audit?limit=501', { token })).status).to.equal(400);
  });
});
