import { expect } from 'chai';
import type { TestBackend } from './backend.js';
import type { TestResponse } from './client.js';
import { BtcKey, extensionBody, NostrKey, type SigningKey } from './wallet.js';

/** A wallet registered through the extension login (its BTC key is its identity), with a live session. */
export async function extensionWallet(t: TestBackend, btc = new BtcKey()): Promise<{ userId: string; token: string }> {
  const res = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()));
  expect(res.status).to.equal(200);
  return { userId: res.body.user_id, token: res.body.access_token };
}

/** A whole website login with `key`: challenge for `origin`, then verify with the key's signature. */
export async function websiteLogin(t: TestBackend, key: SigningKey, origin = 'https://shop.example'): Promise<TestResponse> {
  const issued = await t.client.post('/api/v1/auth/website/challenge', { origin });
  expect(issued.status, origin).to.equal(200);
  return t.client.post('/api/v1/auth/website/verify', { challenge_id: issued.body.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(issued.body.challenge) });
}

/**
 * A wallet registered through Nostr: an account WITHOUT a BTC identity, so a BTC key it proves
 * through POST /keys is what resolves its website and extension logins.
 */
export async function nostrWallet(t: TestBackend, nostr = new NostrKey()): Promise<{ userId: string; token: string }> {
  const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
  const path = '/api/v1/auth/nostr/register';
  const res = await t.client.post(path, { nostr_token: nostr.signedAction(path, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: 'c0ffee00' });
  expect(res.status, res.text).to.equal(200);
  return { userId: res.body.user_id, token: res.body.access_token };
}
