/**
 * Bitcoin-alphabet base58 for payloads up to a slatepack's 64 KiB. The usual digit-by-digit
 * conversion is quadratic in JavaScript (and @scure/base refuses long inputs), so both directions
 * split the number in halves by powers of 58 and let BigInt multiply or divide the halves:
 * a 64 KiB payload decodes in tens of milliseconds.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Map<string, bigint>([...ALPHABET].map((char, i) => [char, BigInt(i)]));
const LEAF = 16;

const powers = new Map<number, bigint>();
function power(n: number): bigint {
  let value = powers.get(n);
  if (value === undefined) {
    value = 58n ** BigInt(n);
    powers.set(n, value);
  }
  return value;
}

function valueOf(text: string, from: number, to: number): bigint {
  if (to - from <= LEAF) {
    let value = 0n;
    for (let i = from; i < to; i += 1) value = value * 58n + DIGIT.get(text[i]!)!;
    return value;
  }
  const middle = from + ((to - from) >> 1);
  return valueOf(text, from, middle) * power(to - middle) + valueOf(text, middle, to);
}

/** Decodes base58 text; throws on a character outside the alphabet. */
export function base58Decode(text: string): Uint8Array {
  for (const char of text) if (!DIGIT.has(char)) throw new Error('not base58');
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros += 1;
  const rest = text.slice(zeros);
  const value = rest === '' ? 0n : valueOf(rest, 0, rest.length);
  const hex = value === 0n ? '' : value.toString(16);
  return Uint8Array.from([...new Uint8Array(zeros), ...Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')]);
}

/** `value` in exactly `width` base58 digits (left-padded with the zero digit). */
function digitsOf(value: bigint, width: number): string {
  if (width <= LEAF) {
    let out = '';
    for (let i = 0; i < width; i += 1) {
      out = ALPHABET[Number(value % 58n)]! + out;
      value /= 58n;
    }
    return out;
  }
  const low = width >> 1;
  const divisor = power(low);
  return digitsOf(value / divisor, width - low) + digitsOf(value % divisor, low);
}

export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros += 1;
  const hex = Buffer.from(bytes.subarray(zeros)).toString('hex');
  const value = hex === '' ? 0n : BigInt(`0x${hex}`);
  // log58(256) ≈ 1.3657: enough digits for the value, then trim the padding.
  const width = Math.ceil((bytes.length - zeros) * 1.3658) + 1;
  const digits = value === 0n ? '' : digitsOf(value, width).replace(/^1+/, '');
  return '1'.repeat(zeros) + digits;
}
