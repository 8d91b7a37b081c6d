import { TipEnvelopeError } from './errors.js';

/** The assets a tip can be made in (the server's `asset`). */
export const TIP_ASSETS = ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const;
export type TipAsset = (typeof TIP_ASSETS)[number];

/** The envelope version this client seals and opens. */
export const TIP_ENVELOPE_VERSION = 1;

/**
 * What an envelope carries: the one-time secret that spends the tip (docs/tips.md "The claim
 * key, byte for byte"). `key` is 64 lower-case hex: for btc/ltc the secp256k1 private key of the
 * P2WPKH tip address, for xmr/wow the private spend key (the view key is Hs(spend key)), for
 * grin the output's blinding factor.
 */
export interface TipClaim {
  v: typeof TIP_ENVELOPE_VERSION;
  asset: TipAsset;
  key: string;
}

const KEY = /^[0-9a-f]{64}$/;

const isAsset = (value: unknown): value is TipAsset => typeof value === 'string' && (TIP_ASSETS as readonly string[]).includes(value);

/** A claim for `asset` and `key` (64 hex, either case; stored lower-case), refused when either is unusable. */
export function tipClaim(asset: TipAsset, key: string): TipClaim {
  if (!isAsset(asset)) throw new TipEnvelopeError('tip_input_invalid', `asset must be one of ${TIP_ASSETS.join(', ')}`);
  const lower = typeof key === 'string' ? key.toLowerCase() : '';
  if (!KEY.test(lower)) throw new TipEnvelopeError('tip_input_invalid', 'the claim key must be 64 hex characters');
  return { v: TIP_ENVELOPE_VERSION, asset, key: lower };
}

/** The plaintext sealed in the envelope: the UTF-8 JSON `{"v":1,"asset":"…","key":"…"}`, exactly those fields in that order. */
export function tipClaimText(claim: TipClaim): string {
  const checked = tipClaim(claim.asset, claim.key);
  return JSON.stringify({ v: checked.v, asset: checked.asset, key: checked.key });
}

/**
 * The claim an opened envelope holds. Exactly the fields `v` (1), `asset` and `key` (64
 * lower-case hex); with `expectedAsset` (the claim answer's `asset`), a claim for another asset
 * is refused too.
 */
export function parseTipClaim(text: string, expectedAsset?: TipAsset): TipClaim {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new TipEnvelopeError('tip_claim_invalid', 'the envelope does not hold JSON', { cause });
  }
  const invalid = () => new TipEnvelopeError('tip_claim_invalid', 'the envelope does not hold a version 1 tip claim {"v":1,"asset","key"}');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid();
  const fields = value as Record<string, unknown>;
  if (Object.keys(fields).sort().join() !== 'asset,key,v') throw invalid();
  if (fields.v !== TIP_ENVELOPE_VERSION || !isAsset(fields.asset) || typeof fields.key !== 'string' || !KEY.test(fields.key)) throw invalid();
  if (expectedAsset !== undefined && fields.asset !== expectedAsset) {
    throw new TipEnvelopeError('tip_asset_mismatch', `the envelope holds a ${fields.asset} claim key, not a ${expectedAsset} one`);
  }
  return { v: TIP_ENVELOPE_VERSION, asset: fields.asset, key: fields.key };
}
