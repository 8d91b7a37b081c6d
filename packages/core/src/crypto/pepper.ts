import { createHmac } from 'node:crypto';

/**
 * Keyed one-way hashes for values the database must be able to match but never reveal
 * (docs/architecture.md#keyed-hashes): identity hashes and refresh tokens are peppered, client IPs salted. Both are
 * HMAC-SHA256, hex encoded; only the key and its purpose differ. Node's HMAC (OpenSSL) rather
 * than a JavaScript one: the client IP is hashed on every rate-limited request, where 6 µs
 * became 2 µs; the last IP_HASHES_REMEMBERED IPs' hashes are remembered, a Map lookup instead.
 */
export interface Peppers {
  /** HMAC(pepper, value): pubkey_hash, seed_fingerprint, refresh tokens, restore fingerprints. */
  pepper(value: string): string;
  /** HMAC(ip salt, ip): the only form in which a client IP is stored or used as a key. */
  hashIp(ip: string): string;
}

/** Client IPs whose hash is remembered: a busy server sees the same few addresses (its proxies, its regulars) again and again. */
export const IP_HASHES_REMEMBERED = 1_024;

export function createPeppers(pepperSecret: string, ipHashSalt: string): Peppers {
  const pepperKey = Buffer.from(pepperSecret, 'utf8');
  const ipKey = Buffer.from(ipHashSalt, 'utf8');
  // The most recently hashed IPs (a Map keeps insertion order: the first key is the oldest).
  // Held in memory only, like the request that carried the IP; never logged or stored.
  const recent = new Map<string, string>();
  return {
    pepper: (value) => createHmac('sha256', pepperKey).update(value, 'utf8').digest('hex'),
    hashIp: (ip) => {
      let hash = recent.get(ip);
      if (hash === undefined) {
        hash = createHmac('sha256', ipKey).update(ip, 'utf8').digest('hex');
        if (recent.size >= IP_HASHES_REMEMBERED) recent.delete(recent.keys().next().value!);
        recent.set(ip, hash);
      }
      return hash;
    },
  };
}
