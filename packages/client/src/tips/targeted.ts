import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { getConversationKey } from 'nostr-tools/nip44';
import { parseTipClaim, tipClaimText, type TipAsset, type TipClaim } from './claim.js';
import type { Nip44Decrypter } from './decrypter.js';
import { TipEnvelopeError } from './errors.js';
import { bytes32, ciphertextOf, nip44Seal } from './payload.js';
import { assertKeySpendsTip } from './address.js';

const XONLY = /^[0-9a-f]{64}$/;

/** A sealed targeted tip. */
export interface SealedTargetedTip {
  /** The create request's `ciphertext` (required for a targeted tip): the one-time x-only public key (64 hex), `:`, the NIP-44 v2 payload. */
  ciphertext: string;
  /** The one-time sealing key's x-only public key (the part before the `:`). */
  one_time_pubkey: string;
}

export interface SealTargetedTipOptions {
  /** The one-time sealing key (32 bytes), only to reproduce a known answer; a fresh one by default, forgotten once sealed. */
  oneTimeSecret?: Uint8Array;
  /** The 32-byte NIP-44 nonce, only to reproduce a known answer; a fresh random one by default. */
  nonce?: Uint8Array;
}

/** What a claim answer hands back that opening a targeted tip needs. */
export interface ClaimedTargetedTip {
  ciphertext: string | null;
  /** The tip's asset: the claim key must be for it. */
  asset?: TipAsset;
  /** The claim answer's `tip_address`: a BTC/LTC claim key must spend it. */
  tip_address?: string | null;
}

/**
 * Seals a targeted tip's claim key to the recipient's Nostr key (envelope v1): NIP-44 v2 from a
 * fresh one-time secp256k1 key. `recipientPubkey` is the x-only key (64 hex) the directory
 * gives for the recipient's username ({@link recipientNostrKey}); send `ciphertext` with the
 * create request and `recipient` = the username. The server checks only that a targeted tip
 * has a ciphertext and hands it to that user alone on claim.
 */
export function sealTargetedTip(claim: TipClaim, recipientPubkey: string, options: SealTargetedTipOptions = {}): SealedTargetedTip {
  const plaintext = tipClaimText(claim);
  const recipient = typeof recipientPubkey === 'string' ? recipientPubkey.toLowerCase() : '';
  if (!XONLY.test(recipient)) throw new TipEnvelopeError('tip_input_invalid', "the recipient's Nostr key must be 64 hex characters (x-only)");
  const fresh = options.oneTimeSecret === undefined;
  const oneTime = fresh ? schnorr.utils.randomSecretKey() : bytes32(options.oneTimeSecret!, 'the one-time key');
  try {
    let conversationKey: Uint8Array;
    let oneTimePubkey: string;
    try {
      oneTimePubkey = bytesToHex(schnorr.getPublicKey(oneTime));
      conversationKey = getConversationKey(oneTime, recipient);
    } catch (cause) {
      throw new TipEnvelopeError('tip_input_invalid', "the one-time key or the recipient's Nostr key is not a secp256k1 key", { cause });
    }
    return { ciphertext: `${oneTimePubkey}:${nip44Seal(plaintext, conversationKey, options.nonce)}`, one_time_pubkey: oneTimePubkey };
  } finally {
    if (fresh) oneTime.fill(0);
  }
}

/** The one-time public key and the NIP-44 payload of a targeted tip's ciphertext, or `tip_envelope_malformed`. */
export function splitTargetedCiphertext(ciphertext: string | null | undefined): { one_time_pubkey: string; payload: string } {
  const text = ciphertextOf(ciphertext);
  const at = text.indexOf(':');
  const pubkey = text.slice(0, at).toLowerCase();
  if (at !== 64 || !XONLY.test(pubkey) || at === text.length - 1) {
    throw new TipEnvelopeError('tip_envelope_malformed', 'a targeted tip ciphertext is the one-time public key (64 hex), ":", then the NIP-44 payload');
  }
  return { one_time_pubkey: pubkey, payload: text.slice(at + 1) };
}

/**
 * Opens a claimed targeted tip with the recipient's Nostr key, through `decrypter` (NIP-07's
 * `window.nostr` or any {@link Nip44Decrypter}): the key decrypts, the client checks the claim
 * (and its asset, when the tip's asset is given). A decrypter that refuses — a wrong key,
 * altered bytes — is `tip_envelope_unopenable`.
 */
export async function openTargetedTip(tip: ClaimedTargetedTip, decrypter: Nip44Decrypter): Promise<TipClaim> {
  const { one_time_pubkey, payload } = splitTargetedCiphertext(tip.ciphertext);
  let plaintext: string;
  try {
    plaintext = await decrypter.nip44.decrypt(one_time_pubkey, payload);
  } catch (cause) {
    throw new TipEnvelopeError('tip_envelope_unopenable', 'the envelope does not open with this Nostr key', { cause });
  }
  const claim = parseTipClaim(plaintext, tip.asset);
  assertKeySpendsTip(claim, tip.tip_address);
  return claim;
}
