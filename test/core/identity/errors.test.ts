import { expect } from 'chai';
import { identityErrors, WalletError } from '@wallet/backend-core';

/**
 * The identity catalogue itself: every code with its status and default message, as literal
 * known answers (the HTTP tests reach most of them through a route; this pins all of them,
 * including the ones no route test asserts word for word, and that no code is added or lost).
 */
const EXPECTED: [code: string, status: number, message: string][] = [
  ['proof_invalid', 401, 'The key-control proof is invalid.'],
  ['proof_expired', 401, 'The proof timestamp is outside the accepted window.'],
  ['proof_replayed', 401, 'This proof was already used.'],
  ['key_mismatch', 400, 'The submitted BTC key does not match the proven key.'],
  ['duplicate_key', 400, 'The keys list has more than one key for one asset and key type.'],
  ['identity_conflict', 409, 'This identity was registered concurrently; retry the login.'],
  ['nostr_not_linked', 401, 'This Nostr identity is not linked to an account.'],
  ['nostr_already_linked', 409, 'This Nostr identity is linked to another account.'],
  ['account_nostr_linked', 409, 'This account is already linked to another Nostr identity.'],
  ['seed_registered_elsewhere', 409, 'This wallet is registered under another Nostr identity.'],
  ['restore_limited', 429, 'Too many restore checks; retry later.'],
  ['website_origin_invalid', 400, 'Invalid origin'],
  ['website_asset_invalid', 400, 'Invalid asset'],
  ['website_signature_format', 400, 'Invalid signature format'],
  ['website_challenge_invalid', 401, 'Invalid or expired challenge'],
  ['website_signature_invalid', 401, 'Invalid signature'],
  ['website_wallet_unknown', 401, 'Unknown wallet'],
];

describe('identity: the error catalogue', () => {
  it('declares exactly these codes, in this order', () => {
    expect(Object.keys(identityErrors.specs)).to.deep.equal(EXPECTED.map(([code]) => code));
    expect(Object.keys(identityErrors.create)).to.deep.equal(EXPECTED.map(([code]) => code));
  });

  for (const [code, status, message] of EXPECTED) {
    it(`${code}: ${status} "${message}"`, () => {
      expect(identityErrors.specs[code as keyof typeof identityErrors.specs]).to.deep.equal({ status, message });
      const err = identityErrors.create[code as keyof typeof identityErrors.create]();
      expect(err).to.be.instanceOf(WalletError);
      expect({ code: err.code, status: err.status, message: err.message }).to.deep.equal({ code, status, message });
    });
  }
});
