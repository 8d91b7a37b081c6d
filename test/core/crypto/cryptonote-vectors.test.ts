import { expect } from 'chai';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  cryptonoteBase58Decode,
  cryptonoteBase58Encode,
  decodeCryptonoteAddress,
  verifyCryptonoteMessage,
  type CryptonoteNetwork,
} from '../../../packages/core/src/crypto/index.js';
import { CryptonoteKey, loadVectors } from '../../harness/index.js';

interface XmrCase {
  id: string;
  network: CryptonoteNetwork;
  verifier_network?: CryptonoteNetwork;
  address: string;
  address_kind: string;
  address_public_spend_key: string;
  address_public_view_key: string;
  address_network_tag: number;
  signing_mode: 'spend' | 'view';
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
  negative_reason?: string;
}

const vectors = loadVectors<{ cases: XmrCase[] }>('xmr.json');

describe('crypto: Monero message signatures (monero-wallet-cli vectors)', () => {
  it('has valid and invalid cases on every network', () => {
    for (const network of ['mainnet', 'testnet', 'stagenet'] as const) {
      expect(vectors.cases.some((c) => c.network === network && c.expected_valid), network).to.equal(true);
      expect(vectors.cases.some((c) => c.network === network && !c.expected_valid), network).to.equal(true);
    }
  });

  for (const c of vectors.cases) {
    const network = c.verifier_network ?? c.network;
    it(`${c.id}: ${c.expected_valid ? `valid (${c.signing_mode} key)` : `invalid: ${c.negative_reason}`}`, () => {
      const input = { asset: 'xmr' as const, network, address: c.address, message: hexToBytes(c.message_utf8_hex), signature: c.signature };
      const lenient = verifyCryptonoteMessage({ ...input, allowViewKey: true });
      expect(lenient.ok).to.equal(c.expected_valid);
      if (lenient.ok) expect(lenient.mode).to.equal(c.signing_mode);
      // By default only the spend key proves ownership: view-key signatures are refused.
      const strict = verifyCryptonoteMessage(input);
      expect(strict.ok).to.equal(c.expected_valid && c.signing_mode === 'spend');
    });
  }

  it('a valid signature is refused when the address is checked on another network', () => {
    const c = vectors.cases.find((x) => x.expected_valid && x.network === 'mainnet' && x.signing_mode === 'spend')!;
    for (const network of ['testnet', 'stagenet'] as const) {
      const result = verifyCryptonoteMessage({ asset: 'xmr', network, address: c.address, message: hexToBytes(c.message_utf8_hex), signature: c.signature });
      expect(result.ok).to.equal(false);
    }
  });

  it('every vector address decodes to its keys and network tag', () => {
    const tags: Record<string, Record<string, number>> = { mainnet: { primary: 18, sub: 42 }, stagenet: { primary: 24, sub: 36 }, testnet: { primary: 53, sub: 63 } };
    for (const c of vectors.cases) {
      const decoded = decodeCryptonoteAddress(c.address, 'xmr');
      expect(decoded, c.id).to.not.equal(null);
      expect(bytesToHex(decoded!.publicSpendKey)).to.equal(c.address_public_spend_key);
      expect(bytesToHex(decoded!.publicViewKey)).to.equal(c.address_public_view_key);
      expect(decoded!.kind).to.equal(c.address_kind === 'primary' ? 'standard' : 'subaddress');
      expect(tags[decoded!.network]![decoded!.kind === 'standard' ? 'primary' : 'sub']).to.equal(c.address_network_tag);
      // Wownero reuses Monero's test-network tags; only mainnet addresses are told apart.
      if (c.network === 'mainnet') expect(decodeCryptonoteAddress(c.address, 'wow'), 'a Monero address is not a Wownero one').to.equal(null);
    }
  });

  it('rejects corrupted addresses: checksum, alphabet, length', () => {
    const address = vectors.cases.find((c) => c.expected_valid && c.network === 'mainnet' && c.address_kind === 'primary')!.address;
    const flipped = address.slice(0, 50) + (address[50] === 'a' ? 'b' : 'a') + address.slice(51);
    expect(decodeCryptonoteAddress(flipped, 'xmr')).to.equal(null);
    expect(decodeCryptonoteAddress(address.replace(/.$/, '0'), 'xmr')).to.equal(null);
    expect(decodeCryptonoteAddress(address.slice(0, -1), 'xmr')).to.equal(null);
    expect(decodeCryptonoteAddress(address + '1', 'xmr')).to.equal(null);
    expect(decodeCryptonoteAddress('', 'xmr')).to.equal(null);
  });

  it('block base58 round-trips every length and refuses overflowing blocks', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 0xff);
      expect(cryptonoteBase58Decode(cryptonoteBase58Encode(bytes))).to.deep.equal(bytes);
    }
    expect(cryptonoteBase58Encode(new Uint8Array(8).fill(0xff))).to.equal('jpXCZedGfVQ');
    expect(cryptonoteBase58Decode('zzzzzzzzzzz')).to.equal(null);
    expect(cryptonoteBase58Decode('1111')).to.equal(null);
    expect(cryptonoteBase58Decode('0OIl')).to.equal(null);
  });

  it('refuses malformed signatures without throwing', () => {
    const c = vectors.cases.find((x) => x.expected_valid)!;
    const base = { asset: 'xmr' as const, network: c.network, address: c.address, message: hexToBytes(c.message_utf8_hex) };
    for (const signature of ['', 'SigV2', 'SigV3' + c.signature.slice(5), c.signature + 'a', c.signature.slice(0, -1) + '0', 'SigV2' + '1'.repeat(88), 'SigV2' + 'z'.repeat(88)]) {
      expect(verifyCryptonoteMessage({ ...base, signature }).ok, signature).to.equal(false);
    }
  });
});

describe('crypto: Wownero message signatures (own domain separator)', () => {
  it('a Wownero SigV2 verifies as wow and not as xmr, and a Monero one not as wow', () => {
    const wow = new CryptonoteKey('wow');
    const message = 'log in to example';
    const address = wow.address();
    expect(address.startsWith('Wo')).to.equal(true);
    expect(address).to.have.length(97);
    const wowSig = wow.sign(message, 'wow');
    expect(verifyCryptonoteMessage({ asset: 'wow', network: 'mainnet', address, message: utf8ToBytes(message), signature: wowSig })).to.deep.equal({ ok: true, version: 2, mode: 'spend' });
    // Same keys, Monero domain: a Monero verifier would accept it for the XMR address; ours refuses it for WOW.
    const xmrSig = wow.sign(message, 'xmr');
    expect(verifyCryptonoteMessage({ asset: 'wow', network: 'mainnet', address, message: utf8ToBytes(message), signature: xmrSig }).ok).to.equal(false);
    const asXmr = new CryptonoteKey('xmr');
    expect(verifyCryptonoteMessage({ asset: 'xmr', network: 'mainnet', address: asXmr.address(), message: utf8ToBytes(message), signature: asXmr.sign(message, 'wow') }).ok).to.equal(false);
    expect(decodeCryptonoteAddress(address, 'wow')).to.include({ network: 'mainnet', kind: 'standard' });
    expect(decodeCryptonoteAddress(address, 'xmr')).to.equal(null);
  });
});
