import { expect } from 'chai';
import { chacha20 } from '@noble/ciphers/chacha.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { decodeGrinOutputMessage, rewindBulletproof, rewoundValue, scanGrinOutputs, type ChainOutput } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

/**
 * Edges of the Bulletproof rewind that the secp256k1-zkp and grin-wallet vectors leave open:
 * commitment encodings, scalar overflow, proof lengths, the four zero bytes of s, the output
 * message layout and malformed chain outputs. Pure functions: no dialect.
 */
interface RewindCase {
  id: string;
  rewind_input: { commit: string; proof: string; nonce: string };
  expected: { ok: boolean; value?: string; message?: string; blind?: string };
}
const bulletproofs = loadVectors<{ cases: RewindCase[] }>('grin/bulletproof-rewind.json');
const scan = loadVectors<any>('grin/scan-rewind-hash.json');

/** secp256k1's field prime and group order (SEC 2). */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const H_X = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
const be32 = (value: bigint): Uint8Array => hexToBytes(value.toString(16).padStart(64, '0'));
const big = (bytes: Uint8Array): bigint => BigInt(`0x${bytesToHex(bytes)}`);
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;

/** bp-s-01: a grin ProofBuilder proof that rewinds to 60 grin. */
const base = bulletproofs.cases.find((c) => c.id === 'bp-s-01')!;
const COMMIT = hexToBytes(base.rewind_input.commit);
const PROOF = hexToBytes(base.rewind_input.proof);
const NONCE = hexToBytes(base.rewind_input.nonce);
const VALUE = 60_000_000_000n;
const MESSAGE = '0000010300000000000000000000000700000000';

const withScalar = (proof: Uint8Array, offset: 0 | 32, value: bigint): Uint8Array => {
  const copy = proof.slice();
  copy.set(be32(value), offset);
  return copy;
};
const failed = { ok: false, failure: 'rewind_failed' };

/**
 * The first `length` bytes of the base proof with μ chosen so that s = 1 for `commit`:
 * μ = 1 − (ρx + α), with the transcript of the module's header computed here from the hash and
 * ChaCha20 primitives. Rewind never verifies a proof, so this opens with NONCE for any commitment bytes.
 */
const crafted = (length: number, commit: Uint8Array = COMMIT): Uint8Array => {
  const proof = PROOF.slice(0, length);
  const block = chacha20(NONCE, new Uint8Array(12), new Uint8Array(64), undefined, 0);
  const [alpha, rho] = [big(block.subarray(0, 32)), big(block.subarray(32, 64))];
  const parity = proof[64]!;
  const t = sha256(concatBytes(new Uint8Array(32), Uint8Array.of(2 * (commit[0]! & 1) + 1), commit.subarray(1), hexToBytes(H_X)));
  const pAS = Uint8Array.of(2 * (parity & 1) + ((parity >> 1) & 1));
  const y = sha256(concatBytes(t, pAS, proof.subarray(65, 129)));
  const z = sha256(concatBytes(y, pAS, proof.subarray(65, 129)));
  const pT = Uint8Array.of(2 * ((parity >> 2) & 1) + ((parity >> 3) & 1));
  const x = big(sha256(concatBytes(z, pT, proof.subarray(129, 193))));
  return withScalar(proof, 32, mod(1n - rho * x - alpha, N));
};

describe('crypto: Grin bulletproof rewind edges', () => {
  it('the base case rewinds to its vector’s value and message', () => {
    const result = rewindBulletproof(COMMIT, PROOF, NONCE);
    expect(result.ok && [result.value, bytesToHex(result.message)]).to.deep.equal([VALUE, MESSAGE]);
  });

  describe('commitment encoding', () => {
    it('refuses an x ≥ p even when x − p is on the curve (x = p + 1: 1 + 7 = 8 is a square mod p)', () => {
      const commit = concatBytes(Uint8Array.of(0x08), be32(P + 1n));
      expect(rewindBulletproof(commit, PROOF, NONCE)).to.deep.equal({ ok: false, failure: 'commit_parse' });
    });

    it('refuses an x not on the curve (x = 0: 7 is not a square mod p)', () => {
      for (const prefix of [0x08, 0x09]) expect(rewindBulletproof(concatBytes(Uint8Array.of(prefix), new Uint8Array(32)), PROOF, NONCE)).to.deep.equal({ ok: false, failure: 'commit_parse' });
    });

    it('refuses a 34-byte commitment whose x, read as a number, is the valid one', () => {
      const commit = concatBytes(COMMIT.subarray(0, 1), Uint8Array.of(0), COMMIT.subarray(1));
      expect(rewindBulletproof(commit, PROOF, NONCE)).to.deep.equal({ ok: false, failure: 'commit_parse' });
    });
  });

  describe('taux and mu are scalars in (0, n)', () => {
    it('taux is not in the transcript: n − 1 rewinds to the same value and message, n and n + 1 are refused', () => {
      const result = rewindBulletproof(COMMIT, withScalar(PROOF, 0, N - 1n), NONCE);
      expect(result.ok && [result.value, bytesToHex(result.message)]).to.deep.equal([VALUE, MESSAGE]);
      expect(rewindBulletproof(COMMIT, withScalar(PROOF, 0, N), NONCE)).to.deep.equal(failed);
      expect(rewindBulletproof(COMMIT, withScalar(PROOF, 0, N + 1n), NONCE)).to.deep.equal(failed);
    });
  });

  describe('s = μ + ρx + α must start with four zero bytes', () => {
    const mu = big(PROOF.subarray(32, 64));

    it('raising μ by 1 raises the value by 1 (the offsets below change s exactly as intended)', () => {
      const result = rewindBulletproof(COMMIT, withScalar(PROOF, 32, mod(mu + 1n, N)), NONCE);
      expect(result.ok && [result.value, bytesToHex(result.message)]).to.deep.equal([VALUE + 1n, MESSAGE]);
    });

    for (const byte of [0, 1, 2, 3]) {
      it(`a 1 in byte ${byte} of s is refused`, () => {
        const raised = mod(mu + (1n << BigInt(8 * (31 - byte))), N);
        expect(rewindBulletproof(COMMIT, withScalar(PROOF, 32, raised), NONCE)).to.deep.equal(failed);
      });
    }
  });

  describe('proof length: 193 to 1319 bytes', () => {
    const padded = (length: number) => concatBytes(PROOF, new Uint8Array(length - PROOF.length));

    it('rewind reads only the first 193 bytes: 193 bytes and 1319 bytes (zero-padded) rewind, 1320 bytes are refused', () => {
      for (const proof of [PROOF.slice(0, 193), padded(1319)]) {
        const result = rewindBulletproof(COMMIT, proof, NONCE);
        expect(result.ok && [result.value, bytesToHex(result.message)], `${proof.length} bytes`).to.deep.equal([VALUE, MESSAGE]);
      }
      expect(rewindBulletproof(COMMIT, padded(1320), NONCE)).to.deep.equal(failed);
    });

    /**
     * A proof of 192 bytes whose μ is chosen so that s = 1 if its shorter T2 were hashed as it is:
     * μ = 1 − (ρx + α), with the transcript of the module's header computed here from the hash
     * and ChaCha20 primitives. The same construction on 193 bytes rewinds to value 1, so the
     * 192-byte proof is refused only for its length.
     */
    it('a 192-byte proof is refused although μ makes s = 1 over its bytes', () => {
      const result = rewindBulletproof(COMMIT, crafted(193), NONCE);
      expect(result.ok && [result.value, bytesToHex(result.message)]).to.deep.equal([1n, '00'.repeat(20)]);
      expect(rewindBulletproof(COMMIT, crafted(192), NONCE)).to.deep.equal(failed);
    });
  });

  describe('the scan’s rewind (rewoundValue) checks the commitment after the proof opens', () => {
    it('a proof that opens for a commitment off the curve (x = 0) is refused by both, as commit_parse by the full rewind', () => {
      for (const prefix of [0x08, 0x09]) {
        const offCurve = concatBytes(Uint8Array.of(prefix), new Uint8Array(32));
        const proof = crafted(PROOF.length, offCurve);
        expect(rewindBulletproof(offCurve, proof, NONCE)).to.deep.equal({ ok: false, failure: 'commit_parse' });
        expect(rewoundValue(offCurve, proof, NONCE)).to.equal(null);
      }
    });

    it('the same construction on a commitment on the curve opens in both, to the value it was made for', () => {
      const proof = crafted(PROOF.length);
      const full = rewindBulletproof(COMMIT, proof, NONCE);
      expect(full.ok && full.value).to.equal(1n);
      expect(rewoundValue(COMMIT, proof, NONCE)).to.equal(1n);
    });

    it('refuses what the full rewind refuses before the transcript: x ≥ p, another prefix or length, bad scalars, a short proof', () => {
      const cases: Array<[Uint8Array, Uint8Array]> = [
        [concatBytes(Uint8Array.of(0x08), be32(P + 1n)), PROOF],
        [concatBytes(Uint8Array.of(0x0a), COMMIT.subarray(1)), PROOF],
        [concatBytes(COMMIT.subarray(0, 1), Uint8Array.of(0), COMMIT.subarray(1)), PROOF],
        [COMMIT, withScalar(PROOF, 0, N)],
        [COMMIT, withScalar(PROOF, 32, 0n)],
        [COMMIT, PROOF.slice(0, 192)],
      ];
      for (const [commit, proof] of cases) {
        expect(rewindBulletproof(commit, proof, NONCE).ok).to.equal(false);
        expect(rewoundValue(commit, proof, NONCE)).to.equal(null);
      }
      expect(rewoundValue(COMMIT, PROOF, NONCE)).to.equal(VALUE);
    });
  });
});

describe('crypto: Grin output message layout', () => {
  it('decodes 0, 0, switch type, depth and the four path steps (big-endian)', () => {
    expect(decodeGrinOutputMessage(hexToBytes(MESSAGE))).to.deep.equal({ switch_commitment_type: 1, key_id: '0300000000000000000000000700000000', depth: 3, path: [0, 0, 7] });
    expect(decodeGrinOutputMessage(hexToBytes('0000000400000001000000020000000300000004'))).to.deep.equal({
      switch_commitment_type: 0,
      key_id: '0400000001000000020000000300000004',
      depth: 4,
      path: [1, 2, 3, 4],
    });
    expect(decodeGrinOutputMessage(hexToBytes('0000000000000000000000000000000000000000'))).to.deep.equal({ switch_commitment_type: 0, key_id: '00'.repeat(17), depth: 0, path: [] });
  });

  it('refuses another length, a non-zero first or second byte, a switch type above 1 and a depth above 4', () => {
    for (const hex of [
      '00000103000000000000000000000007000000',
      '000001030000000000000000000000070000000000',
      '0100010300000000000000000000000700000000',
      '0001010300000000000000000000000700000000',
      '0000020300000000000000000000000700000000',
      '0000010500000000000000000000000700000000',
    ]) {
      expect(decodeGrinOutputMessage(hexToBytes(hex)), hex).to.equal(null);
    }
  });
});

describe('crypto: Grin scan of malformed chain outputs', () => {
  const batch = scan.scan_batches.find((b: { id: string }) => b.id === 'batch-s-A');

  it('skips outputs whose commit or proof is not hex of the right shape, and still finds every output of the wallet', () => {
    const own = (batch.outputs as ChainOutput[])[0]!;
    const malformed: ChainOutput[] = [
      { ...own, commit: `x${own.commit}` },
      { ...own, commit: `${own.commit}x` },
      { ...own, commit: own.commit.slice(2) },
      { ...own, proof: `x${own.proof}` },
      { ...own, proof: `${own.proof}x` },
      { ...own, proof: `${own.proof}a` },
      { ...own, proof: '' },
      { ...own, commit: `zz${own.commit.slice(2)}`, proof: `${own.proof}x` },
      // Characters above U+00FF whose low byte is a hex digit (Node's decoder reads them so): İ is U+0130, š U+0161.
      { ...own, commit: own.commit.replace('0', '\u0130') },
      { ...own, proof: own.proof.replace('a', '\u0161') },
      { ...own, commit: null as unknown as string },
      { ...own, proof: 42 as unknown as string },
    ];
    expect(malformed[8]!.commit).to.have.length(66).and.not.equal(own.commit);
    expect(malformed[9]!.proof).to.have.length(own.proof.length).and.not.equal(own.proof);
    const result = scanGrinOutputs(hexToBytes(batch.rewind_hash), [...malformed, ...batch.outputs], batch.coinbase_maturity);
    expect(result.outputs.map((o) => ({ ...o, value: o.value.toString() }))).to.deep.equal(batch.expected.output_result);
    expect(result.total.toString()).to.equal(batch.expected.total_balance);
  });

  it('reads commit and proof hex in either case and reports the commit in lower case', () => {
    const own = (batch.outputs as ChainOutput[])[0]!;
    const result = scanGrinOutputs(hexToBytes(batch.rewind_hash), [{ ...own, commit: own.commit.toUpperCase(), proof: own.proof.toUpperCase() }], batch.coinbase_maturity);
    expect(result.outputs.map((o) => ({ ...o, value: o.value.toString() }))).to.deep.equal([batch.expected.output_result[0]]);
  });
});
