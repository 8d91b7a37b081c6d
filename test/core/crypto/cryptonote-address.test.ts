import { expect } from 'chai';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { cryptonoteBase58Decode, cryptonoteBase58Encode, decodeCryptonoteAddress, viewKeyMatches } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

/**
 * Address decoding and the private-view-key check, against published known answers only:
 * - knaccc's Monero subaddress example (also Bisq's WalletAddressTest): the mainnet address
 *   43amHgM9…42G with private view key 7b37d892…090a and public view key 3cd5a307…6faa;
 * - monerodocs.org "public-address" pages: the standard address 4AdUndXH…4Rge and the integrated
 *   address 4LL9oSLm…9khPK built from the same keys;
 * - the ed25519 base point G (y = 4/5, encoded 5866…66) and −G (the same with the sign bit set,
 *   …e6), which are 1·G and (ℓ−1)·G;
 * - the monero-wallet-cli addresses of test/vectors/xmr.json.
 */
const KNACCC = {
  address: '43amHgM9cDHhJY8tAujYi4MisCx4dvNQB5xVYbRLqPYLbVmH5qHcUgsjgsdoSdLK3TgRaBd68bCLaRcK8VakCUAJLGjz42G',
  privateViewKey: '7b37d8922245a07244fd31855d1e705a590a9bd2881825f0542ad99cdaba090a',
  publicViewKey: '3cd5a3079e8b4cff3630ce16bfda6eebb2da86169accdb93206a92a58d586faa',
};
const DOCS_STANDARD = '4AdUndXHHZ6cfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2684Rge';
const DOCS_INTEGRATED = '4LL9oSLmtpccfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2bYXZKKQePHES9khPK';

/** ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian hex (ed25519 group order). */
const L_HEX = 'edd3f55c1a631258d69cf7a2def9de14' + '00'.repeat(15) + '10';
const L_MINUS_1_HEX = 'ecd3f55c1a631258d69cf7a2def9de14' + '00'.repeat(15) + '10';
const L_PLUS_1_HEX = 'eed3f55c1a631258d69cf7a2def9de14' + '00'.repeat(15) + '10';
const ONE_HEX = '01' + '00'.repeat(31);
const G = hexToBytes('58' + '66'.repeat(31));
const MINUS_G = hexToBytes('58' + '66'.repeat(30) + 'e6');

interface XmrCase { network: 'mainnet' | 'testnet' | 'stagenet'; address: string; address_kind: string; address_public_view_key: string; expected_valid: boolean }
const vectors = loadVectors<{ cases: XmrCase[]; wallets_public: Record<string, { A: { address: string; public_view_key: string } }> }>('xmr.json');
const walletA = vectors.wallets_public.mainnet!.A;

/** tag ‖ spend ‖ view [‖ payment id] ‖ keccak256(…)[0..4], Monero block base58. */
function address(tag: number, spend: Uint8Array, view: Uint8Array): string {
  const body = concatBytes(Uint8Array.of(tag), spend, view);
  return cryptonoteBase58Encode(concatBytes(body, keccak_256(body).slice(0, 4)));
}

describe('crypto: viewKeyMatches (private view key b against the address\'s public view key B = b·G)', () => {
  const publicView = hexToBytes(KNACCC.publicViewKey);

  it('accepts the published key pair, in lower or upper case', () => {
    expect(viewKeyMatches(KNACCC.privateViewKey, publicView)).to.equal(true);
    expect(viewKeyMatches(KNACCC.privateViewKey.toUpperCase(), publicView)).to.equal(true);
  });

  it('reads the key little-endian: 01 00…00 is the scalar 1, whose point is G (not −G)', () => {
    expect(viewKeyMatches(ONE_HEX, G)).to.equal(true);
    expect(viewKeyMatches(ONE_HEX, MINUS_G)).to.equal(false);
    // Big-endian 1 would be 2^248·1: not G.
    expect(viewKeyMatches('00'.repeat(31) + '01', G)).to.equal(false);
  });

  it('accepts the largest canonical scalar ℓ−1, whose point is −G', () => {
    expect(viewKeyMatches(L_MINUS_1_HEX, MINUS_G)).to.equal(true);
    expect(viewKeyMatches(L_MINUS_1_HEX, G)).to.equal(false);
  });

  it('refuses, without throwing, the scalars 0, ℓ, ℓ+1 and 2^256−1 (not canonical private keys)', () => {
    // ℓ ≡ 0 and ℓ+1 ≡ 1: a multiplication mod ℓ would make ℓ+1 match G, so both must be refused first.
    for (const [key, point] of [['00'.repeat(32), G], [L_HEX, G], [L_PLUS_1_HEX, G], ['ff'.repeat(32), G]] as const) {
      expect(viewKeyMatches(key, point), key).to.equal(false);
    }
  });

  it('refuses another wallet\'s public view key and a private key changed in one bit', () => {
    expect(viewKeyMatches(KNACCC.privateViewKey, hexToBytes(walletA.public_view_key))).to.equal(false);
    expect(viewKeyMatches('7a' + KNACCC.privateViewKey.slice(2), publicView)).to.equal(false);
  });

  it('refuses a key that is not exactly 64 hex digits, even when its bytes would be the right scalar', () => {
    for (const key of [
      KNACCC.privateViewKey.slice(0, 63),
      KNACCC.privateViewKey + '0',
      KNACCC.privateViewKey + '00', // 33 bytes, the same little-endian value
      KNACCC.privateViewKey + '\n',
      KNACCC.privateViewKey + ' ',
      ' ' + KNACCC.privateViewKey,
      '0x' + KNACCC.privateViewKey,
      KNACCC.privateViewKey.slice(0, 62) + 'g0',
      '',
    ]) {
      expect(viewKeyMatches(key, publicView), JSON.stringify(key)).to.equal(false);
    }
  });

  it('refuses a public view key of the wrong length, even when it starts with the right 32 bytes', () => {
    expect(viewKeyMatches(KNACCC.privateViewKey, concatBytes(publicView, Uint8Array.of(0)))).to.equal(false);
    expect(viewKeyMatches(KNACCC.privateViewKey, publicView.subarray(0, 31))).to.equal(false);
    expect(viewKeyMatches(KNACCC.privateViewKey, new Uint8Array(0))).to.equal(false);
  });
});

describe('crypto: decodeCryptonoteAddress against published addresses', () => {
  it('decodes knaccc\'s address to its published public view key', () => {
    const decoded = decodeCryptonoteAddress(KNACCC.address, 'xmr');
    expect(decoded).to.include({ asset: 'xmr', network: 'mainnet', kind: 'standard' });
    expect(bytesToHex(decoded!.publicViewKey)).to.equal(KNACCC.publicViewKey);
  });

  it('decodes the monerodocs integrated address (tag 19, 8-byte payment id, 106 characters) to the keys of its standard address', () => {
    const standard = decodeCryptonoteAddress(DOCS_STANDARD, 'xmr');
    const integrated = decodeCryptonoteAddress(DOCS_INTEGRATED, 'xmr');
    expect(standard).to.include({ network: 'mainnet', kind: 'standard' });
    expect(integrated).to.include({ asset: 'xmr', network: 'mainnet', kind: 'integrated' });
    expect(bytesToHex(integrated!.publicSpendKey)).to.equal(bytesToHex(standard!.publicSpendKey));
    expect(bytesToHex(integrated!.publicViewKey)).to.equal(bytesToHex(standard!.publicViewKey));
  });

  it('Wownero reuses Monero\'s testnet and stagenet tags: the wallet-cli test-network addresses decode as wow too', () => {
    for (const network of ['testnet', 'stagenet'] as const) {
      const c = vectors.cases.find((x) => x.network === network && x.address_kind === 'primary')!;
      const decoded = decodeCryptonoteAddress(c.address, 'wow');
      expect(decoded, network).to.include({ asset: 'wow', network, kind: 'standard' });
      expect(bytesToHex(decoded!.publicViewKey)).to.equal(c.address_public_view_key);
    }
  });

  it('refuses bytes after the checksum, even when the checksum itself is right', () => {
    const bytes = cryptonoteBase58Decode(walletA.address)!;
    expect(bytes).to.have.length(69);
    expect(decodeCryptonoteAddress(cryptonoteBase58Encode(concatBytes(bytes, Uint8Array.of(0))), 'xmr')).to.equal(null);
    expect(decodeCryptonoteAddress(cryptonoteBase58Encode(concatBytes(bytes, bytes.slice(65))), 'xmr')).to.equal(null);
  });

  it('refuses a checksum wrong in a single byte (first or last)', () => {
    const bytes = cryptonoteBase58Decode(walletA.address)!;
    for (const index of [65, 68]) {
      const changed = Uint8Array.from(bytes);
      changed[index] = changed[index]! ^ 0x01;
      expect(decodeCryptonoteAddress(cryptonoteBase58Encode(changed), 'xmr'), `byte ${index}`).to.equal(null);
    }
  });

  it('refuses an address with a correct checksum whose spend key or view key alone is not a curve point', () => {
    // y = 2 is not the y of any ed25519 point ((y²−1)/(d·y²+1) has no square root mod p).
    const notAPoint = hexToBytes('02' + '00'.repeat(31));
    const bytes = cryptonoteBase58Decode(walletA.address)!;
    const spend = bytes.slice(1, 33);
    const view = bytes.slice(33, 65);
    expect(decodeCryptonoteAddress(address(18, spend, view), 'xmr'), 'the rebuilt address itself').to.not.equal(null);
    expect(decodeCryptonoteAddress(address(18, notAPoint, view), 'xmr'), 'spend key').to.equal(null);
    expect(decodeCryptonoteAddress(address(18, spend, notAPoint), 'xmr'), 'view key').to.equal(null);
  });

  it('refuses an overlong input before decoding it (a cost bound: 11 million characters in well under 100 ms)', () => {
    // The longest address is 108 characters (a Wownero integrated one). Decoding 11 MB of valid
    // base58 takes most of a second on the development machine; the length check takes nothing.
    const long = '1'.repeat(11_000_000);
    const started = performance.now();
    expect(decodeCryptonoteAddress(long, 'xmr')).to.equal(null);
    expect(performance.now() - started).to.be.below(100);
  });

  it('refuses short inputs: a varint that never ends, an unknown tag', () => {
    // "3D" is the one-byte block 0x80 (128 = 2·58 + 12): a varint continuation byte with nothing after it.
    expect(cryptonoteBase58Decode('3D')).to.deep.equal(Uint8Array.of(0x80));
    expect(decodeCryptonoteAddress('3D', 'xmr')).to.equal(null);
    // "11" is the one-byte block 0x00: tag 0 belongs to no network.
    expect(decodeCryptonoteAddress('11', 'xmr')).to.equal(null);
  });
});
