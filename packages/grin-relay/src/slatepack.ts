import { sha256 } from '@noble/hashes/sha2.js';
import { base58Decode, base58Encode } from './base58.js';

/** The armor's own size bound (spec › Limits): 64 KiB of UTF-8. */
export const MAX_SLATEPACK_BYTES = 64 * 1024;

const FRAMING = /^[>\n\r\t ]*$/;
const HEADER = /^[>\n\r\t ]*BEGINSLATEPACK[>\n\r\t ]*$/;
const FOOTER = /^[>\n\r\t ]*ENDSLATEPACK[>\n\r\t ]*$/;
const PAYLOAD_NOISE = /[>\n\r\t ]/g;

/**
 * Whether `text` is a well-formed slatepack armor as grin-wallet writes and reads it
 * (libwallet/src/slatepack/armor.rs): `BEGINSLATEPACK.` framing, a base58 payload split by
 * whitespace, `. ENDSLATEPACK.`; the payload decodes to checksum(4) ‖ slatepack, where the
 * checksum is the first four bytes of SHA-256(SHA-256(slatepack)). The slatepack inside stays
 * opaque: it may be encrypted to the recipient, and the relay never reads it.
 */
export function isWellFormedSlatepack(text: string): boolean {
  if (Buffer.byteLength(text, 'utf8') > MAX_SLATEPACK_BYTES) return false;
  const parts = text.split('.');
  // header . payload . footer . trailing framing (a final newline or nothing)
  if (parts.length !== 4) return false;
  const [header, payload, footer, rest] = parts as [string, string, string, string];
  if (!HEADER.test(header) || !FOOTER.test(footer) || !FRAMING.test(rest)) return false;
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(payload.replace(PAYLOAD_NOISE, ''));
  } catch {
    return false;
  }
  if (bytes.length <= 4) return false;
  const check = sha256(sha256(bytes.subarray(4)));
  return bytes[0] === check[0] && bytes[1] === check[1] && bytes[2] === check[2] && bytes[3] === check[3];
}

/** Armors `slatepack` bytes the way grin-wallet does (15-character words, 200 words a line): for tests and tools. */
export function armorSlatepack(slatepack: Uint8Array): string {
  const check = sha256(sha256(slatepack)).subarray(0, 4);
  const body = `BEGINSLATEPACK.${base58Encode(Uint8Array.from([...check, ...slatepack]))}`;
  let out = '';
  for (let i = 0; i < body.length; i += 15) {
    if (i > 0) out += i % (15 * 200) === 0 ? '\n' : ' ';
    out += body.slice(i, i + 15);
  }
  return `${out}. ENDSLATEPACK.\n`;
}
