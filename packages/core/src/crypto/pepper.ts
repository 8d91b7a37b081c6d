import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * Keyed one-way hashes for values the database must be able to match but never reveal
 * (DESIGN §6): identity hashes and refresh tokens are peppered, client IPs salted. Both are
 * HMAC-SHA256, hex encoded; only the key and its purpose differ.
 */
export interface Peppers {
  /** HMAC(pepper, value): pubkey_hash, seed_fingerprint, refresh tokens, restore fingerprints. */
  pepper(value: string): string;
  /** HMAC(ip salt, ip): the only form in which a client IP is stored or used as a key. */
  hashIp(ip: string): string;
}

export function createPeppers(pepperSecret: string, ipHashSalt: string): Peppers {
  const pepperKey = utf8ToBytes(pepperSecret);
  const ipKey = utf8ToBytes(ipHashSalt);
  return {
    pepper: (value) => bytesToHex(hmac(sha256, pepperKey, utf8ToBytes(value))),
    hashIp: (ip) => bytesToHex(hmac(sha256, ipKey, utf8ToBytes(ip))),
  };
}
