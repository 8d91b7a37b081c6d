import { expect } from 'chai';
import type { TestBackend } from './backend.js';
import type { TestResponse } from './client.js';
import { BtcKey, extensionBody, type SigningKey } from './wallet.js';

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
