import { expect } from 'chai';
import { BtcKey, eachDialect, GrinKey, extensionBody, NostrKey, rotationSignature, useTestBackend, type TestBackend } from '../../harness/index.js';
import { recordingGate } from './gate-plugin.js';

async function count(t: TestBackend, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const [row] = await t.backend.db.knex(table).where(where).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

eachDialect('identity: POST /auth/extension', (dialect) => {
  const gate = recordingGate();
  const t = useTestBackend(dialect, { plugins: [gate.plugin] });
  const register = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);

  beforeEach(() => {
    gate.attempts.length = 0;
    gate.refuse = false;
  });

  it('registers a new wallet through the gates and stores only peppered identity hashes', async () => {
    const btc = new BtcKey();
    const res = await register(extensionBody(btc, t.clock.now(), { seed_fingerprint: 'DEADBEEF' }));
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ platform: 'extension', token_type: 'Bearer' });
    expect(gate.attempts).to.have.length(1);
    expect(gate.attempts[0]!.identity).to.deep.equal({ kind: 'pubkey_hash', value: btc.pubkeyHash });
    const user = await t.backend.db.knex('users').where({ id: res.body.user_id }).first();
    expect(user.pubkey_hash).to.match(/^[0-9a-f]{64}$/).and.not.equal(btc.pubkeyHash);
    expect(user.seed_fingerprint).to.match(/^[0-9a-f]{64}$/).and.not.include('deadbeef');
    const key = await t.backend.db.knex('user_keys').where({ user_id: res.body.user_id, asset: 'btc' }).first();
    expect(key).to.include({ key_type: 'primary', public_key: btc.publicKeyHex });
    const event = await t.backend.db.knex('login_events').where({ user_id: res.body.user_id }).first();
    expect(event.platform).to.equal('extension');
    expect(event.ip_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(event)).to.not.include('127.0.0.1');
    expect((await t.client.get('/api/v1/auth/me', { token: res.body.access_token })).status).to.equal(200);
  });

  it('logs a known wallet in without running the gates, and upserts its keys', async () => {
    const btc = new BtcKey();
    const first = await register(extensionBody(btc, t.clock.now()));
    gate.refuse = true;
    t.clock.advance(1000);
    const grin = new GrinKey();
    const again = await register(extensionBody(btc, t.clock.now(), { keys: [{ asset: 'grin', public_key: grin.publicKeyHex }] }));
    expect(again.status).to.equal(200);
    expect(again.body.user_id).to.equal(first.body.user_id);
    expect(gate.attempts).to.have.length(1);
    expect(await count(t, 'users')).to.equal(1);
    expect(await count(t, 'user_keys', { user_id: first.body.user_id, asset: 'grin', public_key: grin.publicKeyHex })).to.equal(1);
  });

  it('accepts a timestamp at most once per identity (a captured proof is useless)', async () => {
    const btc = new BtcKey();
    const body = extensionBody(btc, t.clock.now());
    expect((await register(body)).status).to.equal(200);
    const replay = await register(body);
    expect(replay.status).to.equal(401);
    expect(replay.body.error.code).to.equal('proof_replayed');
    expect(await count(t, 'sessions')).to.equal(1);
  });

  it('refuses a timestamp outside ±300 s, a signature by another key and a pubkey_hash that is not the signer', async () => {
    const btc = new BtcKey();
    const stale = extensionBody(btc, new Date(t.clock.now().getTime() - 301_000));
    expect((await register(stale)).body.error.code).to.equal('proof_expired');
    const early = extensionBody(btc, new Date(t.clock.now().getTime() + 301_000));
    expect((await register(early)).body.error.code).to.equal('proof_expired');
    const edge = extensionBody(btc, new Date(t.clock.now().getTime() - 300_000));
    expect((await register(edge)).status).to.equal(200);

    const other = new BtcKey();
    const forged = { ...extensionBody(btc, t.clock.now()), signature: extensionBody(other, t.clock.now()).signature };
    const res = await register(forged);
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('proof_invalid');
    const wrongHash = { ...extensionBody(other, t.clock.now()), pubkey_hash: btc.pubkeyHash };
    expect((await register(wrongHash)).status).to.equal(401);
    expect(await count(t, 'users')).to.equal(1);
  });

  it('refuses keys that do not match the proven key or are invalid, changing nothing', async () => {
    const btc = new BtcKey();
    const mismatch = await register(extensionBody(btc, t.clock.now(), { keys: [{ asset: 'btc', public_key: new BtcKey().publicKeyHex }] }));
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.error.code).to.equal('key_mismatch');
    const invalid = await register(extensionBody(btc, t.clock.now(), { keys: [{ asset: 'grin', public_key: 'not-a-key' }] }));
    expect(invalid.status).to.equal(400);
    expect(invalid.body.error.code).to.equal('key_invalid');
    const badShape = await register({ ...extensionBody(btc, t.clock.now()), pubkey_hash: 'xyz' });
    expect(badShape.status).to.equal(400);
    expect(await count(t, 'users')).to.equal(0);
    expect(await count(t, 'spent_proofs')).to.equal(0);
    // The proof was not spent by the refused attempts.
    expect((await register(extensionBody(btc, t.clock.now()))).status).to.equal(200);
  });

  it('a known seed at a new pubkey_hash without a rotation proof creates a new account and leaves the old one alone', async () => {
    const oldKey = new BtcKey();
    const first = await register(extensionBody(oldKey, t.clock.now(), { seed_fingerprint: 'cafebabe' }));
    const before = await t.backend.db.knex('users').where({ id: first.body.user_id }).first();
    const newKey = new BtcKey();
    const second = await register(extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'cafebabe' }));
    expect(second.status).to.equal(200);
    expect(second.body.user_id).to.not.equal(first.body.user_id);
    expect(await t.backend.db.knex('users').where({ id: first.body.user_id }).first()).to.deep.equal(before);
  });

  it('a rotation proof by a key that is not on file creates a new account too', async () => {
    const oldKey = new BtcKey();
    const first = await register(extensionBody(oldKey, t.clock.now(), { seed_fingerprint: 'cafebabe' }));
    const newKey = new BtcKey();
    const body = extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'cafebabe' });
    body.rotation_signature = rotationSignature(new BtcKey(), newKey.pubkeyHash, body.timestamp as number);
    const res = await register(body);
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.not.equal(first.body.user_id);
  });

  it('a rotation proof by the key on file that the account never PROVED (advertised in a Nostr registration) re-points nothing', async () => {
    // The account of seed cafebabe lists oldKey as its BTC key without ever having proved it:
    // anyone may type a public key into a registration, so holding it proves nothing of the account.
    const oldKey = new BtcKey();
    const nostr = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce as string;
    const path = '/api/v1/auth/nostr/register';
    const account = await t.client.post(path, { nostr_token: nostr.signedAction(path, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: 'cafebabe', keys: [{ asset: 'btc', public_key: oldKey.publicKeyHex }] });
    expect(account.status, account.text).to.equal(200);
    const before = await t.backend.db.knex('users').where({ id: account.body.user_id }).first();
    const newKey = new BtcKey();
    const body = extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'cafebabe' });
    body.rotation_signature = rotationSignature(oldKey, newKey.pubkeyHash, body.timestamp as number);
    const res = await register(body);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.user_id).to.not.equal(account.body.user_id);
    expect(await t.backend.db.knex('users').where({ id: account.body.user_id }).first()).to.deep.equal(before);
  });

  it('a valid rotation proof re-points the account, through the gates', async () => {
    const oldKey = new BtcKey();
    const first = await register(extensionBody(oldKey, t.clock.now(), { seed_fingerprint: 'cafebabe' }));
    const newKey = new BtcKey();
    const body = extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'cafebabe' });
    body.rotation_signature = rotationSignature(oldKey, newKey.pubkeyHash, body.timestamp as number);

    gate.refuse = true;
    const refused = await register(body);
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('gate_refused');
    expect(gate.attempts.at(-1)!.identity).to.deep.equal({ kind: 'pubkey_hash', value: newKey.pubkeyHash });
    const untouched = await t.backend.db.knex('users').where({ id: first.body.user_id }).first();

    gate.refuse = false;
    t.clock.advance(1000);
    const retry = extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'cafebabe' });
    retry.rotation_signature = rotationSignature(oldKey, newKey.pubkeyHash, retry.timestamp as number);
    const res = await register(retry);
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.equal(first.body.user_id);
    const after = await t.backend.db.knex('users').where({ id: first.body.user_id }).first();
    expect(after.pubkey_hash).to.not.equal(untouched.pubkey_hash);
    const key = await t.backend.db.knex('user_keys').where({ user_id: first.body.user_id, asset: 'btc' }).first();
    expect(key.public_key).to.equal(newKey.publicKeyHex);
    expect(await count(t, 'users')).to.equal(1);
  });

  it('a gate refusal creates nothing', async () => {
    gate.refuse = true;
    const res = await register(extensionBody(new BtcKey(), t.clock.now()));
    expect(res.status).to.equal(400);
    expect(await count(t, 'users')).to.equal(0);
    expect(await count(t, 'sessions')).to.equal(0);
  });

  it('concurrent first registrations of one key end with one account and no 500', async () => {
    const btc = new BtcKey();
    const bodies = Array.from({ length: 8 }, (_, i) => extensionBody(btc, new Date(t.clock.now().getTime() - i * 1000)));
    const results = await Promise.all(bodies.map((body) => register(body)));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409), statuses.join()).to.equal(true);
    expect(statuses).to.include(200);
    expect(await count(t, 'users')).to.equal(1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).to.equal('identity_conflict');
  });
});
