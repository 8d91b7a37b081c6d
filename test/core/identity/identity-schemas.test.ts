import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, seedSession, useTestBackend, type TestResponse } from '../../harness/index.js';

/**
 * The identity routes' body schemas (identity/schemas.ts): every refusal with its literal
 * message and path, and the bounds' last accepted values reaching the services.
 */

type Detail = { path: string; message: string };

function details(res: TestResponse, label: string): Detail[] {
  expect(res.status, label).to.equal(400);
  expect(res.body.error.code, label).to.equal('invalid_request');
  return res.body.error.details;
}

const HEX = '0123456789abcdefABCDEF';
const hex = (n: number) => Array.from({ length: n }, (_, i) => HEX[i % HEX.length]).join('');
const PUBKEY_HASH = 'must be 40 hex characters (HASH160 of the compressed BTC public key)';
const FINGERPRINT = 'must be 8 to 128 hex characters';
const NONCE = 'must be the 64-hex nonce';

eachDialect('identity schemas: request bodies', (dialect) => {
  const t = useTestBackend(dialect);

  it('POST /auth/extension: each field refused with its message', async () => {
    const base = extensionBody(new BtcKey(), t.clock.now());
    const cases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ pubkey_hash: 5 }, [{ path: 'body.pubkey_hash', message: 'must be a string' }]],
      [{ pubkey_hash: hex(39) }, [{ path: 'body.pubkey_hash', message: PUBKEY_HASH }]],
      [{ pubkey_hash: hex(41) }, [{ path: 'body.pubkey_hash', message: PUBKEY_HASH }]],
      [{ pubkey_hash: `${hex(39)}g` }, [{ path: 'body.pubkey_hash', message: PUBKEY_HASH }]],
      [{ pubkey_hash: `x${hex(40)}` }, [{ path: 'body.pubkey_hash', message: PUBKEY_HASH }]],
      [{ seed_fingerprint: 5 }, [{ path: 'body.seed_fingerprint', message: 'must be a string' }]],
      [{ seed_fingerprint: hex(7) }, [{ path: 'body.seed_fingerprint', message: FINGERPRINT }]],
      [{ seed_fingerprint: hex(129) }, [{ path: 'body.seed_fingerprint', message: FINGERPRINT }]],
      [{ seed_fingerprint: 'a1b2c3d-' }, [{ path: 'body.seed_fingerprint', message: FINGERPRINT }]],
      [{ keys: 'btc' }, [{ path: 'body.keys', message: 'must be a list of keys' }]],
      [{ keys: Array.from({ length: 11 }, (_, i) => ({ asset: 'btc', public_key: `k${i}` })) }, [{ path: 'body.keys', message: 'has too many keys' }]],
      [{ timestamp: '1' }, [{ path: 'body.timestamp', message: 'must be a number' }]],
      [{ timestamp: 1.5 }, [{ path: 'body.timestamp', message: 'must be whole seconds' }]],
      [{ timestamp: -1 }, [{ path: 'body.timestamp', message: 'must be a unix time' }]],
      [{ signature: 5 }, [{ path: 'body.signature', message: 'must be a string' }]],
      [{ signature: '' }, [{ path: 'body.signature', message: 'must not be empty' }]],
      [{ signature: 's'.repeat(201) }, [{ path: 'body.signature', message: 'is too long' }]],
      [{ rotation_signature: '' }, [{ path: 'body.rotation_signature', message: 'must not be empty' }]],
      [{ rotation_signature: 's'.repeat(201) }, [{ path: 'body.rotation_signature', message: 'is too long' }]],
      [{ altcha_solution: '' }, [{ path: 'body.altcha_solution', message: 'must not be empty' }]],
      [{ altcha_solution: 'a'.repeat(4097) }, [{ path: 'body.altcha_solution', message: 'is too long' }]],
      [{ invite_code: 'i'.repeat(65) }, [{ path: 'body.invite_code', message: 'is too long' }]],
      [{ payment_invoice_id: 'p'.repeat(129) }, [{ path: 'body.payment_invoice_id', message: 'is too long' }]],
      [{ extra: 1 }, [{ path: 'body.extra', message: 'Invalid key: Expected never but received "extra"' }]],
    ];
    for (const [fields, expected] of cases) {
      const label = JSON.stringify(fields).slice(0, 60);
      expect(details(await t.client.post('/api/v1/auth/extension', { ...base, ...fields }), label), label).to.deep.equal(expected);
    }
  });

  it('POST /auth/extension: the last accepted values pass the schema and log in', async () => {
    // No keys (defaults to none), an 8- and a 128-hex fingerprint in mixed case, gate inputs at their bounds.
    for (const fields of [
      { seed_fingerprint: hex(8) },
      { seed_fingerprint: hex(128), altcha_solution: 'a'.repeat(4096), invite_code: 'i'.repeat(64), payment_invoice_id: 'p'.repeat(128) },
    ]) {
      const btc = new BtcKey();
      const { keys: _keys, ...body } = extensionBody(btc, t.clock.now(), fields);
      const res = await t.client.post('/api/v1/auth/extension', body);
      expect(res.status, JSON.stringify(fields).slice(0, 60)).to.equal(200);
      const keys = await t.client.get(`/api/v1/users/${res.body.user_id}/keys`, { token: res.body.access_token });
      expect(keys.status).to.equal(200);
      // Only the BTC key the login proved: no submitted keys (an omitted list is an empty one).
      expect(keys.body.keys).to.deep.equal([{ asset: 'btc', key_type: 'primary', public_key: btc.publicKeyHex, public_spend_key: null, proven: true }]);
    }
    // Timestamp 0 and a 200-character signature are well-formed: the proof is what fails.
    for (const fields of [{ timestamp: 0 }, { signature: 's'.repeat(200) }]) {
      const res = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), fields));
      expect(res.status, JSON.stringify(fields).slice(0, 40)).to.equal(401);
    }
  });

  it('POST /auth/check-restore: refusals with their messages, and well-formed bodies answered', async () => {
    const cases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ seed_fingerprint: hex(7) }, [{ path: 'body.seed_fingerprint', message: FINGERPRINT }]],
      [{ seed_fingerprint: 7 }, [{ path: 'body.seed_fingerprint', message: 'must be a string' }]],
      [{ seed_fingerprint: hex(8), pubkey_hash: hex(39) }, [{ path: 'body.pubkey_hash', message: PUBKEY_HASH }]],
      [{ seed_fingerprint: hex(8), other: true }, [{ path: 'body.other', message: 'Invalid key: Expected never but received "other"' }]],
    ];
    for (const [body, expected] of cases) {
      const label = JSON.stringify(body).slice(0, 60);
      expect(details(await t.client.post('/api/v1/auth/check-restore', body), label), label).to.deep.equal(expected);
    }
    for (const body of [{ seed_fingerprint: hex(8) }, { seed_fingerprint: hex(128), pubkey_hash: hex(40) }]) {
      const res = await t.client.post('/api/v1/auth/check-restore', body);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ exists: false, valid: false });
    }
  });

  it('POST /auth/nostr/link and /auth/nostr/register: token and nonce refusals with their messages', async () => {
    const { auth } = await seedSession(t.backend);
    const nonce = 'ab'.repeat(32);
    const linkCases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ nostr_token: '', nonce }, [{ path: 'body.nostr_token', message: 'must not be empty' }]],
      [{ nostr_token: 'n'.repeat(16_385), nonce }, [{ path: 'body.nostr_token', message: 'is too long' }]],
      [{ nostr_token: 'n', nonce: 5 }, [{ path: 'body.nonce', message: 'must be a string' }]],
      [{ nostr_token: 'n', nonce: 'AB'.repeat(32) }, [{ path: 'body.nonce', message: NONCE }]],
      [{ nostr_token: 'n', nonce: `${nonce}a` }, [{ path: 'body.nonce', message: NONCE }]],
      [{ nostr_token: 'n', nonce: `a${nonce}` }, [{ path: 'body.nonce', message: NONCE }]],
      [{ nostr_token: 'n', nonce: nonce.slice(1) }, [{ path: 'body.nonce', message: NONCE }]],
      [{ nostr_token: 'n', nonce, seed_fingerprint: hex(8) }, [{ path: 'body.seed_fingerprint', message: 'Invalid key: Expected never but received "seed_fingerprint"' }]],
    ];
    for (const [body, expected] of linkCases) {
      const label = JSON.stringify(body).slice(0, 60);
      expect(details(await t.client.post('/api/v1/auth/nostr/link', body, { token: auth.access_token }), label), label).to.deep.equal(expected);
    }
    // Well-formed: a 16 384-character token and a 64-hex nonce reach the proof check.
    const link = await t.client.post('/api/v1/auth/nostr/link', { nostr_token: 'n'.repeat(16_384), nonce }, { token: auth.access_token });
    expect(link.status).to.equal(401);
    expect(link.body.error.code).to.equal('signed_action_invalid');

    const base = { nostr_token: 'n', nonce, seed_fingerprint: hex(8) };
    const registerCases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ nostr_token: 'n'.repeat(16_385) }, [{ path: 'body.nostr_token', message: 'is too long' }]],
      [{ nonce: 'x'.repeat(64) }, [{ path: 'body.nonce', message: NONCE }]],
      [{ seed_fingerprint: hex(129) }, [{ path: 'body.seed_fingerprint', message: FINGERPRINT }]],
      [{ keys: {} }, [{ path: 'body.keys', message: 'must be a list of keys' }]],
      [{ invite_code: '' }, [{ path: 'body.invite_code', message: 'must not be empty' }]],
      [{ pubkey_hash: hex(40) }, [{ path: 'body.pubkey_hash', message: 'Invalid key: Expected never but received "pubkey_hash"' }]],
    ];
    for (const [fields, expected] of registerCases) {
      const label = JSON.stringify(fields).slice(0, 60);
      expect(details(await t.client.post('/api/v1/auth/nostr/register', { ...base, ...fields }), label), label).to.deep.equal(expected);
    }
    const register = await t.client.post('/api/v1/auth/nostr/register', { ...base, altcha_solution: 'a', invite_code: 'i', payment_invoice_id: 'p' });
    expect(register.status).to.equal(401);
    expect(register.body.error.code).to.equal('signed_action_invalid');
  });

  it('POST /auth/website/challenge and /verify: bounded fields refused with their messages', async () => {
    const challengeCases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ origin: 5 }, [{ path: 'body.origin', message: 'must be a string' }]],
      [{ origin: '' }, [{ path: 'body.origin', message: 'must not be empty' }]],
      [{ origin: `https://${'o'.repeat(193)}` }, [{ path: 'body.origin', message: 'is too long' }]],
    ];
    for (const [body, expected] of challengeCases) {
      const label = JSON.stringify(body).slice(0, 40);
      expect(details(await t.client.post('/api/v1/auth/website/challenge', body), label), label).to.deep.equal(expected);
    }
    const base = { challenge_id: 'c'.repeat(64), asset: 'btc', public_key: 'k', signature: 's' };
    const verifyCases: Array<[Record<string, unknown>, Detail[]]> = [
      [{ challenge_id: 'c'.repeat(129) }, [{ path: 'body.challenge_id', message: 'is too long' }]],
      [{ asset: 'a'.repeat(17) }, [{ path: 'body.asset', message: 'is too long' }]],
      [{ public_key: 'k'.repeat(201) }, [{ path: 'body.public_key', message: 'is too long' }]],
      [{ signature: 's'.repeat(301) }, [{ path: 'body.signature', message: 'is too long' }]],
      [{ signature: '' }, [{ path: 'body.signature', message: 'must not be empty' }]],
      [{ origin: 'https://shop.example' }, [{ path: 'body.origin', message: 'Invalid key: Expected never but received "origin"' }]],
    ];
    for (const [fields, expected] of verifyCases) {
      const label = JSON.stringify(fields).slice(0, 40);
      expect(details(await t.client.post('/api/v1/auth/website/verify', { ...base, ...fields }), label), label).to.deep.equal(expected);
    }
  });
});
