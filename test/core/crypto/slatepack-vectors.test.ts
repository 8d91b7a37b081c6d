import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeSlatepackAddress, encodeSlatepackAddress, isEd25519PublicKeyHex, looksLikeSlatepackAddress, verifyGrinMessage } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

interface EncodeCase { id: string; public_key: string; address_grin: string; address_tgrin: string }
interface DecodeCase { id: string; address: string; grin_accepts: boolean; hrp?: string; public_key?: string; reject_reason?: string }

const vectors = loadVectors<{ encode_decode: EncodeCase[]; decode_cases: DecodeCase[] }>('grin/slatepack-address.json');

describe('crypto: Grin slatepack addresses (grin-wallet vectors)', () => {
  for (const c of vectors.encode_decode) {
    it(`${c.id}: encodes and decodes both HRPs`, () => {
      const key = hexToBytes(c.public_key);
      expect(encodeSlatepackAddress(key, 'grin')).to.equal(c.address_grin);
      expect(encodeSlatepackAddress(key, 'tgrin')).to.equal(c.address_tgrin);
      expect(decodeSlatepackAddress(c.address_grin)).to.deep.equal({ hrp: 'grin', publicKey: key });
      expect(decodeSlatepackAddress(c.address_tgrin)).to.deep.equal({ hrp: 'tgrin', publicKey: key });
      expect(looksLikeSlatepackAddress(c.address_grin) && looksLikeSlatepackAddress(c.address_tgrin)).to.equal(true);
      expect(looksLikeSlatepackAddress(c.public_key)).to.equal(false);
    });
  }

  for (const c of vectors.decode_cases) {
    const ours = c.grin_accepts && (c.hrp === 'grin' || c.hrp === 'tgrin');
    const title = c.grin_accepts && !ours ? `${c.id}: grin-wallet accepts HRP ${c.hrp}, we check the HRP and refuse` : `${c.id}: ${ours ? 'accepted' : `refused (${c.reject_reason})`}`;
    it(title, () => {
      const decoded = decodeSlatepackAddress(c.address);
      if (ours) expect(bytesToHex(decoded!.publicKey)).to.equal(c.public_key);
      else expect(decoded).to.equal(null);
    });
  }
});

describe('crypto: Grin website signatures (ed25519)', () => {
  const seed = ed25519.utils.randomSecretKey();
  const publicKey = bytesToHex(ed25519.getPublicKey(seed));
  const message = utf8ToBytes('https://shop.example asks you to sign in');
  const signature = bytesToHex(ed25519.sign(message, seed));

  it('verifies the key holder’s signature over the exact bytes', () => {
    expect(isEd25519PublicKeyHex(publicKey)).to.equal(true);
    expect(verifyGrinMessage(publicKey, message, signature)).to.equal(true);
    expect(verifyGrinMessage(publicKey.toUpperCase(), message, signature.toUpperCase())).to.equal(true);
  });

  it('refuses another message, another key and malformed input without throwing', () => {
    const other = bytesToHex(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
    expect(verifyGrinMessage(publicKey, utf8ToBytes('https://shop.example asks you to sign in\n'), signature)).to.equal(false);
    expect(verifyGrinMessage(other, message, signature)).to.equal(false);
    expect(verifyGrinMessage(publicKey, message, signature.slice(0, -2))).to.equal(false);
    expect(verifyGrinMessage(publicKey, message, 'zz' + signature.slice(2))).to.equal(false);
    expect(verifyGrinMessage('00'.repeat(32), message, signature)).to.equal(false);
    // s ≥ ℓ is malleable: strict RFC 8032 refuses it.
    const s = BigInt(`0x${bytesToHex(hexToBytes(signature.slice(64)).reverse())}`) + 2n ** 252n + 27742317777372353535851937790883648493n;
    const malleable = signature.slice(0, 64) + bytesToHex(hexToBytes(s.toString(16).padStart(64, '0')).reverse());
    expect(verifyGrinMessage(publicKey, message, malleable)).to.equal(false);
    expect(isEd25519PublicKeyHex('zz'.repeat(32))).to.equal(false);
  });
});
