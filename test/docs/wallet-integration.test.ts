import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  hash160,
  MESSAGE_NETWORKS,
  recoverMessageSigner,
  verifyCryptonoteMessage,
  verifyGrinMessage,
  verifyNip98,
} from '../../packages/core/src/crypto/index.js';
import { REPO_ROOT } from '../harness/index.js';
import { examples, SERVICE, TIMESTAMP } from './integration-examples.js';

const doc = readFileSync(join(REPO_ROOT, 'docs/wallet-integration.md'), 'utf8');
const ex = examples();
const at = new Date(TIMESTAMP * 1000);

describe('docs/wallet-integration.md worked examples', () => {
  it('prints every example value the fixed secrets produce', () => {
    const values = [
      ex.btc.secret, ex.btc.publicKey, ex.btc.pubkeyHash, ex.btc.loginMessage, ex.btc.loginSignature,
      ex.btc.newPubkeyHash, ex.btc.rotationSignature, ex.btc.websiteSignature, ex.btc.mergeMessage, ex.btc.mergeSignature,
      ex.nostr.secret, ex.nostr.login.event.pubkey, ex.nostr.login.event.id, ex.nostr.login.event.sig,
      ex.nostr.nonce, ex.nostr.descriptor, ex.nostr.link.event.id, ex.nostr.link.event.sig,
      ex.website.challenge, ex.website.grinSecretSeed, ex.website.grinPublicKey, ex.website.grinSignature,
      ex.website.xmrAddress, ex.website.xmrMessageHash, ex.website.xmrSignature,
    ];
    for (const value of values) expect(doc, value).to.include(value);
  });

  it('the BTC login, rotation and website signatures verify as the server checks them', () => {
    const network = MESSAGE_NETWORKS['btc-mainnet'];
    for (const [message, signature] of [
      [ex.btc.loginMessage, ex.btc.loginSignature],
      [ex.btc.rotationMessage, ex.btc.rotationSignature],
      [ex.website.challenge, ex.btc.websiteSignature],
      [ex.btc.mergeMessage, ex.btc.mergeSignature],
    ] as const) {
      const signer = recoverMessageSigner(utf8ToBytes(message), signature, network);
      expect(bytesToHex(signer!.publicKey)).to.equal(ex.btc.publicKey);
      expect(bytesToHex(hash160(signer!.publicKey))).to.equal(ex.btc.pubkeyHash);
    }
  });

  it('the NIP-98 login and the link action verify against the public URL', () => {
    const login = verifyNip98({ authorization: `Nostr ${ex.nostr.login.base64}`, url: `${SERVICE}/api/v1/auth/nostr`, method: 'POST', body: new Uint8Array(), now: at });
    expect(login.ok).to.equal(true);
    const link = verifyNip98({ authorization: `Nostr ${ex.nostr.link.base64}`, url: `${SERVICE}/api/v1/auth/nostr/link`, method: 'POST', body: new Uint8Array(), now: at });
    expect(link.ok).to.equal(true);
  });

  it('the Grin and Monero website signatures verify', () => {
    expect(verifyGrinMessage(ex.website.grinPublicKey, utf8ToBytes(ex.website.challenge), ex.website.grinSignature)).to.equal(true);
    const xmr = verifyCryptonoteMessage({ asset: 'xmr', network: 'mainnet', address: ex.website.xmrAddress, message: utf8ToBytes(ex.website.challenge), signature: ex.website.xmrSignature });
    expect(xmr).to.deep.equal({ ok: true, version: 2, mode: 'spend' });
  });
});
