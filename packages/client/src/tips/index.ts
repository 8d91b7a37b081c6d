// Tip claim envelopes (envelope v1, docs/tips.md "The claim key, byte for byte"): the claim key
// sealed with NIP-44 v2, under a link secret for a public tip or to the recipient's Nostr key for
// a targeted one. The server stores the result as opaque text and never opens it.
export { TIP_ASSETS, TIP_ENVELOPE_VERSION, parseTipClaim, tipClaim, tipClaimText, type TipAsset, type TipClaim } from './claim.js';
export { TipEnvelopeError, type TipEnvelopeErrorCode } from './errors.js';
export { MAX_CIPHERTEXT_LENGTH } from './payload.js';
export { TIP_ENVELOPE_SALT, openPublicTip, sealPublicTip, type ClaimedPublicTip, type SealPublicTipOptions, type SealedPublicTip } from './public.js';
export { openTargetedTip, sealTargetedTip, splitTargetedCiphertext, type ClaimedTargetedTip, type SealTargetedTipOptions, type SealedTargetedTip } from './targeted.js';
export type { Nip44Decrypter } from './decrypter.js';
export { parseTipLink, tipShareLink, type TipLink } from './link.js';
export { recipientNostrKey } from './directory.js';
export { assertKeySpendsTip, tipAddress, type SegwitPrefix } from './address.js';
