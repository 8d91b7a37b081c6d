import { expect } from 'chai';
import { hexToBytes } from '@noble/hashes/utils.js';
import { MESSAGE_NETWORKS, recoverMessageSigner, verifyMessageSignature } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

interface MessageCase {
  id: string;
  network: string;
  address: string;
  pubkey: string;
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
  negative_reason?: string;
}

const suites = [
  { file: 'btc.json', prefix: 'btc' },
  { file: 'ltc.json', prefix: 'ltc' },
] as const;

for (const { file, prefix } of suites) {
  const { cases } = loadVectors<{ cases: MessageCase[] }>(file);

  describe(`message signatures: every case of test/vectors/${file}`, () => {
    it('has cases, positive and negative', () => {
      expect(cases.filter((c) => c.expected_valid).length).to.be.greaterThan(5);
      expect(cases.filter((c) => !c.expected_valid).length).to.be.greaterThan(5);
    });

    for (const c of cases) {
      it(`${c.id}: ${c.expected_valid ? 'valid' : `invalid (${c.negative_reason})`}`, () => {
        const network = MESSAGE_NETWORKS[`${prefix}-${c.network}` as keyof typeof MESSAGE_NETWORKS];
        expect(network, c.network).to.not.equal(undefined);
        const message = hexToBytes(c.message_utf8_hex);
        expect(verifyMessageSignature(c.address, message, c.signature, network)).to.equal(c.expected_valid);
        if (c.expected_valid) {
          // The recovered signer is the wallet's published key.
          const signer = recoverMessageSigner(message, c.signature, network);
          expect(Buffer.from(signer!.publicKey).toString('hex')).to.equal(c.pubkey);
        }
      });
    }
  });
}

describe('message signatures: hostile input fails closed', () => {
  const network = MESSAGE_NETWORKS['btc-mainnet'];
  const { cases } = loadVectors<{ cases: MessageCase[] }>('btc.json');
  const good = cases.find((c) => c.expected_valid && c.network === 'mainnet')!;
  const message = hexToBytes(good.message_utf8_hex);

  for (const [label, signature] of [
    ['empty', ''],
    ['not base64', '!'.repeat(88)],
    ['too short', good.signature.slice(0, 80)],
    ['too long', good.signature + 'AAAA'],
    ['zero r and s', Buffer.concat([Buffer.of(31), Buffer.alloc(64)]).toString('base64')],
    ['r = s = n (out of range)', Buffer.concat([Buffer.of(31), Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'.repeat(2), 'hex')]).toString('base64')],
  ] as const) {
    it(`${label} signature → false`, () => {
      expect(verifyMessageSignature(good.address, message, signature, network)).to.equal(false);
    });
  }

  for (const address of ['', 'not-an-address', 'bc1zzzz', 'LQJFbiBeCxBh3Ti2vb2cBoTqWUQoGDXGpc']) {
    it(`address "${address}" → false`, () => {
      expect(verifyMessageSignature(address, message, good.signature, network)).to.equal(false);
    });
  }
});
