import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { createPeppers } from '../../../packages/core/src/crypto/index.js';
import { ManualClock } from '@wallet/backend-core/testing';
import { ExtensionLoginService, type ExtensionDeps } from '../../../packages/core/src/identity/extension-service.js';
import { BtcKey, eachDialect, extensionBody, NostrKey, rotationSignature, TEST_PUBLIC_API_URL, TEST_SECRETS, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * POST /auth/extension refusals the main suite does not reach: signatures of a valid shape from
 * which no key can be recovered (a 401 or no rotation, never a 500), a rotation attempt against
 * an account of the same seed that has no BTC key on file, and the replay guard outliving the
 * ±300 s window.
 */

const REGISTER = '/api/v1/auth/nostr/register';

/** A base64 compact signature (65 bytes) with this header byte and r, s: shaped like a real one. */
function compactSignature(header: number, rs: Uint8Array = new Uint8Array(64)): string {
  return Buffer.concat([Buffer.from([header]), Buffer.from(rs)]).toString('base64');
}

/** secp256k1's group order n: r or s equal to it is out of range. */
const CURVE_ORDER = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');

/** Signatures that pass the route's shape check but recover no key. */
function unrecoverableSignatures(btc: BtcKey, message: string): Array<{ label: string; signature: string }> {
  const real = Buffer.from(btc.signMessage(message), 'base64');
  return [
    { label: 'r = s = 0', signature: compactSignature(31) },
    { label: 'r = s = the curve order', signature: compactSignature(31, Buffer.concat([CURVE_ORDER, CURVE_ORDER])) },
    { label: 'header 26 (below the range)', signature: compactSignature(26, real.subarray(1)) },
    { label: 'header 43 (above the range)', signature: compactSignature(43, real.subarray(1)) },
  ];
}

/** Written out here, not taken from the server: the login text of docs/wallet-integration.md. */
function loginMessage(pubkeyHash: string, timestamp: number): string {
  return `Wallet Backend login\nservice: ${TEST_PUBLIC_API_URL}\npubkey_hash: ${pubkeyHash}\ntimestamp: ${timestamp}`;
}

function pepper(value: string): string {
  return createHmac('sha256', TEST_SECRETS.pepperSecret).update(value).digest('hex');
}

async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

eachDialect('identity: POST /auth/extension, signatures that recover no key and odd rotation targets', (dialect) => {
  const t = useTestBackend(dialect);
  const login = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);

  it('a login signature of a valid shape that recovers no key is 401 proof_invalid, never a 500, and spends nothing', async () => {
    const btc = new BtcKey();
    const body = extensionBody(btc, t.clock.now());
    for (const { label, signature } of unrecoverableSignatures(btc, loginMessage(btc.pubkeyHash, body.timestamp as number))) {
      expect(signature, label).to.match(/^[A-Za-z0-9+/]{86}[AEIMQUYcgkosw048]=$/);
      const res = await login({ ...body, signature });
      expect(res.status, label).to.equal(401);
      expect(res.body.error.code, label).to.equal('proof_invalid');
    }
    expect(await count(t, 'users')).to.equal(0);
    expect(await count(t, 'spent_proofs')).to.equal(0);
    // The real signature of the same request still logs in.
    expect((await login(body)).status).to.equal(200);
  });

  it('a rotation_signature of a valid shape that recovers no key rotates nothing: a new account, the old one untouched', async () => {
    const oldKey = new BtcKey();
    const first = await login(extensionBody(oldKey, t.clock.now(), { seed_fingerprint: 'cafebabe' }));
    expect(first.status).to.equal(200);
    const before = await t.backend.db.knex('users').where({ id: first.body.user_id }).first();
    const newKey = new BtcKey();
    const timestamp = Math.floor(t.clock.now().getTime() / 1000);
    const rotationText = `Wallet Backend key rotation\nservice: ${TEST_PUBLIC_API_URL}\nnew_pubkey_hash: ${newKey.pubkeyHash}\ntimestamp: ${timestamp}`;
    const candidates = unrecoverableSignatures(oldKey, rotationText);
    for (const [i, { label, signature }] of candidates.entries()) {
      // Each attempt is a fresh wallet key, so each one registers (no replay, no known identity).
      const key = i === 0 ? newKey : new BtcKey();
      const res = await login(extensionBody(key, t.clock.now(), { seed_fingerprint: 'cafebabe', rotation_signature: signature }));
      expect(res.status, label).to.equal(200);
      expect(res.body.user_id, label).to.not.equal(first.body.user_id);
    }
    expect(await t.backend.db.knex('users').where({ id: first.body.user_id }).first()).to.deep.equal(before);
    expect(await count(t, 'users')).to.equal(1 + candidates.length);
  });

  it('a rotation attempt whose seed names an account without a BTC key on file (Nostr-registered) creates a new account, no 500', async () => {
    const nostr = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const registered = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: 'cafebabe' });
    expect(registered.status).to.equal(200);
    const before = await t.backend.db.knex('users').where({ id: registered.body.user_id }).first();
    expect(before.pubkey_hash).to.equal(null);
    expect(await t.backend.db.knex('user_keys').where({ user_id: registered.body.user_id })).to.deep.equal([]);

    const newKey = new BtcKey();
    const body = extensionBody(newKey, t.clock.now(), { seed_fingerprint: 'CAFEBABE' });
    body.rotation_signature = rotationSignature(new BtcKey(), newKey.pubkeyHash, body.timestamp as number);
    const res = await login(body);
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.not.equal(registered.body.user_id);
    expect(await t.backend.db.knex('users').where({ id: registered.body.user_id }).first()).to.deep.equal(before);
    const created = await t.backend.db.knex('users').where({ id: res.body.user_id }).first();
    expect(created.pubkey_hash).to.equal(pepper(newKey.pubkeyHash));
    expect(created.seed_fingerprint).to.equal(pepper('cafebabe'));
  });
});

eachDialect('identity: POST /auth/extension, the spent proof outlives the ±300 s window', (dialect) => {
  const t = useTestBackend(dialect);
  const login = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);
  const sweep = () => t.backend.scheduler.runNow('core-identity.spent-proof-sweep');

  it('a replay at the last accepted second after a sweep is still proof_replayed; the row expires exactly 600 s after the timestamp', async () => {
    const btc = new BtcKey();
    const body = extensionBody(btc, t.clock.now());
    const timestamp = body.timestamp as number;
    expect((await login(body)).status).to.equal(200);
    const proofKey = `extension:${pepper(btc.pubkeyHash)}:${timestamp}`;
    const rows = async () => (await t.backend.db.knex('spent_proofs').where({ proof_key: proofKey }).select('proof_key')).length;
    expect(await rows()).to.equal(1);

    // The last instant the timestamp is accepted (skew 300 s): the sweep keeps the proof, the replay is refused.
    t.clock.set(new Date((timestamp + 300) * 1000 + 999));
    expect(await sweep()).to.equal(true);
    expect(await rows()).to.equal(1);
    const replay = await login(body);
    expect(replay.status).to.equal(401);
    expect(replay.body.error.code).to.equal('proof_replayed');

    // One second later the timestamp is too old anyway.
    t.clock.set(new Date((timestamp + 301) * 1000));
    expect((await login(body)).body.error.code).to.equal('proof_expired');

    // The row lives until timestamp + 2 × 300 s, to the millisecond.
    t.clock.set(new Date((timestamp + 600) * 1000 - 1));
    await sweep();
    expect(await rows()).to.equal(1);
    t.clock.set(new Date((timestamp + 600) * 1000));
    await sweep();
    expect(await rows()).to.equal(0);
    expect(await count(t, 'sessions')).to.equal(1);
  });
});

describe('identity: ExtensionLoginService, a unique violation inside the login transaction', () => {
  /** A login whose transaction always fails with `violation`; how often it ran, and what the login threw. */
  async function loginFailingWith(violation: Error): Promise<{ runs: number; err: { code?: string; status?: number; cause?: unknown } }> {
    let runs = 0;
    const btc = new BtcKey();
    const clock = new ManualClock();
    const deps = {
      db: { transaction: async () => (runs++, Promise.reject(violation)) },
      identities: { byPubkeyHash: async () => null },
      keys: { provenOwner: async () => null },
      gates: { precheck: async () => undefined },
      peppers: createPeppers(TEST_SECRETS.pepperSecret, TEST_SECRETS.ipHashSalt),
      clock,
      service: TEST_PUBLIC_API_URL,
      network: 'mainnet',
    } as unknown as ExtensionDeps;
    const body = extensionBody(btc, clock.now());
    const request = { pubkey_hash: btc.pubkeyHash, seed_fingerprint: 'a1b2c3d4', keys: [], timestamp: body.timestamp as number, signature: body.signature as string };
    const err = await new ExtensionLoginService(deps).login(request, '127.0.0.1').then(
      () => expect.fail('the login should have failed'),
      (e: unknown) => e as { code?: string; status?: number; cause?: unknown },
    );
    return { runs, err };
  }

  it('on the pubkey_hash, twice, is 409 identity_conflict carrying the database error as its cause', async () => {
    // Postgres names the key's columns in `detail` (with the value, which the server never logs).
    const violation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', table: 'users', constraint: 'users_pubkey_hash_unique', detail: 'Key (pubkey_hash)=(00) already exists.' });
    const { runs, err } = await loginFailingWith(violation);
    expect(err.code).to.equal('identity_conflict');
    expect(err.status).to.equal(409);
    expect(err.cause).to.equal(violation);
    expect(runs, 'one retry: a concurrent first login of the same wallet is found by it').to.equal(2);
  });

  it('on an index that is not an identity key, passes the error on unchanged and does not retry (not an identity conflict)', async () => {
    const violation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', table: 'login_events', constraint: 'login_events_pkey', detail: 'Key (id)=(00) already exists.' });
    const { runs, err } = await loginFailingWith(violation);
    expect(err).to.equal(violation);
    expect(runs).to.equal(1);
  });
});
