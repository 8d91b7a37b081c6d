import { randomUUID } from 'node:crypto';
import type { AuthResponse, Platform, WalletBackend } from '@wallet/backend-core';

/**
 * Creates a user straight through the storage layer (the identity routes arrive with their
 * own issue) and, optionally, a session for it.
 */
export async function seedUser(
  backend: WalletBackend,
  fields: { username?: string | null; nostrPubkey?: string | null; premiumUntil?: Date | null } = {},
): Promise<{ id: string }> {
  const id = randomUUID();
  const { time } = backend.db.dialect;
  const now = time(new Date('2026-01-01T00:00:00.000Z'));
  await backend.db.knex('users').insert({
    id,
    username: fields.username ?? null,
    nostr_pubkey: fields.nostrPubkey ?? null,
    premium_until: fields.premiumUntil ? time(fields.premiumUntil) : null,
    created_at: now,
    updated_at: now,
  });
  return { id };
}

export async function seedSession(
  backend: WalletBackend,
  platform: Platform = 'extension',
  fields: Parameters<typeof seedUser>[1] = {},
): Promise<{ userId: string; auth: AuthResponse }> {
  const { id } = await seedUser(backend, fields);
  return { userId: id, auth: await backend.sessions.start(id, platform) };
}
