/**
 * Monero's block base58 (Bitcoin alphabet): the input is cut into 8-byte blocks, each written as
 * exactly 11 characters (a shorter final block as FULL_ENCODED[n] characters), so lengths are
 * fixed and no checksum or leading-zero rule applies. Addresses and SigV1/SigV2 use it.
 * @see monero-project/monero src/common/base58.cpp
 * @module
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const FULL_BLOCK = 8;
const FULL_ENCODED = 11;
/** Characters for a block of 0..8 bytes. */
const ENCODED_SIZE = [0, 2, 3, 5, 6, 7, 9, 10, 11] as const;
const INDEX = new Map([...ALPHABET].map((char, i) => [char, BigInt(i)]));

function encodeBlock(block: Uint8Array): string {
  let value = 0n;
  for (const byte of block) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < ENCODED_SIZE[block.length]!; i++) {
    out = ALPHABET[Number(value % 58n)]! + out;
    value /= 58n;
  }
  return out;
}

export function cryptonoteBase58Encode(bytes: Uint8Array): string {
  let out = '';
  for (let offset = 0; offset < bytes.length; offset += FULL_BLOCK) out += encodeBlock(bytes.subarray(offset, offset + FULL_BLOCK));
  return out;
}

/** The bytes, or null for a character outside the alphabet, an impossible final-block length or a block that overflows its size. */
export function cryptonoteBase58Decode(text: string): Uint8Array | null {
  const fullBlocks = Math.floor(text.length / FULL_ENCODED);
  const tailChars = text.length % FULL_ENCODED;
  const tailBytes = ENCODED_SIZE.indexOf(tailChars as (typeof ENCODED_SIZE)[number]);
  if (tailBytes < 0) return null;
  const out = new Uint8Array(fullBlocks * FULL_BLOCK + tailBytes);
  for (let block = 0; block * FULL_ENCODED < text.length; block++) {
    const chunk = text.slice(block * FULL_ENCODED, (block + 1) * FULL_ENCODED);
    const size = block < fullBlocks ? FULL_BLOCK : tailBytes;
    let value = 0n;
    for (const char of chunk) {
      const digit = INDEX.get(char);
      if (digit === undefined) return null;
      value = value * 58n + digit;
    }
    if (value >> BigInt(8 * size) !== 0n) return null;
    for (let i = size - 1; i >= 0; i--) {
      out[block * FULL_BLOCK + i] = Number(value & 0xffn);
      value >>= 8n;
    }
  }
  return out;
}

/** Monero varint (LEB128, 7 bits per byte, low group first). */
export function encodeVarint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/** The value and how many bytes it took, or null when the varint runs off the end or past 2^53. */
export function decodeVarint(bytes: Uint8Array, offset = 0): { value: number; length: number } | null {
  let value = 0;
  for (let i = 0; i < 8 && offset + i < bytes.length; i++) {
    const byte = bytes[offset + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    // Eight bytes hold 56 bits; past 2^53 − 1 the sum is no longer exact, so it is refused.
    if ((byte & 0x80) === 0) return Number.isSafeInteger(value) ? { value, length: i + 1 } : null;
  }
  return null;
}
