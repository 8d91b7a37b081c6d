import { expect } from 'chai';
import { cryptonoteBase58Decode, cryptonoteBase58Encode, decodeVarint, encodeVarint } from '../../../packages/core/src/crypto/cryptonote-base58.js';

/**
 * Monero's block base58 and varint at their boundaries, with hand-computed known answers:
 * base58 digit i is the i-th character of 123456789ABCDEFGHJKLMNPQRSTUVWXYZabc…, a byte block is
 * a big-endian number written in ENCODED_SIZE[n] digits; a varint is LEB128 (7 bits per byte,
 * low group first, high bit = "more").
 */
describe('crypto: Monero block base58 at block boundaries (hand-computed blocks)', () => {
  it('encodes a 1-byte block in 2 digits, an 8-byte block in 11, and 9 bytes as 11 + 2', () => {
    // 0x80 = 128 = 2·58 + 12 → digits 2, 12 → "3D"; 0x00 → "11".
    expect(cryptonoteBase58Encode(Uint8Array.of(0x80))).to.equal('3D');
    expect(cryptonoteBase58Encode(new Uint8Array(8))).to.equal('11111111111');
    expect(cryptonoteBase58Encode(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0x80))).to.equal('11111111111' + '3D');
    expect(cryptonoteBase58Encode(new Uint8Array(0))).to.equal('');
  });

  it('decodes the same blocks back, and nothing for the empty string', () => {
    expect(cryptonoteBase58Decode('3D')).to.deep.equal(Uint8Array.of(0x80));
    expect(cryptonoteBase58Decode('11111111111' + '3D')).to.deep.equal(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0x80));
    expect(cryptonoteBase58Decode('11111111111')).to.deep.equal(new Uint8Array(8));
    expect(cryptonoteBase58Decode('')).to.deep.equal(new Uint8Array(0));
  });
});

describe('crypto: Monero varint (LEB128)', () => {
  it('writes 127 in one byte and 128 in two (the 0x80 boundary), 300 as ac 02, 4146 as b2 20', () => {
    expect(encodeVarint(0)).to.deep.equal(Uint8Array.of(0x00));
    expect(encodeVarint(127)).to.deep.equal(Uint8Array.of(0x7f));
    expect(encodeVarint(128)).to.deep.equal(Uint8Array.of(0x80, 0x01));
    expect(encodeVarint(300)).to.deep.equal(Uint8Array.of(0xac, 0x02));
    // Wownero's mainnet address tag: 4146 = 32·128 + 50 → 0x32|0x80, 0x20.
    expect(encodeVarint(4146)).to.deep.equal(Uint8Array.of(0xb2, 0x20));
  });

  it('reads those bytes back with their length, from an offset too', () => {
    expect(decodeVarint(Uint8Array.of(0x80, 0x01))).to.deep.equal({ value: 128, length: 2 });
    expect(decodeVarint(Uint8Array.of(0xb2, 0x20, 0xff))).to.deep.equal({ value: 4146, length: 2 });
    expect(decodeVarint(Uint8Array.of(0xff, 0xac, 0x02), 1)).to.deep.equal({ value: 300, length: 2 });
  });

  it('refuses a varint that runs off the end of the bytes', () => {
    expect(decodeVarint(Uint8Array.of(0x80))).to.equal(null);
    expect(decodeVarint(new Uint8Array(0))).to.equal(null);
    expect(decodeVarint(Uint8Array.of(0x01, 0x80), 1)).to.equal(null);
    expect(decodeVarint(Uint8Array.of(0x01), 1)).to.equal(null);
  });

  it('reads at most 8 bytes: 80×7 01 is 2^49, 80×8 01 is refused', () => {
    expect(decodeVarint(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01))).to.deep.equal({ value: 2 ** 49, length: 8 });
    expect(decodeVarint(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01))).to.equal(null);
    // 2^53 − 1 (seven 0xff then 0x0f) is the largest exact value; 2^53 and 2^56 − 1 would come back rounded.
    expect(decodeVarint(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f))).to.deep.equal({ value: 9_007_199_254_740_991, length: 8 });
    expect(decodeVarint(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10))).to.equal(null);
    expect(decodeVarint(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f))).to.equal(null);
  });
});
