import { expect } from 'chai';
import { createPrivateKey, createPublicKey, sign as opensslSign } from 'node:crypto';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  assetSignatureShapeOk,
  compressedSecp256k1Hex,
  verifyAssetSignature,
  type AssetSignatureInput,
  type CryptonoteNetwork,
  type SigningAsset,
} from '../../../packages/core/src/crypto/index.js';
import { CryptonoteKey, loadVectors } from '../../harness/index.js';

/**
 * The edges of `asset-signature.ts` the vector walk-through leaves open: the shape check every
 * login and key proof runs first (each anchor, length and character class of each asset), the
 * compressed form btc/ltc keys are stored in, Wownero and Grin through the verifier, and every
 * refusal path (wrong key, wrong message, malformed signature, another network or asset).
 * Expected values are literals or real-wallet vectors (test/vectors/README.md); pure functions,
 * no dialect.
 */

interface MessageCase {
  id: string;
  pubkey: string;
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
  signature_header_byte: number;
}
interface XmrCase {
  id: string;
  network: CryptonoteNetwork;
  verifier_network?: CryptonoteNetwork;
  address: string;
  signing_mode: 'spend' | 'view';
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
}
interface SlatepackCase {
  id: string;
  public_key: string;
  address_grin: string;
  address_tgrin: string;
  derivation?: { ed25519_secret_seed: string };
}

const BTC = loadVectors<{ cases: MessageCase[] }>('btc.json').cases;
const LTC = loadVectors<{ cases: MessageCase[] }>('ltc.json').cases;
const XMR = loadVectors<{ cases: XmrCase[] }>('xmr.json').cases;
const SLATEPACK = loadVectors<{ encode_decode: SlatepackCase[] }>('grin/slatepack-address.json').encode_decode;

const validOf = (cases: MessageCase[], prefix: string): MessageCase => {
  const found = cases.find((c) => c.expected_valid && c.pubkey.startsWith(prefix));
  if (found === undefined) throw new Error(`no valid case with a ${prefix} key`);
  return found;
};
const btcCompressed = validOf(BTC, '02');
const btcOdd = validOf(BTC, '03');
const btcUncompressed = validOf(BTC, '04');
const ltcCompressed = validOf(LTC, '02');
const xmrSpend = (network: CryptonoteNetwork): XmrCase => {
  const found = XMR.find((c) => c.expected_valid && c.signing_mode === 'spend' && c.network === network && c.verifier_network === undefined);
  if (found === undefined) throw new Error(`no ${network} spend case`);
  return found;
};

const input = (asset: SigningAsset, publicKey: string, message: Uint8Array, signature: string, cryptonoteNetwork: CryptonoteNetwork = 'mainnet'): AssetSignatureInput => ({
  asset,
  publicKey,
  message,
  signature,
  cryptonoteNetwork,
});
const fromCase = (asset: 'btc' | 'ltc', c: MessageCase): AssetSignatureInput => input(asset, c.pubkey, hexToBytes(c.message_utf8_hex), c.signature);

/** A 32-byte Ed25519 seed as an OpenSSL private key (PKCS#8 prefix of RFC 8410): an implementation independent of the code under test. */
const ed25519Key = (seedHex: string) => createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
const opensslSignHex = (seedHex: string, message: Uint8Array): string => bytesToHex(opensslSign(null, message, ed25519Key(seedHex)));
const opensslPublicHex = (seedHex: string): string => bytesToHex(createPublicKey(ed25519Key(seedHex)).export({ format: 'der', type: 'spki' }).subarray(12));

/** RFC 8032 section 7.1, TESTs 1–3: public key, message, signature (literal). */
const RFC8032 = [
  {
    key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    key: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    key: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature: '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
] as const;

/** secp256k1's generator, in both encodings (SEC 2), and the field prime. */
const G_COMPRESSED = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const G_UNCOMPRESSED = '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const SECP_P = 2n ** 256n - 2n ** 32n - 977n;

/** The alphabets, literal: Bitcoin/Monero base58 (no 0, O, I, l), bech32's 32 data characters, RFC 4648 base64. */
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const cycle = (alphabet: string, length: number, from = 0): string => Array.from({ length }, (_, i) => alphabet[(from + i) % alphabet.length]).join('');

describe('asset signatures: compressedSecp256k1Hex', () => {
  it('turns the generator, given either way and in either case, into its compressed form', () => {
    expect(compressedSecp256k1Hex(G_COMPRESSED)).to.equal(G_COMPRESSED);
    expect(compressedSecp256k1Hex(G_UNCOMPRESSED)).to.equal(G_COMPRESSED);
    expect(compressedSecp256k1Hex(G_UNCOMPRESSED.toUpperCase())).to.equal(G_COMPRESSED);
    expect(compressedSecp256k1Hex(G_COMPRESSED.toUpperCase())).to.equal(G_COMPRESSED);
  });

  it('compresses the wallets\' uncompressed keys: 02 for an even y, 03 for an odd one', () => {
    // Electrum's imported uncompressed key (y ends in 0x8a) and litecoind's (y ends in 0xe9).
    expect(compressedSecp256k1Hex('04466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f276728176c3c6431f8eeda4538dc37c865e2784f3a9e77d044f33e407797e1278a')).to.equal(
      '02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27',
    );
    expect(compressedSecp256k1Hex('040f0fb9a244ad31a369ee02b7abfbbb0bfa3812b9a39ed93346d03d67d412d1777965c382f55222a9aed59cb8affc64bb5381f065eab9ef3baa57f2f0ac6bfae9')).to.equal(
      '030f0fb9a244ad31a369ee02b7abfbbb0bfa3812b9a39ed93346d03d67d412d177',
    );
    expect(compressedSecp256k1Hex(btcOdd.pubkey)).to.equal(btcOdd.pubkey);
  });

  it('is null for well-formed hex that is not a curve point', () => {
    // x = 0: y² = 7, and 7 is not a square mod p (Euler's criterion, computed here).
    let power = 1n;
    for (let base = 7n, e = (SECP_P - 1n) / 2n; e > 0n; e >>= 1n, base = (base * base) % SECP_P) if (e & 1n) power = (power * base) % SECP_P;
    expect(power).to.equal(SECP_P - 1n);
    expect(compressedSecp256k1Hex(`02${'00'.repeat(32)}`)).to.equal(null);
    // x = p is not a field element; the generator with y + 1 is off the curve.
    expect(compressedSecp256k1Hex(`03${SECP_P.toString(16)}`)).to.equal(null);
    expect(compressedSecp256k1Hex(`${G_UNCOMPRESSED.slice(0, -2)}b9`)).to.equal(null);
  });

  it('is null for anything that is not a 33- or 65-byte SEC encoding', () => {
    for (const bad of ['', '02', G_COMPRESSED.slice(0, -2), `${G_COMPRESSED}00`, `05${G_COMPRESSED.slice(2)}`, `06${G_UNCOMPRESSED.slice(2)}`, `04${G_COMPRESSED.slice(2)}`, ` ${G_COMPRESSED}`, `0x${G_COMPRESSED}`]) {
      expect(compressedSecp256k1Hex(bad), JSON.stringify(bad)).to.equal(null);
    }
  });
});

describe('asset signatures: the shape check', () => {
  const key02 = btcCompressed.pubkey;
  const key03 = btcOdd.pubkey;
  const key04 = btcUncompressed.pubkey;
  const sig = btcCompressed.signature;

  it('btc and ltc: compressed (02/03) and uncompressed (04) hex keys in either case, with a 65-byte base64 signature', () => {
    for (const asset of ['btc', 'ltc'] as const) {
      for (const key of [key02, key03, key04, key02.toUpperCase(), key03.toUpperCase(), key04.toUpperCase(), G_COMPRESSED, G_UNCOMPRESSED]) {
        expect(assetSignatureShapeOk(asset, key, sig), `${asset} ${key}`).to.equal(true);
      }
      expect(assetSignatureShapeOk(asset, ltcCompressed.pubkey, ltcCompressed.signature)).to.equal(true);
    }
  });

  it('btc and ltc: a key of another length, prefix or alphabet, or with text around it, is refused', () => {
    const bad = [
      '',
      key02.slice(0, -1),
      `${key02}0`,
      key04.slice(0, -1),
      `${key04}0`,
      `04${key02.slice(2)}`,
      `02${key04.slice(2)}`,
      `03${key04.slice(2)}`,
      `05${key02.slice(2)}`,
      `01${key02.slice(2)}`,
      `00${key02.slice(2)}`,
      `06${key04.slice(2)}`,
      `0${key02}`,
      `x${key02}`,
      `${key02}x`,
      `x${key04}`,
      `${key04}x`,
      `${key02}\n`,
      `02g${key02.slice(3)}`,
      `${key02.slice(0, -1)}g`,
      `04g${key04.slice(3)}`,
      `${key04.slice(0, -1)}g`,
      `02 ${key02.slice(3)}`,
      `04:${key04.slice(3)}`,
    ];
    for (const asset of ['btc', 'ltc'] as const) for (const key of bad) expect(assetSignatureShapeOk(asset, key, sig), `${asset} ${JSON.stringify(key)}`).to.equal(false);
  });

  it('btc and ltc: the signature may use every base64 character, including + and /, in its first 86', () => {
    const withPlus = BTC.find((c) => c.signature.slice(0, 86).includes('+'));
    const withSlash = BTC.find((c) => c.signature.slice(0, 86).includes('/'));
    expect(withPlus, 'a vector signature with +').not.to.equal(undefined);
    expect(withSlash, 'a vector signature with /').not.to.equal(undefined);
    for (const s of [withPlus!.signature, withSlash!.signature, `${cycle(BASE64, 86)}A=`, `${cycle(BASE64, 86, 26)}A=`, `${cycle(BASE64, 86, 52)}A=`]) {
      expect(assetSignatureShapeOk('btc', key02, s), s).to.equal(true);
    }
  });

  it('btc and ltc: the 87th character carries 4 bits and 2 zero pad bits, so only every fourth base64 character fits', () => {
    const head = sig.slice(0, 86);
    BASE64.split('').forEach((char, value) => {
      expect(assetSignatureShapeOk('btc', key02, `${head}${char}=`), char).to.equal(value % 4 === 0);
    });
    // The set, literally: AEIMQUYcgkosw048.
    expect(BASE64.split('').filter((_, value) => value % 4 === 0).join('')).to.equal('AEIMQUYcgkosw048');
  });

  it('btc and ltc: a signature of another length, padding or alphabet, or with text around it, is refused', () => {
    const bad = [
      '',
      sig.slice(1),
      `A${sig}`,
      `${sig}=`,
      `${sig}A`,
      sig.slice(0, -1),
      `${sig.slice(0, 85)}A==`,
      `${sig.slice(0, 86)}AA`,
      `${sig.slice(0, 86)}A=\n`,
      `\n${sig}`,
      `${sig.slice(0, 86)}==`,
      `-${sig.slice(1)}`,
      `${sig.slice(0, 40)}_${sig.slice(41)}`,
      `${sig.slice(0, 40)}!${sig.slice(41)}`,
      `${sig.slice(0, 86)}-=`,
    ];
    for (const asset of ['btc', 'ltc'] as const) for (const s of bad) expect(assetSignatureShapeOk(asset, key02, s), `${asset} ${JSON.stringify(s)}`).to.equal(false);
  });

  const xmr = xmrSpend('mainnet');
  const sigV = (version: string, body: string): string => `SigV${version}${body}`;

  it('xmr and wow: a base58 address of 95 to 110 characters with a SigV1/SigV2 signature of 88 base58 characters', () => {
    for (const asset of ['xmr', 'wow'] as const) {
      expect(assetSignatureShapeOk(asset, xmr.address, xmr.signature)).to.equal(true);
      for (const address of [cycle(BASE58, 95), cycle(BASE58, 110), cycle(BASE58, 100, 29)]) {
        for (const signature of [sigV('1', cycle(BASE58, 88)), sigV('2', cycle(BASE58, 88, 30)), xmr.signature]) {
          expect(assetSignatureShapeOk(asset, address, signature), `${asset} ${address} ${signature}`).to.equal(true);
        }
      }
    }
  });

  it('xmr and wow: an address of 94 or 111 characters, outside base58, or with text around it, is refused', () => {
    const bad = ['', cycle(BASE58, 94), cycle(BASE58, 111), `0${xmr.address}`, `${xmr.address}0`, `O${cycle(BASE58, 109)}`, `${cycle(BASE58, 109)}l`, ` ${xmr.address}`, `${xmr.address}\n`];
    for (const excluded of '0OIl+/_ ') bad.push(`${xmr.address.slice(0, 50)}${excluded}${xmr.address.slice(51)}`);
    for (const asset of ['xmr', 'wow'] as const) for (const address of bad) expect(assetSignatureShapeOk(asset, address, xmr.signature), `${asset} ${JSON.stringify(address)}`).to.equal(false);
  });

  it('xmr and wow: a signature of another version, length or alphabet, or with text around it, is refused', () => {
    const body = xmr.signature.slice(5);
    expect(body).to.have.length(88);
    const bad = [
      '',
      body,
      sigV('0', body),
      sigV('3', body),
      sigV('', body),
      sigV('2', body.slice(1)),
      sigV('2', `${body}1`),
      `x${xmr.signature}`,
      `${xmr.signature}1`,
      `${xmr.signature}\n`,
      `sigV2${body}`,
      `SigV2 ${body.slice(1)}`,
    ];
    for (const excluded of '0OIl') bad.push(sigV('2', `${body.slice(0, 40)}${excluded}${body.slice(41)}`));
    for (const asset of ['xmr', 'wow'] as const) for (const signature of bad) expect(assetSignatureShapeOk(asset, xmr.address, signature), `${asset} ${JSON.stringify(signature)}`).to.equal(false);
  });

  const grinKey = RFC8032[1].key;
  const grinSig = RFC8032[1].signature;
  const slatepack = SLATEPACK[0]!;

  it('grin: a 64-hex key in either case, or a (t)grin1 slatepack address in either case, with a 128-hex signature', () => {
    const keys = [grinKey, grinKey.toUpperCase(), cycle('0123456789abcdef', 64), cycle('0123456789ABCDEF', 64), slatepack.address_grin, slatepack.address_tgrin, slatepack.address_grin.toUpperCase()];
    keys.push(`grin1${cycle(BECH32, 58)}`, `tgrin1${cycle(BECH32, 58, 16)}`, `TGRIN1${cycle(BECH32, 58).toUpperCase()}`);
    for (const key of keys) {
      for (const signature of [grinSig, grinSig.toUpperCase(), cycle('0123456789abcdef', 128), cycle('0123456789ABCDEF', 128)]) {
        expect(assetSignatureShapeOk('grin', key, signature), `${key} ${signature}`).to.equal(true);
      }
    }
  });

  it('grin: a key of another length or alphabet, or a slatepack address of another prefix, length or alphabet, is refused', () => {
    const body = slatepack.address_grin.slice(5);
    expect(body).to.have.length(58);
    const bad = [
      '',
      grinKey.slice(1),
      `${grinKey}0`,
      `x${grinKey}`,
      `${grinKey}x`,
      `${grinKey}\n`,
      `g${grinKey.slice(1)}`,
      `${grinKey.slice(0, -1)}g`,
      `0x${grinKey.slice(2)}`,
      body,
      `grin${body}`,
      `grin1${body.slice(1)}`,
      `grin1${body}q`,
      `tgrin1${body.slice(1)}`,
      `tgrin1${body}q`,
      `ttgrin1${body}`,
      `xgrin1${body}`,
      `grin2${body}`,
      `rin1${body}`,
      ` grin1${body}`,
      `grin1${body}\n`,
      `grin1 ${body.slice(1)}`,
    ];
    for (const excluded of '1bio') bad.push(`grin1${body.slice(0, 20)}${excluded}${body.slice(21)}`, `tgrin1${body.slice(0, 20)}${excluded}${body.slice(21)}`);
    for (const key of bad) expect(assetSignatureShapeOk('grin', key, grinSig), JSON.stringify(key)).to.equal(false);
  });

  it('grin: a signature of another length or alphabet, or with text around it, is refused, whatever the key', () => {
    const bad = ['', grinSig.slice(1), `${grinSig}0`, `x${grinSig}`, `${grinSig}x`, `${grinSig}\n`, `g${grinSig.slice(1)}`, `${grinSig.slice(0, -1)}g`, grinSig.slice(0, 64), RFC8032[1].key];
    for (const key of [grinKey, slatepack.address_grin, slatepack.address_tgrin]) {
      for (const signature of bad) expect(assetSignatureShapeOk('grin', key, signature), `${key} ${JSON.stringify(signature)}`).to.equal(false);
    }
  });

  it('each asset takes only its own shapes', () => {
    const xmrCase = xmrSpend('mainnet');
    const byAsset = {
      btc: [key02, sig],
      ltc: [ltcCompressed.pubkey, ltcCompressed.signature],
      xmr: [xmrCase.address, xmrCase.signature],
      wow: [xmrCase.address, xmrCase.signature],
      grin: [grinKey, grinSig],
    } as const;
    const family = { btc: 'secp', ltc: 'secp', xmr: 'cryptonote', wow: 'cryptonote', grin: 'grin' } as const;
    for (const asset of Object.keys(byAsset) as SigningAsset[]) {
      for (const [other, [key, signature]] of Object.entries(byAsset) as [SigningAsset, readonly [string, string]][]) {
        expect(assetSignatureShapeOk(asset, key, signature), `${asset} with ${other}'s shapes`).to.equal(family[asset] === family[other]);
      }
    }
  });
});

describe('asset signatures: btc and ltc refusals through the verifier', () => {
  it('a key given in upper case proves it all the same', () => {
    for (const c of [btcCompressed, btcUncompressed]) expect(verifyAssetSignature({ ...fromCase('btc', c), publicKey: c.pubkey.toUpperCase() }), c.id).to.equal(true);
    expect(verifyAssetSignature({ ...fromCase('ltc', ltcCompressed), publicKey: ltcCompressed.pubkey.toUpperCase() })).to.equal(true);
  });

  it('another network: a Bitcoin signature is no Litecoin proof, and the other way round', () => {
    for (const c of [btcCompressed, btcOdd, btcUncompressed]) expect(verifyAssetSignature(fromCase('ltc', c)), c.id).to.equal(false);
    for (const c of LTC.filter((v) => v.expected_valid)) expect(verifyAssetSignature(fromCase('btc', c)), c.id).to.equal(false);
  });

  it('another key: the same signature names the signer, not the key given', () => {
    expect(verifyAssetSignature({ ...fromCase('btc', btcCompressed), publicKey: btcOdd.pubkey })).to.equal(false);
    expect(verifyAssetSignature({ ...fromCase('btc', btcCompressed), publicKey: G_COMPRESSED })).to.equal(false);
  });

  it('a key that is not a point, or not a key at all, is refused without throwing', () => {
    const c = fromCase('btc', btcCompressed);
    for (const publicKey of ['', `02${'00'.repeat(32)}`, 'not a key', `${btcCompressed.pubkey}00`, btcCompressed.pubkey.slice(2)]) {
      expect(verifyAssetSignature({ ...c, publicKey }), JSON.stringify(publicKey)).to.equal(false);
    }
  });

  it('a malformed signature is refused without throwing: empty, short, long, header out of range, not base64', () => {
    const c = fromCase('btc', btcCompressed);
    const bytes = Buffer.from(btcCompressed.signature, 'base64');
    const withHeader = (header: number): string => Buffer.concat([Buffer.of(header), bytes.subarray(1)]).toString('base64');
    for (const signature of ['', btcCompressed.signature.slice(4), `${btcCompressed.signature}AAAA`, withHeader(26), withHeader(43), withHeader(0), withHeader(255), `!${btcCompressed.signature.slice(1)}`, 'A'.repeat(86) + 'A=']) {
      expect(verifyAssetSignature({ ...c, signature }), signature).to.equal(false);
    }
  });

  it('another message: one byte more, or none at all, is refused', () => {
    const c = fromCase('btc', btcCompressed);
    expect(verifyAssetSignature({ ...c, message: new Uint8Array([...c.message, 0x0a]) })).to.equal(false);
    expect(verifyAssetSignature({ ...c, message: new Uint8Array(0) })).to.equal(false);
  });
});

describe('asset signatures: xmr and wow through the verifier', () => {
  it('another network: a real Monero signature is refused under another network than its address\'s', () => {
    for (const network of ['mainnet', 'stagenet', 'testnet'] as const) {
      const c = xmrSpend(network);
      expect(verifyAssetSignature(input('xmr', c.address, hexToBytes(c.message_utf8_hex), c.signature, network)), `${network} control`).to.equal(true);
      for (const other of ['mainnet', 'stagenet', 'testnet'] as const) {
        if (other !== network) expect(verifyAssetSignature(input('xmr', c.address, hexToBytes(c.message_utf8_hex), c.signature, other)), `${network} as ${other}`).to.equal(false);
      }
    }
  });

  it('another asset: a real Monero signature is no Wownero proof, not even where Wownero shares the address tag', () => {
    for (const network of ['mainnet', 'stagenet', 'testnet'] as const) {
      const c = xmrSpend(network);
      expect(verifyAssetSignature(input('wow', c.address, hexToBytes(c.message_utf8_hex), c.signature, network)), network).to.equal(false);
    }
  });

  it('a Wownero spend-key signature proves its address as wow, and only for its message and network', () => {
    const wow = new CryptonoteKey('wow');
    const message = utf8ToBytes('log in to example');
    const signature = wow.sign('log in to example');
    expect(verifyAssetSignature(input('wow', wow.address(), message, signature))).to.equal(true);
    expect(verifyAssetSignature(input('wow', wow.address(), utf8ToBytes('log in to example!'), signature))).to.equal(false);
    expect(verifyAssetSignature(input('wow', wow.address(), message, signature, 'stagenet'))).to.equal(false);
    expect(verifyAssetSignature(input('xmr', wow.address(), message, signature))).to.equal(false);
    expect(verifyAssetSignature(input('wow', wow.address(), message, `${signature.slice(0, -1)}0`))).to.equal(false);
    expect(verifyAssetSignature(input('wow', `${wow.address()}0`, message, signature))).to.equal(false);
  });
});

describe('asset signatures: grin through the verifier', () => {
  it('the RFC 8032 test vectors prove their hex keys, in either case', () => {
    for (const v of RFC8032) {
      expect(verifyAssetSignature(input('grin', v.key, hexToBytes(v.message), v.signature)), v.key).to.equal(true);
      expect(verifyAssetSignature(input('grin', v.key.toUpperCase(), hexToBytes(v.message), v.signature.toUpperCase())), v.key).to.equal(true);
    }
  });

  it('hex key: another key, another message, or a damaged signature is refused', () => {
    const [one, two] = RFC8032;
    expect(verifyAssetSignature(input('grin', one.key, hexToBytes(two.message), two.signature))).to.equal(false);
    expect(verifyAssetSignature(input('grin', two.key, hexToBytes('73'), two.signature))).to.equal(false);
    expect(verifyAssetSignature(input('grin', two.key, hexToBytes('7200'), two.signature))).to.equal(false);
    const flipped = `${two.signature.slice(0, 10)}${two.signature[10] === '0' ? '1' : '0'}${two.signature.slice(11)}`;
    for (const signature of [flipped, two.signature.slice(2), `${two.signature}00`, '', `zz${two.signature.slice(2)}`]) {
      expect(verifyAssetSignature(input('grin', two.key, hexToBytes(two.message), signature)), signature).to.equal(false);
    }
    for (const key of ['', two.key.slice(2), `${two.key}00`, `zz${two.key.slice(2)}`]) expect(verifyAssetSignature(input('grin', key, hexToBytes(two.message), two.signature)), key).to.equal(false);
  });

  const withSeed = SLATEPACK.filter((c) => c.derivation?.ed25519_secret_seed !== undefined);
  const message = utf8ToBytes('grin login 2026-11-25');

  it('the vectors\' seeds give their public keys under OpenSSL (the signer below is what it claims to be)', () => {
    expect(withSeed.length).to.be.greaterThan(1);
    for (const c of withSeed) expect(opensslPublicHex(c.derivation!.ed25519_secret_seed), c.id).to.equal(c.public_key);
  });

  it('a slatepack address, grin1 or tgrin1, in either case, proves the key inside it', () => {
    for (const c of withSeed) {
      const signature = opensslSignHex(c.derivation!.ed25519_secret_seed, message);
      for (const address of [c.address_grin, c.address_tgrin, c.address_grin.toUpperCase(), c.public_key]) {
        expect(verifyAssetSignature(input('grin', address, message, signature)), `${c.id} ${address}`).to.equal(true);
      }
    }
  });

  it('slatepack address: another address, another message, or a damaged signature is refused', () => {
    const [a, b] = withSeed;
    const signature = opensslSignHex(a!.derivation!.ed25519_secret_seed, message);
    expect(verifyAssetSignature(input('grin', b!.address_grin, message, signature))).to.equal(false);
    expect(verifyAssetSignature(input('grin', b!.address_tgrin, message, signature))).to.equal(false);
    expect(verifyAssetSignature(input('grin', a!.address_grin, utf8ToBytes('grin login 2026-11-26'), signature))).to.equal(false);
    const flipped = `${signature.slice(0, 70)}${signature[70] === '0' ? '1' : '0'}${signature.slice(71)}`;
    for (const bad of [flipped, signature.slice(2), '', 'zz'.repeat(64)]) expect(verifyAssetSignature(input('grin', a!.address_grin, message, bad)), bad).to.equal(false);
  });

  it('a slatepack address that does not decode is refused without throwing: bad checksum, mixed case, another prefix, truncated, not a point', () => {
    const [a] = withSeed;
    const signature = opensslSignHex(a!.derivation!.ed25519_secret_seed, message);
    const address = a!.address_grin;
    const last = address.at(-1) === 'q' ? 'p' : 'q';
    const bad = [
      `${address.slice(0, -1)}${last}`,
      `${address.slice(0, 10)}${address[10]!.toUpperCase()}${address.slice(11)}`,
      address.slice(0, -1),
      'grin1',
      'tgrin1qq',
      `grin1${address.slice(5)}`.replace(/^grin1/, 'tgrin1'),
      // The grin-wallet vectors' y = 2 key: a valid bech32 string of a 32-byte non-point.
      'grin1qgqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqhq5sj',
    ];
    for (const key of bad) expect(verifyAssetSignature(input('grin', key, message, signature)), key).to.equal(false);
  });
});
