import { timingSafeEqual } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * Domain-separated HMAC-SHA256 seals (docs/architecture.md#keyed-hashes). Under `ADMIN_KEY_INTEGRITY_SECRET` they seal
 * operator state (admin key rows, the setup latch, operator settings, the audit chain); under
 * `ADMIN_SESSION_SECRET`, admin session tokens. Each use has its own domain, so a MAC from one
 * table can never verify a row of another; the fields are joined with a separator that none of
 * them may contain.
 */
export interface Integrity {
  /** HMAC(secret, domain ‖ 0x1f ‖ field₁ ‖ 0x1f ‖ …), hex. */
  seal(domain: string, fields: readonly string[]): string;
  /** Constant-time check of a stored seal; false for anything malformed. */
  verify(domain: string, fields: readonly string[], seal: unknown): boolean;
}

const SEPARATOR = '\u001f';

export function createIntegrity(secret: string): Integrity {
  const key = utf8ToBytes(secret);
  const seal = (domain: string, fields: readonly string[]) => {
    if ([domain, ...fields].some((field) => field.includes(SEPARATOR))) throw new Error('a sealed field contains the separator');
    return bytesToHex(hmac(sha256, key, utf8ToBytes([domain, ...fields].join(SEPARATOR))));
  };
  return {
    seal,
    verify(domain, fields, stored) {
      if (typeof stored !== 'string' || !/^[0-9a-f]{64}$/.test(stored)) return false;
      const expected = Buffer.from(seal(domain, fields), 'hex');
      return timingSafeEqual(expected, Buffer.from(stored, 'hex'));
    },
  };
}
