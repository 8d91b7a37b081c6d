/**
 * Nostr link and register (docs/wallet-integration.md §3): signed actions over an empty-body
 * descriptor, with the nonce of `GET …/link-challenge` or `GET …/register-challenge`.
 * @module
 */
import { nostrMergeMessage } from '../messages.js';
import type { NostrSigner } from '../signer.js';
import { assertSignerAsset, type AssetBitcoinSigner } from './bitcoin-message.js';
import { gateFields, type GateInputs, type SubmittedKey } from './gates.js';
import { buildSignedAction, SIGNED_ACTION_PURPOSES } from './signed-action.js';

/** `POST` path of linking an npub to the bearer's account. */
export const NOSTR_LINK_PATH = '/api/v1/auth/nostr/link';
/** `POST` path of registering (or logging in) with an npub. */
export const NOSTR_REGISTER_PATH = '/api/v1/auth/nostr/register';

/** Common inputs of the Nostr account actions. */
export interface NostrActionInput {
  signer: NostrSigner;
  service: string;
  /** The nonce of the matching challenge endpoint. */
  nonce: string;
  /** The event's `created_at`: a Date or Unix seconds (within 60 s of the server clock). Default: now. */
  createdAt?: Date | number;
}

/** The JSON body of `POST /api/v1/auth/nostr/link` (with the bearer token of the account). */
export interface NostrLinkRequest {
  nostr_token: string;
  nonce: string;
}

/** `{nostr_token, nonce}` for `POST /api/v1/auth/nostr/link`: purpose `nostr_link`, nonce from `GET /api/v1/auth/nostr/link-challenge` (bound to the account). */
export async function buildNostrLink(input: NostrActionInput): Promise<NostrLinkRequest> {
  const proof = await buildSignedAction({ ...input, method: 'POST', path: NOSTR_LINK_PATH, purpose: SIGNED_ACTION_PURPOSES.nostrLink });
  return { nostr_token: proof.nostr_token, nonce: proof.nonce };
}

/** What {@link buildNostrRegister} needs. */
export interface NostrRegisterInput extends NostrActionInput {
  seedFingerprint: string;
  keys?: SubmittedKey[];
  /** The BTC key an existing account proved: signs the merge message so the npub joins that account. */
  mergeSigner?: AssetBitcoinSigner;
  gates?: GateInputs;
}

/** The JSON body of `POST /api/v1/auth/nostr/register`. */
export interface NostrRegisterRequest extends GateInputs {
  nostr_token: string;
  nonce: string;
  seed_fingerprint: string;
  keys?: SubmittedKey[];
  merge_signature?: string;
}

/**
 * The body of `POST /api/v1/auth/nostr/register`: purpose `nostr_register`, nonce from
 * `GET /api/v1/auth/nostr/register-challenge`, plus `merge_signature` (BTC magic, over
 * {@link nostrMergeMessage} with the signer's x-only key) when `mergeSigner` is given.
 */
export async function buildNostrRegister(input: NostrRegisterInput): Promise<NostrRegisterRequest> {
  const proof = await buildSignedAction({ ...input, method: 'POST', path: NOSTR_REGISTER_PATH, purpose: SIGNED_ACTION_PURPOSES.nostrRegister });
  const body: NostrRegisterRequest = { nostr_token: proof.nostr_token, nonce: proof.nonce, seed_fingerprint: input.seedFingerprint, ...gateFields(input.gates) };
  if (input.keys !== undefined) body.keys = input.keys;
  if (input.mergeSigner !== undefined) {
    assertSignerAsset(input.mergeSigner, 'btc');
    body.merge_signature = await input.mergeSigner.signMessage(nostrMergeMessage(input.service, proof.event.pubkey, input.nonce));
  }
  return body;
}
