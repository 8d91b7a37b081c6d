/**
 * 256-bit numbers as eleven 24-bit limbs in ordinary doubles, low limb first, for the batched
 * divstep algorithms (`jacobi.ts`, `modinv.ts`): a 24-step batch's matrix entries are at most
 * 2²⁴, so a limb times an entry stays below 2⁴⁸ and sums of a few stay exact. Only the top limb
 * may be negative (a signed value).
 * @module
 */

/** Steps per batch, and bits per limb: one batch shifts the numbers down by exactly one limb. */
export const BATCH = 24;
export const LIMB = 2 ** BATCH;
/** Enough for values below 2²⁶⁴: a 256-bit modulus with room for the updates' carries. */
export const LIMBS = 11;

/** The limbs of 0 ≤ value < 2²⁶⁴ (read from its hex digits: one BigInt operation). */
export function limbsOf(value: bigint): Float64Array {
  const limbs = new Float64Array(LIMBS);
  const hex = value.toString(16);
  let limb = 0;
  let bits = 0;
  let k = 0;
  for (let i = hex.length - 1; i >= 0; i--) {
    const c = hex.charCodeAt(i);
    limb += (c <= 57 ? c - 48 : c - 87) * 2 ** bits;
    bits += 4;
    if (bits === BATCH) {
      limbs[k++] = limb;
      limb = 0;
      bits = 0;
    }
  }
  if (bits > 0) limbs[k] = limb;
  return limbs;
}

/** Callers ask about a few moduli over and over (secp256k1's p and n, in turn within one rewind): their limbs are kept. */
const knownModuli = new Map<bigint, Float64Array>();
const MAX_KNOWN_MODULI = 8;

/** A fresh copy of the modulus's limbs (the algorithms overwrite theirs). */
export function modulusLimbs(m: bigint): Float64Array {
  let limbs = knownModuli.get(m);
  if (limbs === undefined) {
    if (knownModuli.size === MAX_KNOWN_MODULI) knownModuli.clear();
    limbs = limbsOf(m);
    knownModuli.set(m, limbs);
  }
  return limbs.slice();
}

/** The value of the first `len` limbs, the top one signed. */
export function bigintOf(limbs: Float64Array, len: number = limbs.length): bigint {
  let value = BigInt(limbs[len - 1]!);
  for (let k = len - 2; k >= 0; k--) value = (value << BigInt(BATCH)) + BigInt(limbs[k]!);
  return value;
}

/** The low 32 bits of a limb number of two limbs or more (two's complement), what a batch decides its steps from. */
export const low32 = (limbs: Float64Array): number => (limbs[0]! + ((limbs[1]! & 0xff) << 24)) | 0;

/** A batch's 2×2 transition matrix: f′ = (u·f + v·g) / 2²⁴, g′ = (q·f + r·g) / 2²⁴. */
export interface Matrix {
  u: number;
  v: number;
  q: number;
  r: number;
}

/** Applies a batch's matrix to f and g over their first `len` limbs (exact: the batch cleared the low 24 bits). */
export function applyMatrix(f: Float64Array, g: Float64Array, len: number, t: Matrix): void {
  let cf = (t.u * f[0]! + t.v * g[0]!) / LIMB;
  let cg = (t.q * f[0]! + t.r * g[0]!) / LIMB;
  for (let k = 1; k < len; k++) {
    cf += t.u * f[k]! + t.v * g[k]!;
    cg += t.q * f[k]! + t.r * g[k]!;
    // Below 2⁵³ in magnitude: the floor of a division by a power of two is exact (and faster than %).
    const hf = Math.floor(cf / LIMB);
    const hg = Math.floor(cg / LIMB);
    f[k - 1] = cf - hf * LIMB;
    g[k - 1] = cg - hg * LIMB;
    cf = hf;
    cg = hg;
  }
  f[len - 1] = cf;
  g[len - 1] = cg;
}
