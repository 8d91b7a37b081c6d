/**
 * Why a tip envelope was not sealed or opened. Every refusal names one of these codes, so a
 * wallet can tell the user what went wrong without parsing messages.
 *
 * - `tip_link_damaged`: the link's secret is not 64 hex characters or its SHA-256 is not the
 *   tip's `secret_hash` (the link was cut or altered).
 * - `tip_envelope_malformed`: the ciphertext is not an envelope v1 (missing, too long, not
 *   printable, a targeted one without its `<one-time key>:` prefix).
 * - `tip_envelope_unopenable`: NIP-44 refused it: a wrong secret or key, or altered bytes.
 * - `tip_claim_invalid`: it opened, but not to `{"v":1,"asset","key"}` with a 64-hex key.
 * - `tip_asset_mismatch`: it opened to a claim key of another asset than the tip's.
 * - `tip_input_invalid`: what the caller gave the sealer is not usable (a bad asset, key,
 *   recipient key, secret or nonce).
 */
export type TipEnvelopeErrorCode =
  | 'tip_link_damaged'
  | 'tip_envelope_malformed'
  | 'tip_envelope_unopenable'
  | 'tip_claim_invalid'
  | 'tip_asset_mismatch'
  | 'tip_input_invalid';

/** A refusal to seal or open a tip envelope; `code` says which. */
export class TipEnvelopeError extends Error {
  override readonly name = 'TipEnvelopeError';

  constructor(
    readonly code: TipEnvelopeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
