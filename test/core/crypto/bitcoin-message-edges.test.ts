import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58check, bech32, bech32m } from '@scure/base';
import { hash160, MESSAGE_NETWORKS, messageDigest, recoverMessageSigner, verifyMessageSignature } from '../../../packages/core/src/crypto/index.js';

/**
 * Edges of the BTC message-signature verifier the vector files leave open (issue 13 item 8). Keys
 * are made here; addresses are built here with @scure/base; every expected digest is computed
 * here with node:crypto over literal CompactSize bytes, independently of messageDigest.
 */
const MAINNET = MESSAGE_NETWORKS['btc-mainnet'];
const TESTNET = MESSAGE_NETWORKS['btc-testnet'];
const MAGIC = Buffer.from('Bitcoin Signed Message:\n', 'utf8'); // 24 bytes
const b58 = base58check(sha256);

const SECRET = Uint8Array.from(createHash('sha256').update('bitcoin-message-edges: test key').digest());
const COMPRESSED = secp256k1.getPublicKey(SECRET, true);
const UNCOMPRESSED = secp256k1.getPublicKey(SECRET, false);

/** SHA256d over CompactSize(24) || magic || `varint` || message, with the varint bytes given literally. */
function independentDigest(varint: number[], message: Uint8Array, magic: Buffer = MAGIC): Buffer {
  const preimage = Buffer.concat([Buffer.of(magic.length), magic, Buffer.from(varint), message]);
  return createHash('sha256').update(createHash('sha256').update(preimage).digest()).digest();
}

/** A recoverable signature over `digest`: its recovery id and the 64 bytes r || s. */
function signDigest(digest: Uint8Array): { recovery: number; rs: Uint8Array } {
  const recovered = secp256k1.sign(digest, SECRET, { prehash: false, format: 'recovered' });
  return { recovery: recovered[0]!, rs: recovered.slice(1) };
}

function withHeader(header: number, rs: Uint8Array): string {
  return Buffer.concat([Buffer.of(header), rs]).toString('base64');
}

const address = {
  p2pkh: (publicKey: Uint8Array, version = 0x00) => b58.encode(Uint8Array.of(version, ...hash160(publicKey))),
  p2wpkhP2sh: (publicKey: Uint8Array, version = 0x05) => b58.encode(Uint8Array.of(version, ...hash160(Uint8Array.of(0x00, 0x14, ...hash160(publicKey))))),
  p2wpkh: (publicKey: Uint8Array, hrp = 'bc') => bech32.encode(hrp, [0, ...bech32.toWords(hash160(publicKey))]),
};
const P2PKH = address.p2pkh(COMPRESSED);
const P2PKH_UNCOMPRESSED = address.p2pkh(UNCOMPRESSED);
const P2WPKH_P2SH = address.p2wpkhP2sh(COMPRESSED);
const P2WPKH = address.p2wpkh(COMPRESSED);
const ALL_ADDRESSES = [P2PKH, P2PKH_UNCOMPRESSED, P2WPKH_P2SH, P2WPKH];

/** A message (a counter appended to `base`) whose signature has recovery id `recovery`. */
function messageWithRecovery(recovery: number, base = 'bip-137 edge'): { message: Uint8Array; rs: Uint8Array } {
  for (let i = 0; i < 1000; i++) {
    const message = Buffer.from(`${base} ${i}`, 'utf8');
    const signed = signDigest(independentDigest([message.length], message));
    if (signed.recovery === recovery) return { message, rs: signed.rs };
  }
  throw new Error(`no signature with recovery id ${recovery} in 1000 tries`);
}

describe('message signatures: header bytes (BTC)', () => {
  for (const recovery of [0, 1]) {
    describe(`recovery id ${recovery}`, () => {
      const { message, rs } = messageWithRecovery(recovery);
      const verify = (addr: string, header: number) => verifyMessageSignature(addr, message, withHeader(header, rs), MAINNET);

      it('each range is accepted for exactly its address types', () => {
        // 27–30 uncompressed P2PKH; 31–34 compressed, every type (Electrum); 35–38 P2WPKH-in-P2SH; 39–42 P2WPKH.
        const expected: Array<[number, Record<string, boolean>]> = [
          [27 + recovery, { [P2PKH_UNCOMPRESSED]: true, [P2PKH]: false, [P2WPKH_P2SH]: false, [P2WPKH]: false }],
          [31 + recovery, { [P2PKH_UNCOMPRESSED]: false, [P2PKH]: true, [P2WPKH_P2SH]: true, [P2WPKH]: true }],
          [35 + recovery, { [P2PKH_UNCOMPRESSED]: false, [P2PKH]: false, [P2WPKH_P2SH]: true, [P2WPKH]: false }],
          [39 + recovery, { [P2PKH_UNCOMPRESSED]: false, [P2PKH]: false, [P2WPKH_P2SH]: false, [P2WPKH]: true }],
        ];
        for (const [header, byAddress] of expected) {
          for (const addr of ALL_ADDRESSES) expect(verify(addr, header), `header ${header}, ${addr}`).to.equal(byAddress[addr]);
        }
      });

      it('the recovered key is the signer, in the encoding the header names', () => {
        for (const header of [27, 31, 35, 39].map((h) => h + recovery)) {
          const signer = recoverMessageSigner(message, withHeader(header, rs), MAINNET);
          expect(signer, `header ${header}`).to.not.equal(null);
          expect(signer!.header).to.equal(header);
          expect(Buffer.from(signer!.publicKey).toString('hex')).to.equal(Buffer.from(header < 31 ? UNCOMPRESSED : COMPRESSED).toString('hex'));
        }
      });

      it('a header naming another recovery id recovers another key: refused for every address', () => {
        const other = recovery ^ 1;
        for (const header of [27, 31, 35, 39].map((h) => h + other)) {
          for (const addr of ALL_ADDRESSES) expect(verify(addr, header), `header ${header}, ${addr}`).to.equal(false);
        }
      });
    });
  }

  it('every header outside 27–42 is refused, also where it names this signature\'s recovery id (23, 43, …)', () => {
    // Recovery id 0: the headers ≡ 27 (mod 4) just outside the range (23, 43, 47) would recover
    // the signer's key if the range check were loosened; 26 names id 3.
    const { message, rs } = messageWithRecovery(0);
    for (const header of [...Array(256).keys()].filter((h) => h < 27 || h > 42)) {
      const signature = withHeader(header, rs);
      expect(recoverMessageSigner(message, signature, MAINNET), `header ${header}`).to.equal(null);
      for (const addr of ALL_ADDRESSES) expect(verifyMessageSignature(addr, message, signature, MAINNET), `header ${header}, ${addr}`).to.equal(false);
    }
    // The same bytes with the in-range headers of that recovery id do recover the signer.
    for (const header of [27, 31, 35, 39]) expect(recoverMessageSigner(message, withHeader(header, rs), MAINNET), `header ${header}`).to.not.equal(null);
  });
});

/**
 * Recovery ids 2 and 3 (R.x ≥ n) never come out of signing in practice, so a signature with
 * id 3 is built by hand: a curve point R whose x lies in [n, p), r = x − n, s = 1, and the key
 * it verifies for, Q = r⁻¹(sR − eG), computed here with point arithmetic. Headers 30/34/38/42
 * name id 3; header 26 names it too ((26 − 27) & 3 = 3) and is out of range: refused, where
 * a loosened range check would recover Q.
 */
describe('message signatures: recovery id 3 (R.x ≥ n), built by hand', () => {
  const { Point } = secp256k1;
  const n = Point.CURVE().n;
  const p = Point.CURVE().p;
  const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
  const power = (base: bigint, exponent: bigint, m: bigint): bigint => {
    let result = 1n;
    for (let b = mod(base, m), e = exponent; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) result = (result * b) % m;
    return result;
  };
  const hex32 = (value: bigint) => value.toString(16).padStart(64, '0');
  const message = Buffer.from('recovery id three', 'utf8');
  const e = BigInt(`0x${independentDigest([message.length], message).toString('hex')}`);

  // The first x ≥ n on the curve, with odd y (recovery id 2 + 1).
  let x = n + 1n; // r = x − n must not be 0
  for (; x < p; x++) if (power(x ** 3n + 7n, (p - 1n) / 2n, p) === 1n) break;
  const R = Point.fromHex(`03${hex32(x)}`);
  const r = x - n;
  const s = 1n;
  const Q = R.multiply(s).subtract(Point.BASE.multiply(mod(e, n))).multiply(power(r, n - 2n, n));
  const rs = Buffer.from(hex32(r) + hex32(s), 'hex');
  const uncompressed = Q.toBytes(false);
  const compressed = Q.toBytes(true);

  it('headers 30, 34, 38, 42 (id 3) recover the key and verify for their address types', () => {
    expect(recoverMessageSigner(message, withHeader(30, rs), MAINNET)?.publicKey).to.deep.equal(uncompressed);
    expect(recoverMessageSigner(message, withHeader(34, rs), MAINNET)?.publicKey).to.deep.equal(compressed);
    expect(verifyMessageSignature(address.p2pkh(uncompressed), message, withHeader(30, rs), MAINNET)).to.equal(true);
    // Header 30 is the last uncompressed header: P2PKH only, even for segwit programs over that key.
    const uncompressedHash = hash160(uncompressed);
    expect(verifyMessageSignature(bech32.encode('bc', [0, ...bech32.toWords(uncompressedHash)]), message, withHeader(30, rs), MAINNET)).to.equal(false);
    expect(verifyMessageSignature(b58.encode(Uint8Array.of(0x05, ...hash160(Uint8Array.of(0x00, 0x14, ...uncompressedHash)))), message, withHeader(30, rs), MAINNET)).to.equal(false);
    for (const addr of [address.p2pkh(compressed), address.p2wpkhP2sh(compressed), address.p2wpkh(compressed)]) {
      expect(verifyMessageSignature(addr, message, withHeader(34, rs), MAINNET), addr).to.equal(true);
    }
    expect(verifyMessageSignature(address.p2wpkhP2sh(compressed), message, withHeader(38, rs), MAINNET)).to.equal(true);
    expect(verifyMessageSignature(address.p2wpkh(compressed), message, withHeader(42, rs), MAINNET)).to.equal(true);
  });

  it('headers 26, 22 and 46 (also id 3, out of range) are refused', () => {
    for (const header of [26, 22, 46]) {
      expect(recoverMessageSigner(message, withHeader(header, rs), MAINNET), `header ${header}`).to.equal(null);
      for (const addr of [address.p2pkh(uncompressed), address.p2pkh(compressed), address.p2wpkh(compressed)]) {
        expect(verifyMessageSignature(addr, message, withHeader(header, rs), MAINNET), `header ${header}, ${addr}`).to.equal(false);
      }
    }
  });
});

describe('message signatures: the CompactSize length prefix against an independent digest', () => {
  const cases: Array<{ length: number; varint: number[] }> = [
    { length: 0, varint: [0x00] },
    { length: 0xfc, varint: [0xfc] },
    { length: 0xfd, varint: [0xfd, 0xfd, 0x00] },
    { length: 0xfe, varint: [0xfd, 0xfe, 0x00] },
    { length: 0x100, varint: [0xfd, 0x00, 0x01] },
    { length: 0xffff, varint: [0xfd, 0xff, 0xff] },
    { length: 0x10000, varint: [0xfe, 0x00, 0x00, 0x01, 0x00] },
    { length: 0x10001, varint: [0xfe, 0x01, 0x00, 0x01, 0x00] },
  ];
  for (const { length, varint } of cases) {
    it(`a ${length}-byte message: prefix ${Buffer.from(varint).toString('hex')}; a signature over it verifies`, () => {
      const message = Uint8Array.from({ length }, (_, i) => 0x61 + (i % 26));
      const digest = independentDigest(varint, message);
      expect(Buffer.from(messageDigest(MAINNET.magic, message)).toString('hex')).to.equal(digest.toString('hex'));
      const { recovery, rs } = signDigest(digest);
      expect(verifyMessageSignature(P2PKH, message, withHeader(31 + recovery, rs), MAINNET)).to.equal(true);
      expect(verifyMessageSignature(P2WPKH, message, withHeader(39 + recovery, rs), MAINNET)).to.equal(true);
      // One byte more or less is another digest: the signature no longer matches.
      if (length > 0) expect(verifyMessageSignature(P2PKH, message.subarray(1), withHeader(31 + recovery, rs), MAINNET)).to.equal(false);
      expect(verifyMessageSignature(P2PKH, Uint8Array.of(...message, 0x61), withHeader(31 + recovery, rs), MAINNET)).to.equal(false);
    });
  }

  it('the Litecoin magic (25 bytes) is length-prefixed the same way', () => {
    const magic = Buffer.from('Litecoin Signed Message:\n', 'utf8');
    const message = Uint8Array.from({ length: 0xfd }, () => 0x7a);
    expect(Buffer.from(messageDigest(MESSAGE_NETWORKS['ltc-mainnet'].magic, message)).toString('hex')).to.equal(
      independentDigest([0xfd, 0xfd, 0x00], message, magic).toString('hex'),
    );
  });
});

describe('message signatures: signature text and address edges', () => {
  const { message, rs } = messageWithRecovery(0);
  const signature = withHeader(31, rs);

  it('the untouched signature verifies (the cases below differ from it in one respect)', () => {
    expect(verifyMessageSignature(P2PKH, message, signature, MAINNET)).to.equal(true);
  });

  for (const [label, text] of [
    ['a space before', ` ${signature}`],
    ['a newline before', `\n${signature}`],
    ['a base64 character before', `A${signature}`],
    ['a space after', `${signature} `],
    ['a newline after', `${signature}\n`],
    ['base64 after the padding', `${signature}AAAA`],
    ['a second padding character', `${signature}=`],
    ['the padding removed', signature.slice(0, -1)],
  ] as const) {
    it(`junk around the base64: ${label} → refused`, () => {
      expect(recoverMessageSigner(message, text, MAINNET)).to.equal(null);
      expect(verifyMessageSignature(P2PKH, message, text, MAINNET)).to.equal(false);
    });
  }

  it('a witness v1 program (bc1p…, bech32m) is not P2WPKH: refused', () => {
    const xOnly = COMPRESSED.slice(1);
    for (const taproot of [
      bech32m.encode('bc', [1, ...bech32m.toWords(xOnly)]), // a real-looking P2TR address
      bech32m.encode('bc', [1, ...bech32m.toWords(hash160(COMPRESSED))]), // v1 with this key's 20-byte hash
      bech32.encode('bc', [1, ...bech32.toWords(hash160(COMPRESSED))]), // the same, in bech32
    ]) {
      for (const header of [31, 39]) expect(verifyMessageSignature(taproot, message, withHeader(header, rs), MAINNET), `${taproot} header ${header}`).to.equal(false);
    }
    // A v0 program in bech32m (BIP-350 forbids it) is refused too.
    expect(verifyMessageSignature(bech32m.encode('bc', [0, ...bech32m.toWords(hash160(COMPRESSED))]), message, withHeader(39, rs), MAINNET)).to.equal(false);
  });

  it('a bech32 string whose human-readable part only starts with "bc1" (here "bc1q") is not a mainnet address', () => {
    // bech32 splits at the LAST "1", and "1" may appear in the human-readable part: this string
    // starts with "bc1" and carries this key's hash as a v0 program, under the prefix "bc1q".
    const lookalike = bech32.encode('bc1q', [0, ...bech32.toWords(hash160(COMPRESSED))]);
    expect(lookalike.startsWith('bc1q1')).to.equal(true);
    for (const header of [31, 39]) expect(verifyMessageSignature(lookalike, message, withHeader(header, rs), MAINNET), `header ${header}`).to.equal(false);
  });

  it('segwit addresses committing to the UNCOMPRESSED key never verify: headers 27–30 are P2PKH only', () => {
    // Non-standard but constructible: programs over hash160(uncompressed key). A signature with
    // an uncompressed header recovers exactly that key, so only the header rule refuses it.
    const uncompressedHash = hash160(UNCOMPRESSED);
    const p2wpkh = bech32.encode('bc', [0, ...bech32.toWords(uncompressedHash)]);
    const p2sh = b58.encode(Uint8Array.of(0x05, ...hash160(Uint8Array.of(0x00, 0x14, ...uncompressedHash))));
    const uncompressedSignature = withHeader(27, rs);
    expect(recoverMessageSigner(message, uncompressedSignature, MAINNET)?.publicKey).to.deep.equal(UNCOMPRESSED);
    expect(verifyMessageSignature(P2PKH_UNCOMPRESSED, message, uncompressedSignature, MAINNET)).to.equal(true);
    for (const addr of [p2wpkh, p2sh]) {
      for (const header of [27, 31, 35, 39]) expect(verifyMessageSignature(addr, message, withHeader(header, rs), MAINNET), `${addr} header ${header}`).to.equal(false);
    }
  });

  it("another network's version bytes are refused on mainnet, and accepted on their own network", () => {
    const testnetP2sh = address.p2wpkhP2sh(COMPRESSED, 0xc4);
    const testnetP2pkh = address.p2pkh(COMPRESSED, 0x6f);
    const litecoinP2sh = address.p2wpkhP2sh(COMPRESSED, 0x32);
    const testnetP2wpkh = address.p2wpkh(COMPRESSED, 'tb');
    for (const [addr, header] of [
      [testnetP2sh, 35],
      [testnetP2sh, 31],
      [litecoinP2sh, 35],
      [testnetP2pkh, 31],
      [testnetP2wpkh, 39],
    ] as const) {
      expect(verifyMessageSignature(addr, message, withHeader(header, rs), MAINNET), `${addr} header ${header}`).to.equal(false);
    }
    // The same hashes under mainnet versions verify, so only the version byte was refused.
    expect(verifyMessageSignature(P2WPKH_P2SH, message, withHeader(35, rs), MAINNET)).to.equal(true);
    expect(verifyMessageSignature(testnetP2sh, message, withHeader(35, rs), TESTNET)).to.equal(true);
    expect(verifyMessageSignature(testnetP2pkh, message, withHeader(31, rs), TESTNET)).to.equal(true);
    expect(verifyMessageSignature(testnetP2wpkh, message, withHeader(39, rs), TESTNET)).to.equal(true);
    expect(verifyMessageSignature(P2WPKH_P2SH, message, withHeader(35, rs), TESTNET)).to.equal(false);
  });
});
