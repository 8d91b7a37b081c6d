import { expect } from 'chai';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  decodeGrinOutputMessage,
  grinRewindHash,
  grinRewindNonce,
  parseRewindHash,
  rewindBulletproof,
  rewoundValue,
  scanGrinOutputs,
  type ChainOutput,
} from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

interface RewindCase {
  id: string;
  category: string;
  description: string;
  rewind_input: { commit: string; proof: string; nonce: string; extra_data: string | null };
  expected: { ok: boolean; failure?: string; value?: string; blind?: string; message?: string };
}

const bulletproofs = loadVectors<{ cases: RewindCase[] }>('grin/bulletproof-rewind.json');
const scan = loadVectors<any>('grin/scan-rewind-hash.json');

describe('crypto: Grin bulletproof rewind (secp256k1-zkp vectors)', () => {
  it('has cases that rewind and cases that fail', () => {
    expect(bulletproofs.cases.some((c) => c.expected.ok)).to.equal(true);
    expect(bulletproofs.cases.some((c) => !c.expected.ok)).to.equal(true);
  });

  for (const c of bulletproofs.cases) {
    it(`${c.id} (${c.category}): ${c.expected.ok ? 'rewinds' : `fails with ${c.expected.failure}`}`, () => {
      const input = c.rewind_input;
      const result = rewindBulletproof(hexToBytes(input.commit), hexToBytes(input.proof), hexToBytes(input.nonce), input.extra_data === null ? null : hexToBytes(input.extra_data));
      expect(result.ok).to.equal(c.expected.ok);
      if (result.ok) {
        expect(result.value.toString()).to.equal(c.expected.value);
        expect(bytesToHex(result.message)).to.equal(c.expected.message);
        expect(bytesToHex(result.blind)).to.equal(c.expected.blind);
      } else {
        expect(result.failure).to.equal(c.expected.failure === 'commit_parse' ? 'commit_parse' : 'rewind_failed');
      }
      // The scan's rewind (no extra data in Grin) opens exactly what the full one opens, to the same value.
      if (input.extra_data === null) expect(rewoundValue(hexToBytes(input.commit), hexToBytes(input.proof), hexToBytes(input.nonce))?.toString() ?? null).to.equal(c.expected.ok ? c.expected.value : null);
    });
  }

  it('refuses truncated proofs and short nonces without throwing', () => {
    const c = bulletproofs.cases.find((x) => x.expected.ok)!.rewind_input;
    expect(rewindBulletproof(hexToBytes(c.commit), hexToBytes(c.proof).slice(0, 192), hexToBytes(c.nonce)).ok).to.equal(false);
    expect(rewindBulletproof(hexToBytes(c.commit), hexToBytes(c.proof), hexToBytes(c.nonce).slice(1)).ok).to.equal(false);
    expect(rewindBulletproof(new Uint8Array(33), hexToBytes(c.proof), hexToBytes(c.nonce))).to.deep.equal({ ok: false, failure: 'commit_parse' });
  });
});

describe('crypto: Grin view-only scan with a rewind hash (grin-wallet vectors)', () => {
  for (const d of scan.rewind_hash_derivation) {
    it(`rewind hash of ${d.public_root_key.slice(0, 16)}…`, () => {
      expect(bytesToHex(grinRewindHash(hexToBytes(d.public_root_key)))).to.equal(d.rewind_hash);
    });
  }

  it('derives every per-output nonce', () => {
    expect(scan.nonce_derivation.length).to.be.greaterThan(10);
    for (const d of scan.nonce_derivation) expect(bytesToHex(grinRewindNonce(hexToBytes(d.rewind_hash), hexToBytes(d.commit))!)).to.equal(d.rewind_nonce);
  });

  for (const c of scan.cases) {
    it(`${c.id}: ${c.expected.found ? `found, ${c.expected.value} nanogrin` : 'not found'}`, () => {
      const rewindHash = hexToBytes(c.rewind_hash);
      const commit = hexToBytes(c.commit);
      const nonce = grinRewindNonce(rewindHash, commit)!;
      if (c.expected_rewind_nonce) expect(bytesToHex(nonce)).to.equal(c.expected_rewind_nonce);
      const result = rewindBulletproof(commit, hexToBytes(c.proof), nonce);
      expect(result.ok).to.equal(c.expected.found);
      if (result.ok) {
        expect(result.value.toString()).to.equal(c.expected.value);
        expect(bytesToHex(result.message)).to.equal(c.expected.message);
        expect(decodeGrinOutputMessage(result.message)).to.deep.equal(c.expected.decoded_message);
      }
    });
  }

  for (const batch of scan.scan_batches) {
    it(`${batch.id}: the scan finds exactly the wallet's outputs and their balance`, () => {
      const result = scanGrinOutputs(hexToBytes(batch.rewind_hash), batch.outputs as ChainOutput[], batch.coinbase_maturity);
      expect(result.outputs.map((o) => ({ ...o, value: o.value.toString() }))).to.deep.equal(batch.expected.output_result);
      if (batch.expected.total_balance !== undefined) expect(result.total.toString()).to.equal(batch.expected.total_balance);
    });
  }

  it('validates the rewind-hash string as the owner API does', () => {
    for (const v of scan.rewind_hash_string_validation) {
      const parsed = parseRewindHash(v.input);
      expect(parsed !== null, v.input).to.equal(v.accepted);
      if (parsed) expect(bytesToHex(parsed)).to.equal(v.normalized);
    }
  });
});
