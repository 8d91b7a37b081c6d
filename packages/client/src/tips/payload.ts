import { decrypt, encrypt } from 'nostr-tools/nip44';
import { TipEnvelopeError } from './errors.js';

/** The server stores `ciphertext` as 1 to 4096 printable ASCII characters; nothing longer is ever handed back. */
export const MAX_CIPHERTEXT_LENGTH = 4096;
const PRINTABLE = /^[\x21-\x7e]+$/;

/** A checked ciphertext from a claim answer: present, printable, within the server's bound. */
export function ciphertextOf(ciphertext: string | null | undefined): string {
  if (typeof ciphertext !== 'string' || ciphertext.length === 0) throw new TipEnvelopeError('tip_envelope_malformed', 'the tip carries no ciphertext');
  if (ciphertext.length > MAX_CIPHERTEXT_LENGTH || !PRINTABLE.test(ciphertext)) {
    throw new TipEnvelopeError('tip_envelope_malformed', `the ciphertext must be 1 to ${MAX_CIPHERTEXT_LENGTH} printable ASCII characters`);
  }
  return ciphertext;
}

/** A 32-byte value given by the caller (a secret, a key, a nonce), refused otherwise. */
export function bytes32(value: Uint8Array, what: string): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== 32) throw new TipEnvelopeError('tip_input_invalid', `${what} must be 32 bytes`);
  return value;
}

/** NIP-44 v2 payload (base64) of `plaintext` under `conversationKey`; `nonce` only to reproduce a known answer. */
export function nip44Seal(plaintext: string, conversationKey: Uint8Array, nonce?: Uint8Array): string {
  return encrypt(plaintext, conversationKey, nonce === undefined ? undefined : bytes32(nonce, 'the nonce'));
}

/** The plaintext of a NIP-44 v2 payload, or `tip_envelope_unopenable` (wrong key, altered bytes, not a v2 payload). */
export function nip44Open(payload: string, conversationKey: Uint8Array): string {
  try {
    return decrypt(payload, conversationKey);
  } catch (cause) {
    throw new TipEnvelopeError('tip_envelope_unopenable', 'the envelope does not open with this secret or key', { cause });
  }
}
