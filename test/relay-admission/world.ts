import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { createTestBackend, seedUser, type DialectName, type TestBackend } from '../harness/index.js';
import type { NostrEvent } from '@wallet/relay-admission';

export const DAY_MS = 86_400_000;

export interface NostrKey {
  secret: Uint8Array;
  pubkey: string;
}

export function nostrKey(): NostrKey {
  const secret = generateSecretKey();
  return { secret, pubkey: getPublicKey(secret) };
}

/** A signed event by `key`, as a client publishes it. */
export function signed(key: NostrKey, kind: number, tags: string[][] = [], content = 'hello'): NostrEvent {
  return finalizeEvent({ kind, tags, content, created_at: 1_767_225_600 }, key.secret) as unknown as NostrEvent;
}

/** A gift wrap (kind 1059) from a one-time key to `recipients`, as NIP-59 makes it. */
export const giftWrap = (...recipients: string[]) => signed(nostrKey(), 1059, recipients.map((pubkey) => ['p', pubkey]), 'ciphertext');

/** A standings read, by its SQL (the hook reads nothing else from `users`). */
export const STANDINGS_READ = /from [`"]users[`"]/i;

/**
 * The pubkeys a standings read asked for, from knex's `query` event: the list is its one
 * parameter (`whereAnyOf`: a text array on Postgres, a JSON array on SQLite). Null for any other
 * statement, so a listener sees what else ran rather than failing it.
 */
export function pubkeysAskedBy(query: { sql: string; bindings?: unknown[] }): string[] | null {
  if (!STANDINGS_READ.test(query.sql)) return null;
  const [list] = query.bindings ?? [];
  return (Array.isArray(list) ? list : JSON.parse(String(list))) as string[];
}

export interface AdmissionWorld {
  t: TestBackend;
  premium: NostrKey;
  registered: NostrKey;
  stranger: NostrKey;
  /** premium's premium_until. */
  premiumUntil: Date;
}

/**
 * A migrated wallet database (no listener) with a premium user (30 days left), a registered user
 * without premium (and one whose premium lapsed a day ago), and a stranger; fresh per test.
 */
export function useAdmissionWorld(dialect: DialectName): AdmissionWorld {
  const world = {} as AdmissionWorld;
  beforeEach(async () => {
    const t = await createTestBackend(dialect, { listen: false });
    const [premium, registered, lapsed, stranger] = [nostrKey(), nostrKey(), nostrKey(), nostrKey()];
    const premiumUntil = new Date(t.clock.now().getTime() + 30 * DAY_MS);
    await seedUser(t.backend, { nostrPubkey: premium.pubkey, premiumUntil });
    await seedUser(t.backend, { nostrPubkey: registered.pubkey });
    await seedUser(t.backend, { nostrPubkey: lapsed.pubkey, premiumUntil: new Date(t.clock.now().getTime() - DAY_MS) });
    Object.assign(world, { t, premium, registered, stranger, premiumUntil, lapsed });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}
