/**
 * Grin keys: the slatepack address is original bech32 (BIP-173, not bech32m) of a 32-byte ed25519
 * public key with HRP `grin` (mainnet) or `tgrin` (other chains); the primary key is that public
 * key in hex and signs website challenges with plain RFC 8032 ed25519.
 * @see mimblewimble/grin-wallet libwallet/src/slatepack/address.rs
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';

export type SlatepackHrp = 'grin' | 'tgrin';

const HEX64 = /^[0-9a-fA-F]{64}$/;

function validPoint(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Cheap routing test for stored Grin values: does this look like a slatepack address (not hex)? */
export function looksLikeSlatepackAddress(value: string): boolean {
  return /^t?grin1/i.test(value);
}

/**
 * The HRP and key of a slatepack address, or null. Unlike grin-wallet we also require the HRP to
 * be grin/tgrin. bech32 rules: one case throughout, a valid checksum, zero padding bits.
 */
export function decodeSlatepackAddress(address: string): { hrp: SlatepackHrp; publicKey: Uint8Array } | null {
  if (address.length > 90 || (address !== address.toLowerCase() && address !== address.toUpperCase())) return null;
  try {
    const decoded = bech32.decode(address.toLowerCase() as `${string}1${string}`);
    if (decoded.prefix !== 'grin' && decoded.prefix !== 'tgrin') return null;
    const publicKey = bech32.fromWords(decoded.words);
    if (publicKey.length !== 32 || !validPoint(publicKey)) return null;
    return { hrp: decoded.prefix, publicKey };
  } catch {
    return null;
  }
}

export function encodeSlatepackAddress(publicKey: Uint8Array, hrp: SlatepackHrp): string {
  return bech32.encode(hrp, bech32.toWords(publicKey));
}

export function isEd25519PublicKeyHex(hex: string): boolean {
  // hexToBytes reads either case.
  return HEX64.test(hex) && validPoint(hexToBytes(hex));
}

/**
 * RFC 8032 ed25519 over the exact message bytes, strict (no ZIP-215 leniency); never throws.
 * hexToBytes refuses anything but even-length hex (either case) and verify anything but a 32-byte
 * key and a 64-byte signature, so malformed input ends in the catch.
 */
export function verifyGrinMessage(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  try {
    return ed25519.verify(hexToBytes(signatureHex), message, hexToBytes(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}
