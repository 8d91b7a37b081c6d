import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * A key of its own for one use, derived from a configured secret (HMAC-SHA256 keyed by the
 * secret over `wallet-backend/<purpose>`, hex), so that no configured secret is ever used twice.
 */
export function deriveKey(secret: string, purpose: string): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`wallet-backend/${purpose}`)));
}
