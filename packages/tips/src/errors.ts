import { defineErrors } from '@wallet/backend-core';

/**
 * The tips' refusals. The spec answers most with 400 (claim, clawback and confirm-sweep list no
 * 404): a tip the caller may not act on is `tip_unknown`, the same answer as a tip that does
 * not exist, so a targeted tip's existence is never disclosed to anyone but its two parties.
 * Only the sender's own routes (attach-funding, cancel) answer 404.
 */
export const tipErrors = defineErrors({
  tips_off: { status: 400, message: 'Tips are not enabled on this server.' },
  targeted_tips_off: { status: 400, message: 'Targeted tips are not enabled on this server; the tip was not created.' },
  tip_asset_disabled: { status: 400, message: 'Tips in this asset are not enabled on this server.' },
  tip_invalid: { status: 400, message: 'The tip request is not valid.' },
  tip_recipient_unknown: { status: 400, message: 'No registered user has this username.' },
  tip_recipient_self: { status: 400, message: 'A targeted tip needs a recipient other than the sender.' },
  tip_not_found: { status: 404, message: 'No such tip among the caller’s tips.' },
  tip_unknown: { status: 400, message: 'No such tip for this caller.' },
  tip_not_draft: { status: 400, message: 'The tip is not a draft.' },
  tip_funding_conflict: { status: 400, message: 'The tip already has another funding transaction.' },
  tip_not_funded: { status: 400, message: 'The tip is not fully funded yet.' },
  tip_underfunded: { status: 400, message: 'The tip’s funding does not cover its amount.' },
  tip_clawed_back: { status: 400, message: 'The tip was clawed back by its sender.' },
  tip_swept: { status: 400, message: 'The tip has already been swept.' },
  tip_cancelled: { status: 400, message: 'The tip was cancelled.' },
  tip_not_clawable: { status: 400, message: 'A draft is cancelled, not clawed back.' },
  tip_settled: { status: 400, message: 'The tip is settled; nothing can be clawed back.' },
  tip_not_claiming: { status: 400, message: 'The tip has not been claimed.' },
  tip_not_claimer: { status: 400, message: 'Only a caller who claimed this tip may record its sweep.' },
  tip_funding_taken: { status: 409, message: 'This funding output already backs another tip.' },
  tip_unconfirmed_limit: { status: 409, message: 'Too many of your tips are waiting for their funding to confirm; wait until one confirms.' },
  tip_chain_off: { status: 503, message: 'The tip’s chain is not configured on this server now, so whether its sweep confirmed cannot be checked; retry later.' },
  tip_public_not_found: { status: 404, message: 'No public tip with this id.' },
});
