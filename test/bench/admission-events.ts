/**
 * The relay admission benchmark's workload (test/bench/admission.ts): deterministic keys for a
 * realistic users table and a mix of pre-signed events, each with the decision the premium-post
 * policy owes it. Signing is slow (two scalar multiplications per event), so the set is cached
 * as JSON in os.tmpdir() and reused by the next run of the same size; it is done on every core
 * (admission-sign-worker.mjs).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { getPublicKey, type Event } from 'nostr-tools/pure';

export const USERS = 10_000;
export const PREMIUM_USERS = 2_000;
/** Users whose premium lapsed a month ago: registered, not premium. */
export const LAPSED_USERS = 500;
/** Authors and recipients who are not users of the wallet. */
export const OUTSIDERS = 5_000;

/** Bump when the mix or the event shapes change: the cached file of an older version is ignored. */
const VERSION = 1;

export interface BenchUser {
  pubkey: string;
  standing: 'premium' | 'lapsed' | 'registered';
}

export interface BenchEvent {
  event: Event;
  /** What the premium-post policy must answer. */
  accept: boolean;
  kind: 'premium-any' | 'registered-free' | 'registered-note' | 'outsider-note' | 'outsider-wrap-to-user' | 'outsider-wrap-to-outsider';
}

export interface Workload {
  users: BenchUser[];
  events: BenchEvent[];
  /** Where the signed set is cached, and whether this run signed it or read it. */
  file: string;
  signedMs: number | null;
}

/** A fixed, valid secp256k1 secret key per label (a SHA-256 is below the group order with overwhelming probability). */
const secretKey = (label: string) => new Uint8Array(createHash('sha256').update(`wallet-bench-admission/${label}`).digest());

/** mulberry32: the same mix on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Template {
  /** The secret key, hex. */
  key: string;
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
}

/** Signs the templates on every core (nostr-tools takes ~4 ms an event), in order. */
async function signAll(templates: Template[], progress: (message: string) => void, what: string): Promise<Event[]> {
  const started = Date.now();
  const parts = Math.max(1, Math.min(availableParallelism(), Math.ceil(templates.length / 500)));
  const size = Math.ceil(templates.length / parts);
  progress(`  signing ${templates.length} ${what} on ${parts} worker thread(s) …`);
  const chunks = await Promise.all(
    Array.from({ length: parts }, (_, i) => {
      const worker = new Worker(new URL('./admission-sign-worker.mjs', import.meta.url), { workerData: { items: templates.slice(i * size, (i + 1) * size) } });
      return new Promise<Event[]>((resolve, reject) => {
        worker.once('message', (events: Event[]) => {
          resolve(events);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
    }),
  );
  progress(`  signed ${templates.length} ${what} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return chunks.flat();
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Loads the cached workload of this size, or signs it (~4 ms an event per core) and caches it. */
export async function loadWorkload(count: number, progress: (message: string) => void): Promise<Workload> {
  const file = join(tmpdir(), `wallet-bench-admission-v${VERSION}-${count}.json`);
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as { version: number; users: BenchUser[]; events: BenchEvent[] };
      if (cached.version === VERSION && cached.events.length === count && cached.users.length === USERS) return { users: cached.users, events: cached.events, file, signedMs: null };
    } catch {
      // A partial or foreign file: sign again.
    }
  }
  const started = Date.now();
  const userKeys = Array.from({ length: USERS }, (_, i) => secretKey(`user/${i}`));
  const users: BenchUser[] = userKeys.map((key, i) => ({ pubkey: getPublicKey(key), standing: i < PREMIUM_USERS ? 'premium' : i < PREMIUM_USERS + LAPSED_USERS ? 'lapsed' : 'registered' }));
  const outsiderKeys = Array.from({ length: OUTSIDERS }, (_, i) => secretKey(`outsider/${i}`));
  const outsiderPubkeys = outsiderKeys.map((key) => getPublicKey(key));
  const random = prng(20_261_125);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const text = (min: number, max: number) => {
    const bytes = Buffer.alloc(Math.floor(((min + random() * (max - min)) * 3) / 4));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    return bytes.toString('base64');
  };
  const premiumKinds = [0, 1, 1, 1, 3, 6, 7, 7, 1059, 10002, 10050, 30023];
  const createdAt = Math.floor(Date.now() / 1000);
  const templates: Template[] = [];
  const owed: Array<Pick<BenchEvent, 'accept' | 'kind'>> = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const at = createdAt - Math.floor(random() * 86_400);
    let key: Uint8Array;
    let kind: number;
    let tags: string[][] = [];
    let content: string;
    let label: BenchEvent['kind'];
    let accept: boolean;
    if (roll < 0.3) {
      // A premium author posts anything.
      key = userKeys[Math.floor(random() * PREMIUM_USERS)]!;
      kind = pick(premiumKinds);
      if (kind === 1059) tags = [['p', pick(outsiderPubkeys)]];
      if (kind === 7) tags = [['e', createHash('sha256').update(`note/${i}`).digest('hex')], ['p', pick(users).pubkey]];
      content = kind === 1059 ? text(600, 1600) : text(40, 400);
      label = 'premium-any';
      accept = true;
    } else if (roll < 0.6) {
      // A registered (or lapsed) author: gift wraps and the DM relay list free, notes refused.
      key = userKeys[PREMIUM_USERS + Math.floor(random() * (USERS - PREMIUM_USERS))]!;
      kind = pick([1, 1059, 1059, 10050]);
      if (kind === 1059) tags = [['p', random() < 0.5 ? pick(users).pubkey : pick(outsiderPubkeys)]];
      if (kind === 10050) tags = [['relay', 'wss://relay.wallet.example']];
      content = kind === 1059 ? text(600, 1600) : kind === 1 ? text(40, 400) : '';
      label = kind === 1 ? 'registered-note' : 'registered-free';
      accept = kind !== 1;
    } else if (roll < 0.75) {
      key = pick(outsiderKeys);
      kind = 1;
      content = text(40, 400);
      label = 'outsider-note';
      accept = false;
    } else if (roll < 0.9) {
      // A DM to a user's inbox, signed by a throwaway key as NIP-59 wants: admitted.
      key = pick(outsiderKeys);
      kind = 1059;
      tags = [['p', pick(users).pubkey]];
      content = text(600, 1600);
      label = 'outsider-wrap-to-user';
      accept = true;
    } else {
      key = pick(outsiderKeys);
      kind = 1059;
      tags = [['p', pick(outsiderPubkeys)]];
      content = text(600, 1600);
      label = 'outsider-wrap-to-outsider';
      accept = false;
    }
    templates.push({ key: hex(key), kind, created_at: at, tags, content });
    owed.push({ accept, kind: label });
  }
  // Plain objects, as a relay hands them over (finalizeEvent marks its result verified with a symbol key).
  const signed = await signAll(templates, progress, 'events');
  const events: BenchEvent[] = signed.map((event, i) => ({ event, ...owed[i]! }));
  const signedMs = Date.now() - started;
  writeFileSync(file, JSON.stringify({ version: VERSION, users, events }));
  return { users, events, file, signedMs };
}

/**
 * NIP-17 DMs as they arrive: `count` gift wraps, each signed by a brand-new random key (NIP-59's
 * one-time key) and addressed to the registered `recipients` in turn. Owed an accept. Random, not
 * reproducible; cached in os.tmpdir() by size (the authors are still unknown to each run's fresh
 * database and fresh plugin process).
 */
export async function loadFreshWraps(count: number, recipients: string[], progress: (message: string) => void): Promise<{ events: Event[]; file: string; signedMs: number | null }> {
  const file = join(tmpdir(), `wallet-bench-admission-fresh-wraps-v${VERSION}-${count}.json`);
  const recipientsHash = createHash('sha256').update(`in turn:${recipients.join(',')}`).digest('hex');
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as { version: number; recipients: string; events: Event[] };
      if (cached.version === VERSION && cached.recipients === recipientsHash && cached.events.length === count) return { events: cached.events, file, signedMs: null };
    } catch {
      // A partial or foreign file: sign again.
    }
  }
  const started = Date.now();
  const createdAt = Math.floor(Date.now() / 1000);
  const random = prng(20_261_126);
  const templates: Template[] = Array.from({ length: count }, (_, i) => ({
    key: hex(randomBytes(32)),
    kind: 1059,
    // NIP-59 randomises a wrap's created_at up to two days into the past.
    created_at: createdAt - Math.floor(random() * 172_800),
    tags: [['p', recipients[i % recipients.length]!]],
    content: randomBytes(Math.floor((600 + random() * 1000) * 0.75)).toString('base64'),
  }));
  const events = await signAll(templates, progress, 'fresh-author gift wraps');
  const signedMs = Date.now() - started;
  writeFileSync(file, JSON.stringify({ version: VERSION, recipients: recipientsHash, events }));
  return { events, file, signedMs };
}
