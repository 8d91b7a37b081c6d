import { extract } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { parseTipClaim, tipClaimText, type TipAsset, type TipClaim } from './claim.js';
import { TipEnvelopeError } from './errors.js';
import { bytes32, ciphertextOf, nip44Open, nip44Seal } from './payload.js';
import { assertKeySpendsTip } from './address.js';

/** The HKDF salt of a public tip's conversation key (NIP-44 uses `nip44-v2` in the same place). */
export const TIP_ENVELOPE_SALT = 'wallet-backend-tip-v1';

/** A sealed public tip: what goes into the create request and what goes into the link. */
export interface SealedPublicTip {
  /** The link's fragment: the 32-byte secret as 64 lower-case hex. Never sent to the server. */
  fragment: string;
  /** The create request's `secret_hash`: hex SHA-256 of the 32 secret bytes (the server requires it for a public tip). */
  secret_hash: string;
  /** The create request's `ciphertext`: the NIP-44 v2 payload (base64), which the server stores as opaque text. */
  ciphertext: string;
}

export interface SealPublicTipOptions {
  /** The 32-byte fragment secret; a fresh random one by default. */
  secret?: Uint8Array;
  /** The 32-byte NIP-44 nonce, only to reproduce a known answer; a fresh random one by default. */
  nonce?: Uint8Array;
}

/** What a claim answer (`POST /tips/social/{id}/claim`) hands back that opening a public tip needs. */
export interface ClaimedPublicTip {
  ciphertext: string | null;
  secret_hash: string | null;
  /** The tip's asset: the claim key must be for it. */
  asset?: TipAsset;
  /** The claim answer's `tip_address`: a BTC/LTC claim key must spend it. */
  tip_address?: string | null;
}

/** HKDF-Extract(SHA-256, salt = `wallet-backend-tip-v1`, ikm = secret): the public tip's NIP-44 conversation key. */
function conversationKey(secret: Uint8Array): Uint8Array {
  return extract(sha256, secret, utf8ToBytes(TIP_ENVELOPE_SALT));
}

/**
 * Seals a public tip's claim key under a link secret (envelope v1). Send `secret_hash` and
 * `ciphertext` with the create request; give the claimer `share_url + "#" + fragment`
 * ({@link tipShareLink}). The server stores both as they are and checks neither: anyone who
 * holds the tip id may claim, and only who holds the fragment can open.
 */
export function sealPublicTip(claim: TipClaim, options: SealPublicTipOptions = {}): SealedPublicTip {
  const plaintext = tipClaimText(claim);
  const secret = options.secret === undefined ? randomBytes(32) : bytes32(options.secret, 'the secret');
  return {
    fragment: bytesToHex(secret),
    secret_hash: bytesToHex(sha256(secret)),
    ciphertext: nip44Seal(plaintext, conversationKey(secret), options.nonce),
  };
}

/**
 * Opens a claimed public tip with its link's fragment: checks SHA-256(secret) = `secret_hash`
 * first (`tip_link_damaged` when not), then decrypts and checks the claim (and its asset, when
 * the tip's asset is given).
 */
export function openPublicTip(tip: ClaimedPublicTip, fragment: string): TipClaim {
  if (typeof fragment !== 'string' || !/^[0-9a-fA-F]{64}$/.test(fragment)) throw new TipEnvelopeError('tip_link_damaged', 'this link is damaged: its secret is not 64 hex characters');
  const secret = hexToBytes(fragment);
  if (typeof tip.secret_hash !== 'string' || bytesToHex(sha256(secret)) !== tip.secret_hash.toLowerCase()) {
    throw new TipEnvelopeError('tip_link_damaged', 'this link is damaged: its secret does not match the tip');
  }
  const ciphertext = ciphertextOf(tip.ciphertext);
  const claim = parseTipClaim(nip44Open(ciphertext, conversationKey(secret)), tip.asset);
  assertKeySpendsTip(claim, tip.tip_address);
  return claim;
}
