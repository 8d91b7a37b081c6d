import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { erasurePlugin, type ErasureOptions } from '@wallet/erasure';
import type { WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, NostrKey, seedUser, TEST_SECRETS, type DialectName, type TestBackend } from '../harness/index.js';

export const API = '/api/v1';

export interface ErasureWorld {
  t: TestBackend;
  /** A user with a linked Nostr key and a live session. */
  user: { id: string; key: NostrKey; token: string };
}

/** A backend with erasure on (72 h grace) and one user, fresh per test. */
export function useErasureWorld(dialect: DialectName, options: ErasureOptions = { enabled: true }, plugins: WalletPlugin[] = []): ErasureWorld {
  const world = {} as ErasureWorld;
  beforeEach(async () => {
    const t = await createTestBackend(dialect, { plugins: [...plugins, erasurePlugin(options)] });
    const key = new NostrKey();
    const { id } = await seedUser(t.backend, { nostrPubkey: key.pubkey, username: `erin${Math.random().toString(16).slice(2, 8)}` });
    const token = (await t.backend.sessions.start(id, 'extension')).access_token;
    Object.assign(world, { t, user: { id, key, token } });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}

/** Gets a nonce for `purpose` and signs the action on `path` (full path) with `key`: the request body. */
export async function proof(t: TestBackend, key: NostrKey, purpose: string, path: string, method = 'POST'): Promise<{ nostr_token: string; nonce: string }> {
  const challenge = await t.client.post(`${API}/account/erasure/challenge`, { purpose });
  if (challenge.status !== 200) throw new Error(`challenge answered ${challenge.status}: ${challenge.text}`);
  const nonce = challenge.body.nonce as string;
  return { nostr_token: key.signedAction(path, nonce, purpose, t.clock.now(), { method }), nonce };
}

export const confirmPath = (id: string) => `${API}/account/erasure/${id}/confirm`;

/** Requests and confirms the erasure of `key`'s account over HTTP; the erasure id. */
export async function requestAndConfirm(t: TestBackend, key: NostrKey): Promise<string> {
  const requested = await t.client.post(`${API}/account/erasure`, await proof(t, key, 'erasure_request', `${API}/account/erasure`));
  expect(requested.status, requested.text).to.equal(200);
  const id = requested.body.erasure_id as string;
  const confirmed = await t.client.post(confirmPath(id), await proof(t, key, 'erasure_confirm', confirmPath(id)));
  expect(confirmed.status, confirmed.text).to.equal(200);
  return id;
}

/**
 * The seal the server puts on a confirmed request (HMAC-SHA256 with the pepper secret of
 * `erasure_request:<id>:<user id>:<due ISO time>`), computed independently, for tests that
 * write confirmed rows directly.
 */
export function requestSeal(id: string, userId: string, dueAt: Date | string): string {
  return createHmac('sha256', TEST_SECRETS.pepperSecret).update(`erasure_request:${id}:${userId}:${new Date(dueAt).toISOString()}`).digest('hex');
}
