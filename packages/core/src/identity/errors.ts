import { defineErrors } from '../errors/index.js';

/**
 * Identity errors. Website-login messages are literals (spec › Authentication rule 9): they
 * never say which check failed beyond the class of failure, and never whether a wallet exists.
 */
export const identityErrors = defineErrors({
  proof_invalid: { status: 401, message: 'The key-control proof is invalid.' },
  proof_expired: { status: 401, message: 'The proof timestamp is outside the accepted window.' },
  proof_replayed: { status: 401, message: 'This proof was already used.' },
  key_mismatch: { status: 400, message: 'The submitted BTC key does not match the proven key.' },
  duplicate_key: { status: 400, message: 'The keys list has more than one key for one asset and key type.' },
  identity_conflict: { status: 409, message: 'This identity was registered concurrently; retry the login.' },
  nostr_not_linked: { status: 401, message: 'This Nostr identity is not linked to an account.' },
  nostr_already_linked: { status: 409, message: 'This Nostr identity is linked to another account.' },
  account_nostr_linked: { status: 409, message: 'This account is already linked to another Nostr identity.' },
  seed_registered_elsewhere: { status: 409, message: 'This wallet is registered under another Nostr identity.' },
  restore_limited: { status: 429, message: 'Too many restore checks; retry later.' },
  website_origin_invalid: { status: 400, message: 'Invalid origin' },
  website_asset_invalid: { status: 400, message: 'Invalid asset' },
  website_signature_format: { status: 400, message: 'Invalid signature format' },
  website_challenge_invalid: { status: 401, message: 'Invalid or expired challenge' },
  website_signature_invalid: { status: 401, message: 'Invalid signature' },
  website_wallet_unknown: { status: 401, message: 'Unknown wallet' },
});
