import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';

/**
 * A Monero / Wownero signed transaction (cryptonote_basic.h, rctTypes.h), walked field by field so
 * junk never reaches the light-wallet server. Only what wallets sign today is accepted: version 2
 * with RingCT type 3–6 (Bulletproof, Bulletproof2, CLSAG, Bulletproof+); coinbase inputs, version
 * 1 and the pre-Bulletproof types are refused. The blob must end exactly where the last field does.
 *
 * The txid proves the walk found every boundary: for version 2 it is
 *   Keccak256( Keccak256(prefix) ‖ Keccak256(rct base) ‖ Keccak256(rct prunable) ).
 */
export interface MoneroTransaction {
  txid: string;
  inputs: number;
  outputs: number;
  rctType: number;
  feeAtomic: bigint;
}

const TAG_TXIN_GEN = 0xff;
const TAG_TXIN_TO_KEY = 0x02;
const TAG_TXOUT_TO_KEY = 0x02;
const TAG_TXOUT_TO_TAGGED_KEY = 0x03;
const RCT_BULLETPROOF = 3;
const RCT_BULLETPROOF_PLUS = 6;
const KEY = 32;

class Cursor {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  take(length: number): Uint8Array {
    if (!Number.isSafeInteger(length) || length < 0 || this.offset + length > this.bytes.length) throw new RangeError('truncated');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  byte(): number {
    return this.take(1)[0]!;
  }

  /** Little-endian base-128, at most 64 bits, no redundant trailing zero group. */
  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.byte();
      if (shift === 63n && byte > 1) throw new RangeError('varint overflow');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (byte === 0 && shift > 0n) throw new RangeError('non-canonical varint');
        return value;
      }
    }
    throw new RangeError('varint too long');
  }

  /** A count that must fit in what is left, each element taking at least `minBytes`. */
  count(minBytes: number): number {
    const value = this.varint();
    if (value > BigInt(Math.floor((this.bytes.length - this.offset) / minBytes))) throw new RangeError('count exceeds the blob');
    return Number(value);
  }

  keys(n: number): void {
    this.take(n * KEY);
  }

  keyVector(): void {
    this.keys(this.count(KEY));
  }
}

/** The parsed transaction, or null when `hex` is not one this network would accept for relay. */
export function parseMoneroTransaction(hex: string): MoneroTransaction | null {
  if (hex.length < 200 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  try {
    return walk(hexToBytes(hex.toLowerCase()));
  } catch {
    return null;
  }
}

function walk(blob: Uint8Array): MoneroTransaction | null {
  const c = new Cursor(blob);
  if (c.varint() !== 2n) return null;
  c.varint(); // unlock_time

  const ringSizes: number[] = [];
  const inputs = c.count(1);
  if (inputs === 0) return null;
  for (let i = 0; i < inputs; i += 1) {
    const tag = c.byte();
    if (tag === TAG_TXIN_GEN || tag !== TAG_TXIN_TO_KEY) return null;
    c.varint(); // amount: 0 under RingCT
    const ring = c.count(1);
    if (ring === 0) return null;
    for (let j = 0; j < ring; j += 1) c.varint();
    c.keys(1); // key image
    ringSizes.push(ring);
  }
  // Every ring in one transaction has the same size (the prunable part is laid out by it).
  if (ringSizes.some((size) => size !== ringSizes[0])) return null;

  const outputs = c.count(1);
  if (outputs === 0) return null;
  for (let i = 0; i < outputs; i += 1) {
    c.varint(); // amount
    const tag = c.byte();
    if (tag === TAG_TXOUT_TO_KEY) c.keys(1);
    else if (tag === TAG_TXOUT_TO_TAGGED_KEY) c.take(KEY + 1);
    else return null;
  }
  c.take(c.count(1)); // extra
  const prefixEnd = c.offset;

  const rctType = c.byte();
  if (rctType < RCT_BULLETPROOF || rctType > RCT_BULLETPROOF_PLUS) return null;
  const feeAtomic = c.varint();
  // ecdhInfo: the 8-byte amount since Bulletproof2, mask and amount (2 × 32) before.
  c.take(outputs * (rctType === RCT_BULLETPROOF ? 2 * KEY : 8));
  c.keys(outputs); // outPk
  const baseEnd = c.offset;

  if (rctType === RCT_BULLETPROOF) {
    // Type 3 counted its proofs with a fixed uint32, later types with a varint.
    const b = c.take(4);
    const n = (b[0]! | (b[1]! << 8) | (b[2]! << 16)) + b[3]! * 2 ** 24;
    if (n === 0 || n > outputs) return null;
    for (let i = 0; i < n; i += 1) bulletproof(c);
  } else {
    const n = c.count(KEY);
    if (n === 0 || n > outputs) return null;
    for (let i = 0; i < n; i += 1) {
      if (rctType === RCT_BULLETPROOF_PLUS) bulletproofPlus(c);
      else bulletproof(c);
    }
  }
  const ring = ringSizes[0]!;
  for (let i = 0; i < inputs; i += 1) {
    if (rctType >= 5) c.keys(ring + 2); // CLSAG: s[ring], c1, D
    else c.keys(ring * 2 + 1); // MLSAG: ss[ring][2], cc
  }
  c.keys(inputs); // pseudoOuts
  if (c.offset !== blob.length) return null;

  const txid = keccak_256(
    concatBytes(keccak_256(blob.subarray(0, prefixEnd)), keccak_256(blob.subarray(prefixEnd, baseEnd)), keccak_256(blob.subarray(baseEnd))),
  );
  return { txid: bytesToHex(txid), inputs, outputs, rctType, feeAtomic };
}

/** Bulletproof: A, S, T1, T2, taux, mu, L[], R[], a, b, t (V is not serialized). */
function bulletproof(c: Cursor): void {
  c.keys(6);
  c.keyVector();
  c.keyVector();
  c.keys(3);
}

/** Bulletproof+: A, A1, B, r1, s1, d1, L[], R[] (V is not serialized). */
function bulletproofPlus(c: Cursor): void {
  c.keys(6);
  c.keyVector();
  c.keyVector();
}
