import { expect } from 'chai';
import { batchedJacobi, jacobi, jacobiBigint } from '../../../packages/core/src/crypto/jacobi.js';
import { bigStream } from '../../harness/big-stream.js';

/**
 * The batched Jacobi symbol against answers computed another way: Euler's criterion
 * (a^((p−1)/2) mod p) for prime moduli, the product over a composite's prime factors, and the
 * classic BigInt algorithm on random odd moduli of every size up to 2²⁶⁴. Pure function: no dialect.
 */
const P = 2n ** 256n - 2n ** 32n - 977n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** 2²⁵⁵ − 19, the Curve25519 prime: another 256-bit prime whose limbs differ from secp256k1's. */
const P25519 = 2n ** 255n - 19n;

const power = (base: bigint, exponent: bigint, m: bigint): bigint => {
  let result = 1n;
  base %= m;
  for (; exponent > 0n; exponent >>= 1n, base = (base * base) % m) if (exponent & 1n) result = (result * base) % m;
  return result;
};
const euler = (a: bigint, p: bigint): number => {
  const e = power(((a % p) + p) % p, (p - 1n) / 2n, p);
  return e === 0n ? 0 : e === 1n ? 1 : -1;
};


describe('crypto: Jacobi symbol', () => {
  for (const [name, p] of [
    ['secp256k1 p', P],
    ['secp256k1 n', N],
    ['2^255 − 19', P25519],
  ] as const) {
    it(`is Euler's criterion for 3,000 values modulo ${name}`, () => {
      const next = bigStream(p);
      for (let i = 0; i < 3_000; i++) {
        const a = next() % p;
        expect(jacobi(a, p), `${a}`).to.equal(euler(a, p));
        // The batched steps decided it themselves: the BigInt fallback never answered for a coprime input.
        if (a !== 0n) expect(batchedJacobi(a, p), `batched ${a}`).to.equal(euler(a, p));
      }
    });
  }

  it('knows the squares: (x² | p) = 1 and, p ≡ 3 (mod 4), (−x² | p) = −1', () => {
    const next = bigStream(7n);
    for (let i = 0; i < 500; i++) {
      const x = (next() % (P - 1n)) + 1n;
      expect(jacobi((x * x) % P, P)).to.equal(1);
      expect(jacobi(P - ((x * x) % P), P)).to.equal(-1);
    }
  });

  it('is the product over prime factors for composite moduli, and 0 when they share a factor', () => {
    const primes = [3n, 5n, 7n, 11n, 13n, 10007n, P];
    for (const p of primes) {
      for (const q of primes) {
        const m = p * q;
        if (m >> 264n !== 0n) continue;
        for (const a of [0n, 1n, 2n, 3n, 5n, 6n, 7n, 1234567n, m - 1n, m + 2n, -5n, 2n ** 200n + 1n]) {
          expect(jacobi(a, m), `(${a} | ${p}·${q})`).to.equal(euler(a, p) * euler(a, q));
        }
      }
    }
  });

  it('matches the BigInt algorithm on random odd moduli of every size from 2 to 264 bits', () => {
    const next = bigStream(99n);
    for (let bits = 2; bits <= 264; bits++) {
      for (let k = 0; k < 12; k++) {
        const m = ((next() * 2n ** 8n + next()) % 2n ** BigInt(bits)) | 1n | (1n << BigInt(bits - 1));
        const a = next() * next();
        expect(jacobi(a, m), `(${a} | ${m})`).to.equal(jacobiBigint(a, m));
        // The batched steps decide every coprime input themselves (null only when gcd(a, m) ≠ 1, whose symbol is 0).
        const reduced = a % m;
        if (reduced !== 0n) expect(batchedJacobi(reduced, m) ?? 0, `batched (${a} | ${m})`).to.equal(jacobiBigint(a, m));
      }
    }
  });

  it('refuses an even modulus, one below 3 and one of 2^264 or more', () => {
    for (const m of [4n, 1n, -3n, 2n ** 264n + 1n]) expect(() => jacobi(5n, m)).to.throw(RangeError);
    expect(jacobi(5n, 2n ** 264n - 1n)).to.equal(jacobiBigint(5n, 2n ** 264n - 1n));
  });
});
