import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import knexFactory from 'knex';
import { hash160, messageDigest, MESSAGE_NETWORKS } from '../../../packages/core/src/crypto/index.js';
import { extensionLoginMessage, SIGNED_TIMESTAMP_SKEW_SEC } from '../../../packages/core/src/identity/messages.js';

/** A BTC key signing Bitcoin messages as Electrum does (compressed, header 31–34). */
export class BenchBtcKey {
  readonly secret = secp256k1.utils.randomSecretKey();
  readonly publicKeyHex = bytesToHex(secp256k1.getPublicKey(this.secret, true));
  readonly pubkeyHash = bytesToHex(hash160(secp256k1.getPublicKey(this.secret, true)));
  /** The next timestamp this key may sign: each (pubkey_hash, timestamp) is accepted once. */
  private next: number;

  constructor(nowSec: number) {
    this.next = nowSec - SAFE_PAST_SEC;
  }

  sign(message: string): string {
    const recovered = secp256k1.sign(messageDigest(MESSAGE_NETWORKS['btc-mainnet'].magic, utf8ToBytes(message)), this.secret, { prehash: false, format: 'recovered' });
    return Buffer.from(concatBytes(Uint8Array.of(31 + recovered[0]!), recovered.slice(1))).toString('base64');
  }

  /** How many more fresh timestamps this key can sign now (each stays valid for minutes). */
  capacity(nowSec: number): number {
    return Math.max(0, nowSec + SAFE_FUTURE_SEC - Math.max(this.next, nowSec - SAFE_PAST_SEC));
  }

  /** A login body at a timestamp this key never signed before, or null when its window is used up. */
  loginBody(service: string, nowSec: number): string | null {
    const timestamp = Math.max(this.next, nowSec - SAFE_PAST_SEC);
    if (timestamp > nowSec + SAFE_FUTURE_SEC) return null;
    this.next = timestamp + 1;
    return JSON.stringify({
      pubkey_hash: this.pubkeyHash,
      seed_fingerprint: 'b3c4d5e6',
      keys: [{ asset: 'btc', public_key: this.publicKeyHex }],
      timestamp,
      signature: this.sign(extensionLoginMessage(service, this.pubkeyHash, timestamp)),
    });
  }
}

/**
 * Signed timestamps are accepted within SIGNED_TIMESTAMP_SKEW_SEC (300 s) of the server clock; a
 * body signed now at [now − 150, now + 150] stays acceptable for at least 150 s, longer than any
 * run it is signed for.
 */
const SAFE_PAST_SEC = Math.floor(SIGNED_TIMESTAMP_SKEW_SEC / 2);
const SAFE_FUTURE_SEC = Math.floor(SIGNED_TIMESTAMP_SKEW_SEC / 2);

const nowSec = () => Math.floor(Date.now() / 1000);

export interface AuthPair {
  access_token: string;
  refresh_token: string;
  user_id: string;
}

async function call(url: string, init: { method?: string; token?: string; body?: string }): Promise<unknown> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`bench setup: ${init.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return text === '' ? null : JSON.parse(text);
}

/**
 * Returning-user extension logins: a growing set of BTC keys, each registered once through the
 * wallet server, each signing every timestamp at most once (the server spends
 * `extension:<pepper(pubkey_hash)>:<timestamp>`), so no body is ever a replay — across runs,
 * servers and rounds, which share one database.
 */
export class LoginBodies {
  private readonly keys: BenchBtcKey[] = [];
  signed = 0;

  constructor(
    private readonly walletUrl: string,
    /** PUBLIC_API_URL exactly as configured: the signed `service`. */
    private readonly service: string,
  ) {}

  /** Registers keys until at least `count` fresh bodies can be signed. */
  async ensureCapacity(count: number): Promise<void> {
    const available = () => this.keys.reduce((sum, key) => sum + key.capacity(nowSec()), 0);
    while (available() < count) {
      const key = new BenchBtcKey(nowSec());
      const body = key.loginBody(this.service, nowSec())!;
      await call(`${this.walletUrl}/api/v1/auth/extension`, { method: 'POST', body });
      this.keys.push(key);
    }
  }

  /** One fresh body, or null when every registered key's window is used up. */
  next(): string | null {
    const now = nowSec();
    for (const key of this.keys) {
      const body = key.loginBody(this.service, now);
      if (body !== null) {
        this.signed++;
        return body;
      }
    }
    return null;
  }

  /** `count` fresh bodies, signed now (registering keys as needed). */
  async pool(count: number): Promise<string[]> {
    // Twice what is signed now: the rest is what `next()` can still sign if a run outpaces its pool.
    await this.ensureCapacity(2 * count);
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      const body = this.next();
      if (body === null) throw new Error('bench setup: ran out of login keys');
      bodies.push(body);
    }
    return bodies;
  }

  /** `count` fresh sessions (a returning-user login each), for refresh chains. */
  async sessions(count: number): Promise<AuthPair[]> {
    const bodies = await this.pool(count);
    const out: AuthPair[] = [];
    for (const body of bodies) out.push((await call(`${this.walletUrl}/api/v1/auth/extension`, { method: 'POST', body })) as AuthPair);
    return out;
  }
}

export interface Seeded {
  /** The main user: a username, a linked npub, a few keys. */
  main: AuthPair & { username: string };
  /** A second user: the relay recipient. */
  recipient: AuthPair;
  logins: LoginBodies;
}

/** Users through the wallet's own API (registration, username, keys); the npub link straight in the database. */
export async function seed(walletUrl: string, service: string, databaseUrl: string, username: string): Promise<Seeded> {
  const logins = new LoginBodies(walletUrl, service);
  const [mainAuth] = (await logins.sessions(1)) as [AuthPair];
  // Another key, so another account: the relay refuses a recipient who is the sender.
  const [recipient] = (await new LoginBodies(walletUrl, service).sessions(1)) as [AuthPair];
  await call(`${walletUrl}/api/v1/users/me/username`, { method: 'POST', token: mainAuth.access_token, body: JSON.stringify({ username }) });
  const ltc = bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
  const grinKey = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
  for (const key of [
    { asset: 'ltc', public_key: ltc },
    { asset: 'grin', public_key: bytesToHex(grinKey) },
    { asset: 'grin', public_key: bech32.encode('grin', bech32.toWords(ed25519.getPublicKey(ed25519.utils.randomSecretKey()))) },
  ]) {
    await call(`${walletUrl}/api/v1/keys`, { method: 'POST', token: mainAuth.access_token, body: JSON.stringify(key) });
  }
  // Linking an npub takes a NIP-98 signed action; the directory only reads the column.
  const knex = databaseUrl.startsWith('sqlite:') ? knexFactory({ client: 'better-sqlite3', connection: { filename: databaseUrl.slice('sqlite:'.length) }, useNullAsDefault: true }) : postgresKnex(databaseUrl);
  try {
    if (databaseUrl.startsWith('sqlite:')) await knex.raw('PRAGMA busy_timeout = 5000');
    await knex('users').where({ id: mainAuth.user_id }).update({ nostr_pubkey: bytesToHex(schnorr.getPublicKey(schnorr.utils.randomSecretKey())) });
  } finally {
    await knex.destroy();
  }
  return { main: { ...mainAuth, username }, recipient, logins };
}

/** A Postgres URL as the server takes it: `?schema=` names the schema (the test harness's), not a pg option. */
function postgresKnex(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  return knexFactory({ client: 'pg', connection: url.toString(), ...(schema === null ? {} : { searchPath: [schema] }) });
}
