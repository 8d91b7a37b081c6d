import { expect } from 'chai';
import { hexToBytes } from '@noble/hashes/utils.js';
import { verifyAssetSignature, type CryptonoteNetwork } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

/**
 * The real-wallet vectors through `verifyAssetSignature`, the check website login and key proofs
 * run (not only the address-based verifier). A key proof names a public key, not an address, so
 * the vectors whose only defect is the ADDRESS (a segwit header range rewritten, a P2PKH signature
 * shown with a P2SH address) prove the key all the same; every other negative stays negative.
 */
const ADDRESS_ONLY = /header rewritten to the BIP-137 p2wpkh(-p2sh)? range|presented with the P2SH-P2WPKH address/;

interface MessageCase {
  id: string;
  pubkey: string;
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
  negative_reason?: string;
}

for (const asset of ['btc', 'ltc'] as const) {
  const { cases } = loadVectors<{ cases: MessageCase[] }>(`${asset}.json`);
  describe(`asset signatures: ${asset} vectors through the login verifier`, () => {
    it('includes uncompressed-key signatures (headers 27–30) among the valid cases', () => {
      expect(cases.some((c) => c.expected_valid && c.pubkey.startsWith('04'))).to.equal(true);
    });
    for (const c of cases) {
      const expected = c.expected_valid || ADDRESS_ONLY.test(c.negative_reason ?? '');
      it(`${c.id}: ${expected ? 'proves the key' : `refused (${c.negative_reason})`}`, () => {
        const input = { asset, publicKey: c.pubkey, message: hexToBytes(c.message_utf8_hex), signature: c.signature, cryptonoteNetwork: 'mainnet' as const };
        expect(verifyAssetSignature(input)).to.equal(expected);
      });
    }
  });
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
  negative_reason?: string;
}

describe('asset signatures: xmr vectors through the login verifier', () => {
  const { cases } = loadVectors<{ cases: XmrCase[] }>('xmr.json');
  it('includes view-key signatures, which never prove ownership', () => {
    expect(cases.some((c) => c.expected_valid && c.signing_mode === 'view')).to.equal(true);
  });
  for (const c of cases) {
    // The view key is shared with light-wallet servers: only a spend-key signature proves the wallet.
    const expected = c.expected_valid && c.signing_mode === 'spend';
    it(`${c.id}: ${expected ? 'proves the address' : c.expected_valid ? 'refused (view-key signature)' : `refused (${c.negative_reason})`}`, () => {
      const input = { asset: 'xmr' as const, publicKey: c.address, message: hexToBytes(c.message_utf8_hex), signature: c.signature, cryptonoteNetwork: c.verifier_network ?? c.network };
      expect(verifyAssetSignature(input)).to.equal(expected);
    });
  }
});
