import { schnorr } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';

/**
 * A Nostr public key as operators type it, hex (64) or `npub1…` (NIP-19), to the 64-hex x-only
 * form NIP-98 events carry; null unless it is a point on secp256k1.
 */
export function parseNostrPubkey(text: string): string | null {
  let hex: string;
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    hex = trimmed.toLowerCase();
  } else if (/^npub1[02-9ac-hj-np-z]{58}$/.test(trimmed.toLowerCase())) {
    try {
      const { prefix, words } = bech32.decode(trimmed.toLowerCase() as `npub1${string}`);
      const bytes = bech32.fromWords(words);
      if (prefix !== 'npub' || bytes.length !== 32) return null;
      hex = Buffer.from(bytes).toString('hex');
    } catch {
      return null;
    }
  } else {
    return null;
  }
  try {
    schnorr.utils.lift_x(BigInt(`0x${hex}`));
    return hex;
  } catch {
    return null;
  }
}
