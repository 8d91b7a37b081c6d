import { defineRoute, type AnyRoute } from '@wallet/backend-core';
import type { TipsAdmin } from './admin.js';
import {
  adminStuckTipsQuery,
  adminStuckTipsResponse,
  adminTipResponse,
  adminTipStatsResponse,
  attachFundingRequest,
  cancelTipResponse,
  claimTipResponse,
  clawbackTipResponse,
  confirmSweepRequest,
  confirmSweepResponse,
  createTipRequest,
  createTipResponse,
  inboxResponse,
  publicTipResponse,
  sentTipsResponse,
  tipIdParams,
} from './schemas.js';
import type { TipsService } from './service.js';

const common = { tags: ['tips'], auth: 'bearer' as const };
const OFF = 'Tips are off (`tips_off`), or invalid input';

/** HTTP for the tips: translate, call the service, nothing else. */
export function tipsRoutes(service: TipsService): AnyRoute[] {
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social',
      operationId: 'createTip',
      errors: ['tips_off', 'targeted_tips_off', 'tip_asset_disabled', 'tip_invalid', 'tip_recipient_unknown', 'tip_recipient_self', 'tip_funding_taken', 'tip_unconfirmed_limit'],
      summary: 'Create a public or targeted tip (as a draft, or with its funding)',
      body: createTipRequest,
      response: createTipResponse,
      statuses: {
        400: 'Tips off, targeted tip while targeted tips are off, asset not enabled, invalid input, unknown recipient',
        409: 'The funding output already backs another tip (`tip_funding_taken`), or too many of the sender’s tips await confirmation (`tip_unconfirmed_limit`)',
      },
      handler: ({ body, auth }) => service.create(auth.userId, body),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/tips/social/sent',
      operationId: 'listSentTips',
      errors: ['tips_off'],
      summary: 'The caller’s sent tips, newest first (at most 200)',
      response: sentTipsResponse,
      statuses: { 400: OFF },
      handler: ({ auth }) => service.sent(auth.userId),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/tips/social/inbox',
      operationId: 'listInboxTips',
      errors: ['tips_off'],
      summary: 'Targeted tips addressed to the caller that are not settled, newest first',
      response: inboxResponse,
      statuses: { 400: OFF },
      handler: ({ auth }) => service.inbox(auth.userId),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/tips/social/claimable',
      operationId: 'listClaimableTips',
      errors: ['tips_off'],
      summary: 'Targeted tips the caller can claim now, newest first',
      response: inboxResponse,
      statuses: { 400: OFF },
      handler: ({ auth }) => service.claimable(auth.userId),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social/{tip_id}/attach-funding',
      operationId: 'attachTipFunding',
      errors: ['tips_off', 'tip_not_found', 'tip_not_draft', 'tip_funding_conflict', 'tip_invalid', 'tip_funding_taken', 'tip_unconfirmed_limit'],
      summary: 'Attach the funding transaction to a draft (draft → pending_confirmation); the same txid again is idempotent',
      params: tipIdParams,
      body: attachFundingRequest,
      response: createTipResponse,
      statuses: {
        400: 'Another txid already attached, not a draft, empty, oversized or malformed txid',
        404: 'No such tip among the caller’s',
        409: 'The funding output already backs another tip (`tip_funding_taken`), or too many of the sender’s tips await confirmation (`tip_unconfirmed_limit`)',
      },
      handler: ({ params, body, auth }) => service.attachFunding(auth.userId, params.tip_id, body),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social/{tip_id}/cancel',
      operationId: 'cancelTip',
      errors: ['tips_off', 'tip_not_found'],
      summary: 'Cancel the caller’s draft (a funded tip is recovered by clawback)',
      params: tipIdParams,
      response: cancelTipResponse,
      statuses: { 400: OFF, 404: 'No such draft among the caller’s tips' },
      handler: ({ params, auth }) => service.cancel(auth.userId, params.tip_id),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social/{tip_id}/claim',
      operationId: 'claimTip',
      errors: ['tips_off', 'tip_unknown', 'tip_not_funded', 'tip_underfunded', 'tip_clawed_back', 'tip_cancelled', 'tip_swept'],
      summary: 'Claim a funded tip: the encrypted claim key and the tip address (→ claiming)',
      params: tipIdParams,
      response: claimTipResponse,
      statuses: { 400: 'Unknown (or not addressed to the caller), not yet funded, underfunded, clawed back, cancelled or swept' },
      handler: ({ params, auth }) => service.claim(auth.userId, params.tip_id),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social/{tip_id}/clawback',
      operationId: 'clawbackTip',
      errors: ['tips_off', 'tip_unknown', 'tip_not_clawable', 'tip_settled', 'tip_chain_off'],
      summary: 'The sender takes the tip back while no sweep has confirmed (→ clawed_back)',
      params: tipIdParams,
      response: clawbackTipResponse,
      statuses: {
        400: 'Unknown or not the caller’s, a draft (cancel it), or settled (also when the claimer’s sweep is found confirmed on chain)',
        503: 'A claimed tip’s chain could not be asked whether its sweep confirmed (the code names the upstream, or `tip_chain_off`); nothing changed',
      },
      handler: ({ params, auth }) => service.clawback(auth.userId, params.tip_id),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/tips/social/{tip_id}/confirm-sweep',
      operationId: 'confirmTipSweep',
      errors: ['tips_off', 'tip_unknown', 'tip_invalid', 'tip_not_claiming', 'tip_not_claimer'],
      summary: 'Record the sweep txid of a tip the caller claimed (the first recorded txid wins and is never overwritten)',
      params: tipIdParams,
      body: confirmSweepRequest,
      response: confirmSweepResponse,
      statuses: { 400: 'Unknown, never claimed, not claimed by the caller (`tip_not_claimer`), or an empty, oversized or malformed txid' },
      handler: ({ params, body, auth }) => service.confirmSweep(auth.userId, params.tip_id, body.sweep_txid),
    }),
    defineRoute({
      method: 'GET',
      path: '/tips/social/{tip_id}/public',
      operationId: 'getPublicTip',
      errors: ['tips_off', 'tip_public_not_found'],
      tags: ['tips'],
      auth: 'none',
      summary: 'What a share URL’s holder may see before signing in (the id is the credential)',
      params: tipIdParams,
      response: publicTipResponse,
      statuses: { 400: OFF, 404: 'Unknown or not a public tip' },
      handler: ({ params }) => service.publicInfo(params.tip_id),
    }),
  ];
}

const admin = { tags: ['admin'], openapi: 'internal' as const, auth: 'admin' as const };

/**
 * The operator's tip routes (docs/admin.md › Tips): GET only, so any live admin session may
 * read them (the kit enforces the scope). Mounted only while tips are on; the static paths come
 * before `{tip_id}` so they are matched first.
 */
export function adminTipsRoutes(service: TipsAdmin): AnyRoute[] {
  return [
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/tips/stats',
      operationId: 'getAdminTipStats',
      summary: 'How many tips are in each status (every status, 0 included), and in all',
      response: adminTipStatsResponse,
      handler: () => service.stats(),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/tips/stuck',
      operationId: 'listAdminStuckTips',
      summary: 'Tips in `claiming` for more than 15 minutes, oldest first, a page at a time',
      query: adminStuckTipsQuery,
      response: adminStuckTipsResponse,
      handler: ({ query }) => service.stuck(query.limit, query.after),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/tips/{tip_id}',
      operationId: 'getAdminTip',
      summary: 'One tip’s record and the transitions its rows record a time for',
      errors: ['tip_not_found'],
      params: tipIdParams,
      response: adminTipResponse,
      statuses: { 404: 'No tip with this id (`tip_not_found`)' },
      handler: ({ params }) => service.tip(params.tip_id),
    }),
  ];
}
