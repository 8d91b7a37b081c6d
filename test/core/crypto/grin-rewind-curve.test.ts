import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { rewindBulletproof } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

interface RewindCase {
  expected: { ok: boolean };
  rewind_input: { commit: string; proof: string; nonce: string; extra_data: string | null };
}

/**
 * The commitment check (x on the curve: x³ + 7 a square mod p, by the Jacobi symbol) against an
 * independent judge: noble's point decompression of 02‖x, which computes the square root. 512
 * x values from SHA-256 (about half on the curve), the edges around p, and a real proof so that a
 * valid x reaches the rewind (a miss: `rewind_failed`) while an invalid one stops at `commit_parse`.
 */
describe('crypto: Grin rewind commitment check against point decompression', () => {
  const { cases } = loadVectors<{ cases: RewindCase[] }>('grin/bulletproof-rewind.json');
  const real = cases.find((c) => c.expected.ok && c.rewind_input.extra_data === null)!;
  const proof = hexToBytes(real.rewind_input.proof);
  const nonce = hexToBytes(real.rewind_input.nonce);
  const P = secp256k1.Point.Fp.ORDER;
  const onCurve = (xHex: string) => {
    try {
      secp256k1.Point.fromHex(`02${xHex}`);
      return true;
    } catch {
      return false;
    }
  };
  const verdict = (xHex: string) => {
    const result = rewindBulletproof(hexToBytes(`08${xHex}`), proof, nonce);
    return result.ok ? 'ok' : result.failure;
  };

  it('agrees on 512 pseudo-random x (both answers occur)', () => {
    const seen = { on: 0, off: 0 };
    for (let i = 0; i < 512; i++) {
      const xHex = createHash('sha256').update(`grin commitment x ${i}`).digest('hex');
      const expected = BigInt(`0x${xHex}`) < P && onCurve(xHex) ? 'rewind_failed' : 'commit_parse';
      expect(verdict(xHex), xHex).to.equal(expected);
      seen[expected === 'rewind_failed' ? 'on' : 'off'] += 1;
    }
    expect(seen.on).to.be.greaterThan(200);
    expect(seen.off).to.be.greaterThan(200);
  });

  it('agrees at the small x and just below p', () => {
    for (const x of [1n, 2n, 3n, 4n, 5n, 6n, 7n, P - 1n, P - 2n, P - 3n]) {
      const xHex = x.toString(16).padStart(64, '0');
      expect(verdict(xHex), x.toString()).to.equal(onCurve(xHex) ? 'rewind_failed' : 'commit_parse');
    }
    expect(verdict(bytesToHex(hexToBytes(real.rewind_input.commit).subarray(1)))).to.equal('ok');
  });
});
