import * as v from 'valibot';
import { submittedKey } from '../directory/index.js';

const hex = (min: number, max: number, what: string) =>
  v.pipe(v.string('must be a string'), v.regex(new RegExp(`^[0-9a-fA-F]{${min},${max}}$`), `must be ${what}`));
const bounded = (max: number) => v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, 'is too long'));

const pubkeyHash = hex(40, 40, '40 hex characters (HASH160 of the compressed BTC public key)');
const seedFingerprint = hex(8, 128, '8 to 128 hex characters');
const nonce = v.pipe(v.string('must be a string'), v.regex(/^[0-9a-f]{64}$/, 'must be the 64-hex nonce'));
const nostrToken = bounded(16_384);
const keys = v.pipe(v.array(submittedKey, 'must be a list of keys'), v.maxLength(10, 'has too many keys'));

/** Registration-gate inputs; the gates (next issue) decide what is required. */
const gateInputs = {
  altcha_solution: v.optional(bounded(4_096)),
  invite_code: v.optional(bounded(64)),
  payment_invoice_id: v.optional(bounded(128)),
};

export const extensionRequest = v.pipe(v.strictObject({
  pubkey_hash: pubkeyHash,
  seed_fingerprint: seedFingerprint,
  keys: v.optional(keys, []),
  timestamp: v.pipe(v.number('must be a number'), v.integer('must be whole seconds'), v.minValue(0, 'must be a unix time')),
  signature: bounded(200),
  rotation_signature: v.optional(bounded(200)),
  ...gateInputs,
}), v.title('ExtensionLoginRequest'));

export const checkRestoreRequest = v.pipe(v.strictObject({
  seed_fingerprint: seedFingerprint,
  pubkey_hash: v.optional(pubkeyHash),
}), v.title('CheckRestoreRequest'));
export const checkRestoreResponse = v.pipe(v.object({ exists: v.boolean(), valid: v.boolean() }), v.title('CheckRestoreResponse'));

export const nonceResponse = v.pipe(v.object({ nonce: v.string(), purpose: v.string(), expires_at: v.pipe(v.string(), v.isoTimestamp()) }), v.title('NonceResponse'));

export const nostrLinkRequest = v.pipe(v.strictObject({ nostr_token: nostrToken, nonce }), v.title('NostrLinkRequest'));
export const nostrLinkResponse = v.pipe(v.object({ nostr_pubkey: v.string() }), v.title('NostrLinkResponse'));

export const nostrRegisterRequest = v.pipe(v.strictObject({
  nostr_token: nostrToken,
  nonce,
  seed_fingerprint: seedFingerprint,
  keys: v.optional(keys, []),
  /** Bitcoin message signature of nostrMergeMessage by the BTC key an existing account proved: the only way to join it. */
  merge_signature: v.optional(bounded(200)),
  ...gateInputs,
}), v.title('NostrRegisterRequest'));

export const websiteChallengeRequest = v.pipe(v.strictObject({ origin: bounded(200) }), v.title('WebsiteChallengeRequest'));
export const websiteChallengeResponse = v.pipe(v.object({ challenge: v.string(), challenge_id: v.string(), expires_at: v.pipe(v.string(), v.isoTimestamp()) }), v.title('WebsiteChallengeResponse'));

/** Deliberately loose: the service answers format problems with the spec's literal messages, in its own order. */
export const websiteVerifyRequest = v.pipe(v.strictObject({
  challenge_id: bounded(128),
  asset: bounded(16),
  public_key: bounded(200),
  signature: bounded(300),
}), v.title('WebsiteVerifyRequest'));
