/**
 * Monero's block base58 (Bitcoin alphabet), which addresses and SigV1/SigV2 use: the bytes are
 * cut into 8-byte blocks, each written as exactly 11 characters (a shorter last block as
 * ENCODED_SIZE[n] characters), so there is no checksum and no leading-zero rule.
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

/** Monero base58 of `bytes`. */
export function base58Encode(bytes: Uint8Array): string {
  let out = '';
  for (let offset = 0; offset < bytes.length; offset += FULL_BLOCK) out += encodeBlock(bytes.subarray(offset, offset + FULL_BLOCK));
  return out;
}

/** The bytes, or null for a character outside the alphabet, an impossible length or a block that overflows. */
export function base58Decode(text: string): Uint8Array | null {
  const fullBlocks = Math.floor(text.length / FULL_ENCODED);
  const tailBytes = ENCODED_SIZE.indexOf((text.length % FULL_ENCODED) as (typeof ENCODED_SIZE)[number]);
  if (tailBytes < 0) return null;
  const out = new Uint8Array(fullBlocks * FULL_BLOCK + tailBytes);
  for (let block = 0; block * FULL_ENCODED < text.length; block++) {
    const size = block < fullBlocks ? FULL_BLOCK : tailBytes;
    let value = 0n;
    for (const char of text.slice(block * FULL_ENCODED, (block + 1) * FULL_ENCODED)) {
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
