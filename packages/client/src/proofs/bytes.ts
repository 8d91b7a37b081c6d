import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';

/** Standard base64 (with padding) of the UTF-8 bytes of `text`; what `btoa` gives for ASCII. */
export function base64OfText(text: string): string {
  return base64.encode(utf8ToBytes(text));
}

/** Lower-case hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256(typeof data === 'string' ? utf8ToBytes(data) : data));
}

/** Unix seconds of `when` (a Date, or already Unix seconds, as Nostr's `created_at` and the extension login's `timestamp`), or of now. */
export function unixSeconds(when?: Date | number): number {
  if (typeof when === 'number') return when;
  return Math.floor((when === undefined ? Date.now() : when.getTime()) / 1000);
}
