/** Monero varint (LEB128: 7 bits a byte, low group first), as address tags and SigV2 lengths use it. */
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
export function decodeVarint(bytes: Uint8Array): { value: number; length: number } | null {
  let value = 0;
  for (let i = 0; i < 8 && i < bytes.length; i++) {
    const byte = bytes[i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return Number.isSafeInteger(value) ? { value, length: i + 1 } : null;
  }
  return null;
}
