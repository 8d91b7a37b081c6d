import { expect } from 'chai';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { batchedInverse, invert, invertBigint } from '../../../packages/core/src/crypto/modinv.js';
import { bigStream } from '../../harness/big-stream.js';

/**
 * The batched modular inverse against answers found another way: a·a⁻¹ ≡ 1 checked by plain
 * multiplication, noble's `Fn.inv` for secp256k1's order, and extended Euclid on BigInt for odd
 * moduli of every size up to 256 bits (with the numbers that have no inverse). Pure function: no dialect.
 */
const N = secp256k1.Point.Fn.ORDER;
const P = secp256k1.Point.Fp.ORDER;
const P25519 = 2n ** 255n - 19n;

const orNone = (f: () => bigint): bigint | 'none' => {
  try {
    return f();
  } catch (err) {
    expect(err).to.be.instanceOf(RangeError);
    return 'none';
  }
};

describe('crypto: modular inverse', () => {
  for (const [name, m] of [
    ['secp256k1 n', N],
    ['secp256k1 p', P],
    ['2^255 − 19', P25519],
  ] as const) {
    it(`a · a⁻¹ ≡ 1 for 3,000 values modulo ${name}, the inverse in [1, m)`, () => {
      const next = bigStream(m);
      for (let i = 0; i < 3_000; i++) {
        const a = (next() % (m - 1n)) + 1n;
        const inverse = invert(a, m);
        expect(inverse > 0n && inverse < m && (a * inverse) % m === 1n, `${a}`).to.equal(true);
        // The batched steps found it themselves: extended Euclid never answered.
        expect(batchedInverse(a, m), `batched ${a}`).to.equal(inverse);
      }
    });
  }

  it('is noble’s Fn.inv modulo the group order, at the edges too (1, 2, n − 1, n + 1, negative a)', () => {
    const next = bigStream(3n);
    const values = [1n, 2n, N - 1n, N - 2n, 2n ** 255n, ...Array.from({ length: 200 }, () => next() % N || 1n)];
    for (const a of values) expect(invert(a, N), `${a}`).to.equal(secp256k1.Point.Fn.inv(a));
    expect(invert(N + 1n, N)).to.equal(1n);
    expect(invert(-1n, N)).to.equal(N - 1n);
  });

  it('matches extended Euclid on random odd moduli of every size from 2 to 256 bits, including the numbers with no inverse', () => {
    const next = bigStream(11n);
    let none = 0;
    for (let bits = 2; bits <= 256; bits++) {
      for (let k = 0; k < 12; k++) {
        const m = (next() % 2n ** BigInt(bits)) | 1n | (1n << BigInt(bits - 1));
        const a = k % 4 === 0 ? 3n * (next() % 1000n) : next();
        const expected = orNone(() => invertBigint(a, m));
        if (expected === 'none') none++;
        expect(orNone(() => invert(a, m)), `${a}⁻¹ mod ${m}`).to.equal(expected);
        expect(batchedInverse(((a % m) + m) % m, m), `batched ${a}⁻¹ mod ${m}`).to.equal(expected);
      }
    }
    expect(none).to.be.greaterThan(50);
  });

  it('refuses an even modulus, one below 3 and one of 2^256 or more, and 0', () => {
    for (const m of [4n, 1n, -3n, 2n ** 256n + 1n]) expect(() => invert(5n, m)).to.throw(RangeError);
    expect(() => invert(0n, N)).to.throw(RangeError);
    expect(() => invert(N, N)).to.throw(RangeError);
  });
});
