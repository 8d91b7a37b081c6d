/**
 * The modular inverse a⁻¹ mod m of an odd modulus, by Bernstein–Yang divsteps in batches, the
 * way libsecp256k1 computes it in variable time (`secp256k1_modinv32_var` in modinv32_impl.h,
 * with 24 for 30): each batch decides 24 steps from the low 24 bits of f and g in 32-bit integer
 * arithmetic, then applies its matrix to f, g (`limbs.ts`) and to d, e, kept in (−2m, m) by
 * adding the multiple of m that clears their low bits. About 10 µs for a 256-bit modulus, where
 * noble's `Fn.inv` (extended Euclid on BigInt) takes about 45 µs.
 * @module
 */
import { applyMatrix, BATCH, bigintOf, LIMB, LIMBS, limbsOf, modulusLimbs, type Matrix } from './limbs.js';

/** libsecp256k1's table: INV256[i] = −(2i + 1)⁻¹ mod 256. */
const INV256 = Uint8Array.from({ length: 128 }, (_, i) => {
  const odd = 2 * i + 1;
  let inverse = odd; // odd · odd ≡ 1 (mod 8); each Newton step doubles the bits
  for (let k = 0; k < 3; k++) inverse = (inverse * (2 - odd * inverse)) & 255;
  return -inverse & 255;
});
const LOW24 = LIMB - 1;
/** Far beyond what 256-bit inputs take (about 30 batches); past it extended Euclid answers. */
const MAX_BATCHES = 128;

interface Steps extends Matrix {
  eta: number;
}

/** 24 divsteps from the low bits of f and g (libsecp256k1's divsteps_30_var); wrapping 32-bit arithmetic, entries end within ±2²⁴. */
function divsteps(state: Steps, f0: number, g0: number): void {
  let eta = state.eta;
  let u = 1;
  let v = 0;
  let q = 0;
  let r = 1;
  let f = f0 | 0;
  let g = g0 | 0;
  let i = BATCH;
  for (;;) {
    // A sentinel bit stops the count of zeros at i; those steps only halve g.
    const bottom = g | (-1 << i);
    const zeros = 31 - Math.clz32(bottom & -bottom);
    g >>>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    i -= zeros;
    if (i === 0) break;
    if (eta < 0) {
      // f, g ← g, −f
      eta = -eta;
      const tf = f;
      f = g;
      g = -tf | 0;
      const tu = u;
      u = q;
      q = -tu | 0;
      const tv = v;
      v = r;
      r = -tv | 0;
    }
    // Cancel up to 8 low bits of g with a multiple of f: no more than the steps left, nor than eta + 1.
    const m = ((1 << (eta + 1 > i ? i : eta + 1)) - 1) & 255;
    const w = Math.imul(g, INV256[(f >>> 1) & 127]!) & m;
    g = (g + Math.imul(f, w)) | 0;
    q = (q + Math.imul(u, w)) | 0;
    r = (r + Math.imul(v, w)) | 0;
  }
  state.eta = eta;
  state.u = u;
  state.v = v;
  state.q = q;
  state.r = r;
}

/** x mod 2²⁴ for an integer-valued double below 2⁵³ in magnitude, in [0, 2²⁴). */
const low24 = (x: number): number => x - Math.floor(x / LIMB) * LIMB;

/**
 * d, e ← (t·[d, e] + m·[md, me]) / 2²⁴ (libsecp256k1's update_de_30): md and me are the
 * multiples of m that make the sums divisible, chosen so d and e stay in (−2m, m).
 */
function updateDe(d: Float64Array, e: Float64Array, t: Matrix, m: Float64Array, mInverse24: number): void {
  const { u, v, q, r } = t;
  const dNegative = d[LIMBS - 1]! < 0;
  const eNegative = e[LIMBS - 1]! < 0;
  let md = (dNegative ? u : 0) + (eNegative ? v : 0);
  let me = (dNegative ? q : 0) + (eNegative ? r : 0);
  let cd = u * d[0]! + v * e[0]!;
  let ce = q * d[0]! + r * e[0]!;
  md -= (Math.imul(mInverse24, low24(cd)) + md) & LOW24;
  me -= (Math.imul(mInverse24, low24(ce)) + me) & LOW24;
  cd = (cd + m[0]! * md) / LIMB;
  ce = (ce + m[0]! * me) / LIMB;
  for (let k = 1; k < LIMBS; k++) {
    cd += u * d[k]! + v * e[k]! + m[k]! * md;
    ce += q * d[k]! + r * e[k]! + m[k]! * me;
    const hd = Math.floor(cd / LIMB);
    const he = Math.floor(ce / LIMB);
    d[k - 1] = cd - hd * LIMB;
    e[k - 1] = ce - he * LIMB;
    cd = hd;
    ce = he;
  }
  d[LIMBS - 1] = cd;
  e[LIMBS - 1] = ce;
}

/** a⁻¹ mod m by extended Euclid on BigInt: the fallback, and the tests' independent answer. */
export function invertBigint(a: bigint, m: bigint): bigint {
  let r0 = m;
  let r1 = ((a % m) + m) % m;
  let t0 = 0n;
  let t1 = 1n;
  while (r1 !== 0n) {
    const quotient = r0 / r1;
    [r0, r1] = [r1, r0 - quotient * r1];
    [t0, t1] = [t1, t0 - quotient * t1];
  }
  if (r0 !== 1n) throw new RangeError('invert: the number has no inverse modulo m');
  return t0 < 0n ? t0 + m : t0;
}

/** m⁻¹ mod 2²⁴ from m's low limb (odd): m · m ≡ 1 (mod 8), and each Newton step doubles the bits. */
function inverse24(low: number): number {
  let inverse = low;
  for (let k = 0; k < 3; k++) inverse = Math.imul(inverse, 2 - Math.imul(low, inverse)) & LOW24;
  return inverse;
}

/** a⁻¹ mod m for an odd modulus 3 ≤ m < 2²⁵⁶; a RangeError when gcd(a, m) ≠ 1. */
export function invert(a: bigint, m: bigint): bigint {
  if ((m & 1n) === 0n || m < 3n || m >> 256n !== 0n) throw new RangeError('invert: the modulus must be odd, at least 3 and below 2^256');
  let x = a % m;
  if (x < 0n) x += m;
  const batched = batchedInverse(x, m);
  if (batched === null) return invertBigint(x, m);
  if (batched === 'none') throw new RangeError('invert: the number has no inverse modulo m');
  return batched;
}

/**
 * The batched steps alone, for 0 ≤ x < m (m as `invert` takes it): x⁻¹ mod m, 'none' when
 * gcd(x, m) ≠ 1, or null when g does not reach 0 within the budget (a failure the tests look
 * for: it must never happen).
 */
export function batchedInverse(x: bigint, m: bigint): bigint | 'none' | null {
  const mLimbs = modulusLimbs(m);
  const mInverse24 = inverse24(mLimbs[0]!);
  const f = mLimbs.slice();
  const g = limbsOf(x);
  const d = new Float64Array(LIMBS);
  const e = new Float64Array(LIMBS);
  e[0] = 1;
  const state: Steps = { eta: -1, u: 1, v: 0, q: 0, r: 1 };
  let len = LIMBS;
  for (let batch = 0; ; batch++) {
    if (batch === MAX_BATCHES) return null;
    // While f and g are longer than one limb, limb 0 holds their low 24 bits; at one limb it is their signed value.
    divsteps(state, f[0]!, g[0]!);
    updateDe(d, e, state, mLimbs, mInverse24);
    applyMatrix(f, g, len, state);
    if (g[0] === 0) {
      let rest = 0;
      for (let k = 1; k < len; k++) rest += Math.abs(g[k]!);
      if (rest === 0) break;
    }
    // Both top limbs 0 or −1: fold the top limb's sign into the one below.
    const fn = f[len - 1]!;
    const gn = g[len - 1]!;
    if (len > 1 && (fn === 0 || fn === -1) && (gn === 0 || gn === -1)) {
      f[len - 2] = f[len - 2]! + fn * LIMB;
      g[len - 2] = g[len - 2]! + gn * LIMB;
      len--;
    }
  }
  // g = 0, so f = ±gcd(x, m), and d = ±x⁻¹ when that is 1.
  const gcd = bigintOf(f, len);
  if (gcd !== 1n && gcd !== -1n) return 'none';
  let inverse = bigintOf(d) % m;
  if (gcd < 0n) inverse = -inverse;
  return inverse < 0n ? inverse + m : inverse;
}
