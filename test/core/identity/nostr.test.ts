import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, mergeSignature, NostrKey, provenKeyBody, seedSession, seedUser, useTestBackend, type TestBackend } from '../../harness/index.js';
import { recordingGate } from './gate-plugin.js';

const LINK = '/api/v1/auth/nostr/link';
const REGISTER = '/api/v1/auth/nostr/register';

async function linkNonce(t: TestBackend, token: string): Promise<string> {
  const res = await t.client.get('/api/v1/auth/nostr/link-challenge', { token });
  expect(res.status).to.equal(200);
  expect(res.body.nonce).to.match(/^[0-9a-f]{64}$/);
  expect(res.body.purpose).to.equal('nostr_link');
  return res.body.nonce;
}

async function registerNonce(t: TestBackend): Promise<string> {
  const res = await t.client.get('/api/v1/auth/nostr/register-challenge');
  expect(res.status).to.equal(200);
  return res.body.nonce;
}

eachDialect('identity: Nostr login', (dialect) => {
  const t = useTestBackend(dialect);
  const login = (authorization: string, raw?: string) =>
    t.client.request('POST', '/api/v1/auth/nostr', { headers: { authorization, ...(raw ? { 'content-type': 'application/json' } : {}) }, ...(raw ? { raw } : {}) });

  it('logs a linked npub in on the nostr platform; a captured header is good for one login', async () => {
    const nostr = new NostrKey();
    const user = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const header = nostr.nip98('/api/v1/auth/nostr', t.clock.now());
    const res = await login(header);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ user_id: user.id, platform: 'nostr' });
    const replay = await login(header);
    expect(replay.status).to.equal(401);
    expect(replay.body.error.code).to.equal('proof_replayed');
  });

  it('never creates an account: an unlinked npub is 401', async () => {
    const res = await login(new NostrKey().nip98('/api/v1/auth/nostr', t.clock.now()));
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('nostr_not_linked');
    const [row] = await t.backend.db.knex('users').count({ n: '*' });
    expect(Number((row as { n: unknown }).n)).to.equal(0);
  });

  it('checks the canonical URL, never the Host header, and the time window', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const local = `Nostr ${nostr.event([['u', `${t.client.baseUrl}/api/v1/auth/nostr`], ['method', 'POST']], Math.floor(t.clock.now().getTime() / 1000))}`;
    expect((await login(local)).status).to.equal(401);
    const old = nostr.nip98('/api/v1/auth/nostr', new Date(t.clock.now().getTime() - 61_000));
    expect((await login(old)).status).to.equal(401);
    expect((await login('Bearer nonsense')).status).to.equal(401);
    const withBody = nostr.nip98('/api/v1/auth/nostr', t.clock.now());
    expect((await login(withBody, '{"a":1}')).body.error.code).to.equal('proof_invalid');
    expect((await login(nostr.nip98('/api/v1/auth/nostr', t.clock.now(), { body: '{"a":1}' }), '{"a":1}')).status).to.equal(200);
  });
});

eachDialect('identity: Nostr link (signed action nostr_link)', (dialect) => {
  const t = useTestBackend(dialect);
  const link = (token: string, nostrToken: string, nonce: string) => t.client.post(LINK, { nostr_token: nostrToken, nonce }, { token });

  it('links the npub proven by the signed action to the bearer', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const nostr = new NostrKey();
    const nonce = await linkNonce(t, auth.access_token);
    const res = await link(auth.access_token, nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ nostr_pubkey: nostr.pubkey });
    expect((await t.backend.db.knex('users').where({ id: userId }).first()).nostr_pubkey).to.equal(nostr.pubkey);
    expect((await t.client.post('/api/v1/auth/nostr', undefined, { headers: { authorization: nostr.nip98('/api/v1/auth/nostr', t.clock.now()) } })).status).to.equal(200);
  });

  it('refuses a replayed nonce', async () => {
    const { auth } = await seedSession(t.backend);
    const nostr = new NostrKey();
    const nonce = await linkNonce(t, auth.access_token);
    const proof = nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now());
    expect((await link(auth.access_token, proof, nonce)).status).to.equal(200);
    const replay = await link(auth.access_token, proof, nonce);
    expect(replay.status).to.equal(401);
    expect(replay.body.error.code).to.equal('nonce_invalid');
  });

  it('refuses an expired nonce', async () => {
    const { auth } = await seedSession(t.backend);
    const nonce = await linkNonce(t, auth.access_token);
    t.clock.advance(301_000);
    const res = await link(auth.access_token, new NostrKey().signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce);
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('nonce_invalid');
  });

  it('a wrong purpose, a wrong descriptor or a bad signature is refused and consumes nothing', async () => {
    const { auth } = await seedSession(t.backend);
    const nostr = new NostrKey();
    const nonce = await linkNonce(t, auth.access_token);
    const wrongPurpose = await link(auth.access_token, nostr.signedAction(LINK, nonce, 'nostr_register', t.clock.now()), nonce);
    expect(wrongPurpose.status).to.equal(401);
    expect(wrongPurpose.body.error.code).to.equal('signed_action_invalid');
    const wrongDescriptor = await link(auth.access_token, nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now(), { descriptorPath: REGISTER }), nonce);
    expect(wrongDescriptor.body.error.code).to.equal('signed_action_invalid');
    const otherNonce = await link(auth.access_token, nostr.signedAction(LINK, 'f'.repeat(64), 'nostr_link', t.clock.now()), nonce);
    expect(otherNonce.body.error.code).to.equal('signed_action_invalid');
    const event = JSON.parse(Buffer.from(nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), 'base64').toString());
    event.sig = event.sig.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a'));
    const forged = await link(auth.access_token, Buffer.from(JSON.stringify(event)).toString('base64'), nonce);
    expect(forged.body.error.code).to.equal('signed_action_invalid');
    // None of them burned the nonce.
    expect((await link(auth.access_token, nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce)).status).to.equal(200);
  });

  it("another user's nonce is refused and stays usable by its owner", async () => {
    const alice = await seedSession(t.backend);
    const bob = await seedSession(t.backend);
    const bobsNonce = await linkNonce(t, bob.auth.access_token);
    const nostr = new NostrKey();
    const stolen = await link(alice.auth.access_token, nostr.signedAction(LINK, bobsNonce, 'nostr_link', t.clock.now()), bobsNonce);
    expect(stolen.status).to.equal(401);
    expect(stolen.body.error.code).to.equal('nonce_invalid');
    expect((await link(bob.auth.access_token, nostr.signedAction(LINK, bobsNonce, 'nostr_link', t.clock.now()), bobsNonce)).status).to.equal(200);
  });

  it('an npub linked to another account is 409', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const { auth } = await seedSession(t.backend);
    const nonce = await linkNonce(t, auth.access_token);
    const res = await link(auth.access_token, nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce);
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('nostr_already_linked');
  });

  it('two concurrent links with one nonce: exactly one winner', async () => {
    const { auth } = await seedSession(t.backend);
    const nonce = await linkNonce(t, auth.access_token);
    const proofs = Array.from({ length: 10 }, () => new NostrKey()).map((key) => key.signedAction(LINK, nonce, 'nostr_link', t.clock.now()));
    const results = await Promise.all(proofs.map((proof) => link(auth.access_token, proof, nonce)));
    expect(results.filter((r) => r.status === 200)).to.have.length(1);
    expect(results.filter((r) => r.status === 401 && r.body.error.code === 'nonce_invalid')).to.have.length(9);
  });

  it('needs a bearer token', async () => {
    expect((await t.client.get('/api/v1/auth/nostr/link-challenge')).status).to.equal(401);
    expect((await t.client.post(LINK, { nostr_token: 'x', nonce: 'a'.repeat(64) })).status).to.equal(401);
  });
});

eachDialect('identity: Nostr register (signed action nostr_register)', (dialect) => {
  const gate = recordingGate();
  const t = useTestBackend(dialect, { plugins: [gate.plugin] });
  beforeEach(() => {
    gate.attempts.length = 0;
    gate.refuse = false;
  });

  async function register(nostr: NostrKey, fields: Record<string, unknown> = {}) {
    const nonce = await registerNonce(t);
    return t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', ...fields });
  }

  it('creates an account for a new npub through the gates, keyed on the npub, then logs it in again', async () => {
    const nostr = new NostrKey();
    const btc = new BtcKey();
    const first = await register(nostr, { keys: [{ asset: 'btc', public_key: btc.publicKeyHex }] });
    expect(first.status).to.equal(200);
    expect(first.body.platform).to.equal('nostr');
    expect(gate.attempts.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    const again = await register(nostr);
    expect(again.body.user_id).to.equal(first.body.user_id);
    expect(gate.attempts).to.have.length(1);
    // The BTC key listed here proved nothing: it never becomes the account's identity.
    expect((await t.backend.db.knex('users').where({ id: first.body.user_id }).first()).pubkey_hash).to.equal(null);
    // Once the account proves it (a key proof on POST /keys), the extension logs into the same account.
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) }, first.body.user_id), { token: again.body.access_token });
    expect(proof.status).to.equal(200);
    const ext = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    expect(ext.body.user_id).to.equal(first.body.user_id);
  });

  it('joins the wallet’s account only with a signature by its proven BTC key, without gates', async () => {
    const btc = new BtcKey();
    const ext = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    gate.attempts.length = 0;
    gate.refuse = true;
    const nostr = new NostrKey();
    const nonce = await registerNonce(t);
    const res = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', merge_signature: mergeSignature(btc, nostr.pubkey, nonce) });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.user_id).to.equal(ext.body.user_id);
    expect(gate.attempts).to.have.length(0);
    expect((await t.backend.db.knex('users').where({ id: ext.body.user_id }).first()).nostr_pubkey).to.equal(nostr.pubkey);
  });

  it('the same seed without the proof is a new identity: through the gates, its own account', async () => {
    const ext = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { seed_fingerprint: '0badc0de' }));
    gate.attempts.length = 0;
    gate.refuse = true;
    const nostr = new NostrKey();
    const refused = await register(nostr);
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'gate_refused']);
    gate.refuse = false;
    const res = await register(nostr);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.user_id).to.not.equal(ext.body.user_id);
    expect(gate.attempts.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }, { kind: 'npub', value: nostr.pubkey }]);
    expect((await t.backend.db.knex('users').where({ id: ext.body.user_id }).first()).nostr_pubkey).to.equal(null);
  });

  it('a proven wallet whose account holds another npub is 409 seed_registered_elsewhere; without the proof, a new account', async () => {
    const btc = new BtcKey();
    const ext = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    const join = async (nostr: NostrKey) => {
      const nonce = await registerNonce(t);
      return t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', merge_signature: mergeSignature(btc, nostr.pubkey, nonce) });
    };
    expect((await join(new NostrKey())).body.user_id).to.equal(ext.body.user_id);
    const res = await join(new NostrKey());
    expect([res.status, res.body.error?.code]).to.deep.equal([409, 'seed_registered_elsewhere']);
    const unproven = await register(new NostrKey());
    expect(unproven.status).to.equal(200);
    expect(unproven.body.user_id).to.not.equal(ext.body.user_id);
  });

  it('a proven wallet registering with an npub already linked to another account is 409 nostr_already_linked', async () => {
    const btc = new BtcKey();
    await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()));
    const nostr = new NostrKey();
    const other = await register(nostr);
    expect(other.status).to.equal(200);
    const nonce = await registerNonce(t);
    const res = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', merge_signature: mergeSignature(btc, nostr.pubkey, nonce) });
    expect([res.status, res.body.error?.code]).to.deep.equal([409, 'nostr_already_linked']);
  });

  it('refuses a link nonce, a replayed nonce and a gate refusal creates nothing', async () => {
    const { auth } = await seedSession(t.backend);
    const linkNonceValue = await linkNonce(t, auth.access_token);
    const nostr = new NostrKey();
    const crossed = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, linkNonceValue, 'nostr_register', t.clock.now()), nonce: linkNonceValue, seed_fingerprint: '12345678' });
    expect(crossed.status).to.equal(401);
    expect(crossed.body.error.code).to.equal('nonce_invalid');

    gate.refuse = true;
    const refused = await register(nostr);
    expect(refused.status).to.equal(400);
    const [row] = await t.backend.db.knex('users').whereNotNull('nostr_pubkey').count({ n: '*' });
    expect(Number((row as { n: unknown }).n)).to.equal(0);
  });
});
