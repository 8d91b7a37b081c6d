import { expect } from 'chai';
import { hexToBytes } from '@noble/hashes/utils.js';
import { cryptonoteBase58Decode, cryptonoteBase58Encode, verifyCryptonoteMessage, type CryptonoteNetwork } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

/**
 * Each refusal of the Monero message verifier, with its reason, starting from a real
 * monero-wallet-cli signature (test/vectors/xmr.json) changed in one respect. Pure: no dialect.
 */
interface XmrCase { id: string; network: CryptonoteNetwork; address: string; signing_mode: string; message_utf8_hex: string; signature: string; expected_valid: boolean; verifier_network?: string }

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const cases = loadVectors<{ cases: XmrCase[] }>('xmr.json').cases;
const valid = cases.find((c) => c.expected_valid && c.signing_mode === 'spend' && c.network === 'mainnet' && c.verifier_network === undefined && c.signature.startsWith('SigV2'))!;
const message = hexToBytes(valid.message_utf8_hex);
const base = { asset: 'xmr' as const, network: 'mainnet' as const, address: valid.address, message };

const toLittleEndian = (value: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));
const fromLittleEndian = (bytes: Uint8Array): bigint => bytes.reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n);

/** The vector's signature with c and/or r replaced, re-encoded the way the wallet encodes it. */
function withScalars(change: (c: bigint, r: bigint) => [bigint, bigint]): string {
  const raw = cryptonoteBase58Decode(valid.signature.slice(5))!;
  const [c, r] = change(fromLittleEndian(raw.subarray(0, 32)), fromLittleEndian(raw.subarray(32)));
  return `${valid.signature.slice(0, 5)}${cryptonoteBase58Encode(Uint8Array.of(...toLittleEndian(c), ...toLittleEndian(r)))}`;
}

describe('crypto: Monero message signature refusals, each with its reason', () => {
  it('the untouched vector verifies, and re-encoding its scalars unchanged gives the same signature', () => {
    expect(verifyCryptonoteMessage({ ...base, signature: valid.signature })).to.deep.equal({ ok: true, version: 2, mode: 'spend' });
    expect(withScalars((c, r) => [c, r])).to.equal(valid.signature);
  });

  for (const [label, change] of [
    ['c + L (the same c mod L, not canonical)', (c: bigint, r: bigint) => [c + L, r]],
    ['r + L', (c: bigint, r: bigint) => [c, r + L]],
    ['c = L exactly', (_c: bigint, r: bigint) => [L, r]],
    ['r = L exactly', (c: bigint) => [c, L]],
    ['c = 0', (_c: bigint, r: bigint) => [0n, r]],
  ] as const) {
    it(`non-canonical scalars: ${label}`, () => {
      expect(verifyCryptonoteMessage({ ...base, signature: withScalars(change as (c: bigint, r: bigint) => [bigint, bigint]) })).to.deep.equal({ ok: false, reason: 'non-canonical signature scalars' });
    });
  }

  it('c = L − 1 and r = L − 1 are canonical: they fail the equation, not the range check', () => {
    expect(verifyCryptonoteMessage({ ...base, signature: withScalars((_c, r) => [L - 1n, r]) })).to.deep.equal({ ok: false, reason: 'signature does not verify' });
    expect(verifyCryptonoteMessage({ ...base, signature: withScalars((c) => [c, L - 1n]) })).to.deep.equal({ ok: false, reason: 'signature does not verify' });
  });

  it('every other refusal names its reason', () => {
    expect(verifyCryptonoteMessage({ ...base, signature: `x${valid.signature}` })).to.deep.equal({ ok: false, reason: 'not a SigV1/SigV2 signature' });
    expect(verifyCryptonoteMessage({ ...base, signature: `SigV3${valid.signature.slice(5)}` })).to.deep.equal({ ok: false, reason: 'not a SigV1/SigV2 signature' });
    expect(verifyCryptonoteMessage({ ...base, signature: `SigV2${'z'.repeat(88)}` })).to.deep.equal({ ok: false, reason: 'signature is not 64 bytes of base58' });
    expect(verifyCryptonoteMessage({ ...base, address: `${valid.address.slice(0, -1)}${valid.address.endsWith('1') ? '2' : '1'}`, signature: valid.signature })).to.deep.equal({ ok: false, reason: 'invalid address' });
    expect(verifyCryptonoteMessage({ ...base, network: 'stagenet', signature: valid.signature })).to.deep.equal({ ok: false, reason: 'address is not on stagenet' });
    expect(verifyCryptonoteMessage({ ...base, message: Uint8Array.of(...message, 0x21), signature: valid.signature })).to.deep.equal({ ok: false, reason: 'signature does not verify' });
  });
});
