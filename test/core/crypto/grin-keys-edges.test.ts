import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { decodeSlatepackAddress, isEd25519PublicKeyHex, looksLikeSlatepackAddress, verifyGrinMessage } from '../../../packages/core/src/crypto/index.js';

/** Edges of the Grin key helpers the grin-wallet vectors leave open. Pure functions: no dialect. */
const P = 2n ** 255n - 19n;
const littleEndian = (value: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));

/**
 * y = 2 is not the y of any ed25519 point: x² = (y² − 1)/(d·y² + 1) = 3/(4d + 1) has no square
 * root mod p (checked here with Euler's criterion, independently of the library under test).
 */
function isSquare(value: bigint): boolean {
  let result = 1n;
  for (let base = ((value % P) + P) % P, e = (P - 1n) / 2n; e > 0n; e >>= 1n, base = (base * base) % P) if (e & 1n) result = (result * base) % P;
  return result === 1n;
}
const D = (((-121665n * modInverse(121666n)) % P) + P) % P;
function modInverse(a: bigint): bigint {
  let result = 1n;
  for (let base = a % P, e = P - 2n; e > 0n; e >>= 1n, base = (base * base) % P) if (e & 1n) result = (result * base) % P;
  return result;
}
const NOT_A_POINT = littleEndian(2n);

describe('crypto: Grin key edges', () => {
  it('y = 2 is not on the curve (the fixture below is what it claims to be)', () => {
    const x2 = (3n * modInverse((4n * D + 1n) % P)) % P;
    expect(isSquare(x2)).to.equal(false);
  });

  it('a 32-byte value that is not a curve point is neither a Grin public key nor a slatepack address', () => {
    expect(isEd25519PublicKeyHex(bytesToHex(NOT_A_POINT))).to.equal(false);
    expect(decodeSlatepackAddress(bech32.encode('grin', bech32.toWords(NOT_A_POINT)))).to.equal(null);
    // The control: the same encoding of a real key decodes.
    const real = ed25519.getPublicKey(new Uint8Array(32).fill(7));
    expect(decodeSlatepackAddress(bech32.encode('grin', bech32.toWords(real)))?.publicKey).to.deep.equal(real);
  });

  it('public-key hex is anchored at both ends and never throws on junk around it', () => {
    const key = bytesToHex(ed25519.getPublicKey(new Uint8Array(32).fill(9)));
    expect(isEd25519PublicKeyHex(key)).to.equal(true);
    expect(isEd25519PublicKeyHex(key.toUpperCase())).to.equal(true);
    for (const junk of [`zz${key}`, `${key}zz`, ` ${key}`, `${key}\n`]) expect(isEd25519PublicKeyHex(junk), JSON.stringify(junk)).to.equal(false);
  });

  it('only values starting with grin1 / tgrin1 (any case) look like slatepack addresses', () => {
    expect(looksLikeSlatepackAddress('grin1qqq')).to.equal(true);
    expect(looksLikeSlatepackAddress('TGRIN1QQQ')).to.equal(true);
    for (const other of ['xgrin1qqq', ' grin1qqq', 'ttgrin1qqq', 'agrin1']) expect(looksLikeSlatepackAddress(other), other).to.equal(false);
  });

  it('signatures verify with keys and signatures in either case', () => {
    const seed = new Uint8Array(32).fill(3);
    const message = utf8ToBytes('grin edge');
    const key = bytesToHex(ed25519.getPublicKey(seed));
    const signature = bytesToHex(ed25519.sign(message, seed));
    expect(verifyGrinMessage(key, message, signature)).to.equal(true);
    expect(verifyGrinMessage(key.toUpperCase(), message, signature.toUpperCase())).to.equal(true);
    for (const [k, s] of [
      [`${key}00`, signature],
      [key, `${signature}00`],
      [key, signature.slice(2)],
      [`zz${key.slice(2)}`, signature],
    ]) {
      expect(verifyGrinMessage(k!, message, s!)).to.equal(false);
    }
  });

  it('strict RFC 8032: the small-order identity key with R = identity and s = 0 is refused (ZIP-215 would accept it)', () => {
    const identity = littleEndian(1n);
    const signature = new Uint8Array(64);
    signature.set(identity, 0);
    const message = utf8ToBytes('any message at all');
    // The lenient rule really does accept it, so the refusal below is the strict mode's doing.
    expect(ed25519.verify(signature, message, identity, { zip215: true })).to.equal(true);
    expect(verifyGrinMessage(bytesToHex(identity), message, bytesToHex(signature))).to.equal(false);
    // The same with the identity's non-canonical encoding y = p + 1.
    const nonCanonical = littleEndian(P + 1n);
    expect(verifyGrinMessage(bytesToHex(nonCanonical), message, bytesToHex(signature))).to.equal(false);
  });
});
