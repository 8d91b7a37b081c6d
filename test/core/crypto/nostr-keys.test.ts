import { expect } from 'chai';
import { bech32 } from '@scure/base';
import { parseNostrPubkey } from '../../../packages/core/src/crypto/index.js';

/** Nostr public keys as operators type them. Pure: no storage, so no dialect. */
// NIP-19's own example (nips/19.md): this npub is this hex key.
const NIP19_NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
const NIP19_HEX = '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e';
const P = 2n ** 256n - 2n ** 32n - 977n;

function isSquare(value: bigint): boolean {
  let result = 1n;
  for (let base = value % P, e = (P - 1n) / 2n; e > 0n; e >>= 1n, base = (base * base) % P) if (e & 1n) result = (result * base) % P;
  return result === 1n;
}

/** The smallest x (as 64 hex) with a curve point whose 256·x has one too: `<hex>00` then reads as a point if unanchored. */
function pointTwiceOver(): string {
  for (let x = 1n; ; x++) if (isSquare(x ** 3n + 7n) && isSquare((256n * x) ** 3n + 7n)) return x.toString(16).padStart(64, '0');
}

/** The smallest x with no curve point (x³ + 7 not a square mod p), found here with Euler's criterion. */
function offCurveX(): string {
  for (let x = 1n; ; x++) if (!isSquare(x ** 3n + 7n)) return x.toString(16).padStart(64, '0');
}

describe('crypto: Nostr public keys (hex or npub)', () => {
  it('reads the NIP-19 example npub, in either case, as its hex key', () => {
    expect(parseNostrPubkey(NIP19_NPUB)).to.equal(NIP19_HEX);
    expect(parseNostrPubkey(NIP19_NPUB.toUpperCase())).to.equal(NIP19_HEX);
    expect(parseNostrPubkey(`  ${NIP19_NPUB}\n`)).to.equal(NIP19_HEX);
  });

  it('reads hex in either case, trimmed, as lower-case hex', () => {
    expect(parseNostrPubkey(NIP19_HEX.toUpperCase())).to.equal(NIP19_HEX);
    expect(parseNostrPubkey(` ${NIP19_HEX} `)).to.equal(NIP19_HEX);
  });

  it('refuses hex and npubs with junk inside or attached, or of another length', () => {
    for (const text of [
      `x${NIP19_HEX}`,
      `${NIP19_HEX}x`,
      `${NIP19_HEX}00`,
      NIP19_HEX.slice(2),
      `x${NIP19_NPUB}`,
      `${NIP19_NPUB}q`,
      NIP19_NPUB.slice(0, -1),
      `${NIP19_NPUB.slice(0, -1)}${NIP19_NPUB.endsWith('g') ? 'h' : 'g'}`, // checksum broken
      NIP19_NPUB.replace('npub1', 'nsec1'),
      '',
    ]) {
      expect(parseNostrPubkey(text), JSON.stringify(text)).to.equal(null);
    }
  });

  it('digits attached to a valid hex key are refused, also where the longer number would be a point', () => {
    const key = pointTwiceOver();
    expect(parseNostrPubkey(key)).to.equal(key);
    for (const text of [`00${key}`, `${key}00`, `0${key}`]) expect(parseNostrPubkey(text), text).to.equal(null);
  });

  it('refuses a well-formed npub of another human-readable part or of a key that is not 32 bytes', () => {
    const key = Buffer.from(NIP19_HEX, 'hex');
    expect(parseNostrPubkey(bech32.encode('nsec', bech32.toWords(key)))).to.equal(null);
    expect(parseNostrPubkey(bech32.encode('npub', bech32.toWords(key.subarray(1))))).to.equal(null);
  });

  it('refuses x-coordinates with no point on secp256k1, as hex and as npub', () => {
    const off = offCurveX();
    expect(parseNostrPubkey(off)).to.equal(null);
    expect(parseNostrPubkey(bech32.encode('npub', bech32.toWords(Buffer.from(off, 'hex'))))).to.equal(null);
    // x ≥ p is not a field element at all.
    expect(parseNostrPubkey('f'.repeat(64))).to.equal(null);
    // The control: the generator's x is a point.
    expect(parseNostrPubkey('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798')).to.equal('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
  });
});
