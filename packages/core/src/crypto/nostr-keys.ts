import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * A Nostr public key as operators type it, hex (64) or `npub1…` (NIP-19), to the 64-hex x-only
 * form NIP-98 events carry; null unless it is a point on secp256k1. An npub must decode (valid
 * checksum, one case) to exactly 32 bytes: the same 64-hex test then applies to both forms.
 */
export function parseNostrPubkey(text: string): string | null {
  const lower = text.trim().toLowerCase();
  let hex = lower;
  if (lower.startsWith('npub1')) {
    try {
      hex = bytesToHex(bech32.fromWords(bech32.decode(lower as `npub1${string}`).words));
    } catch {
      return null;
    }
  }
  if (!HEX64.test(hex)) return null;
  try {
    schnorr.utils.lift_x(BigInt(`0x${hex}`));
    return hex;
  } catch {
    return null;
  }
}
