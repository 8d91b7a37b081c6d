import { expect } from 'chai';
import { extensionLoginMessage, keyRotationMessage, websiteChallengeMessage } from '../../../packages/core/src/identity/messages.js';

/** The exact texts wallets sign, as docs/wallet-integration.md gives them: literal known answers. Pure: no dialect. */
describe('identity: the signed message texts', () => {
  it('extension login', () => {
    expect(extensionLoginMessage('https://wallet.example', 'ab'.repeat(20), 1_700_000_000)).to.equal(
      `Wallet Backend login\nservice: https://wallet.example\npubkey_hash: ${'ab'.repeat(20)}\ntimestamp: 1700000000`,
    );
  });

  it('key rotation', () => {
    expect(keyRotationMessage('https://wallet.example', 'cd'.repeat(20), 1_700_000_001)).to.equal(
      `Wallet Backend key rotation\nservice: https://wallet.example\nnew_pubkey_hash: ${'cd'.repeat(20)}\ntimestamp: 1700000001`,
    );
  });

  it('website challenge', () => {
    const text = websiteChallengeMessage({ origin: 'https://shop.example', service: 'https://wallet.example', nonce: 'ef'.repeat(32), expiresAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)) });
    expect(text).to.equal(
      `https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example\nchallenge: ${'ef'.repeat(32)}\nexpires: 2026-01-02T03:04:05.006Z`,
    );
  });
});
