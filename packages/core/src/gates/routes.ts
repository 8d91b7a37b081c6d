import * as v from 'valibot';
import { defineRoute, nextAfterField, pageQuery, type AnyRoute } from '../http/index.js';
import type { IdentityRepository } from '../identity/index.js';
import type { Peppers } from '../crypto/index.js';
import { gateErrors } from './errors.js';
import type { InviteAdmin } from './invites-admin.js';
import { INVITE_STATES } from './invites.js';
import type { RegistrationPayments } from './payment.js';
import type { ProofOfWork } from './pow.js';

const powChallengeResponse = v.pipe(v.object({
  parameters: v.record(v.string(), v.unknown()),
  signature: v.optional(v.string()),
}), v.title('PowChallengeResponse'));

const paymentInvoiceRequest = v.pipe(v.union(
  [
    v.strictObject({ pubkey_hash: v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{40}$/, 'must be 40 hex characters')) }),
    v.strictObject({ nostr_pubkey: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a 64-hex Nostr public key')) }),
  ],
  'must carry exactly one of pubkey_hash or nostr_pubkey',
), v.title('PaymentInvoiceRequest'));

const paymentInvoiceResponse = v.pipe(v.object({
  invoice_id: v.string(),
  checkout_link: v.string(),
  amount: v.string(),
  currency: v.string(),
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
}), v.title('PaymentInvoiceResponse'));

export interface GateRouteDeps {
  pow: ProofOfWork;
  payments: RegistrationPayments | null;
  identities: IdentityRepository;
  peppers: Peppers;
}

export function gateRoutes(deps: GateRouteDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/pow-challenge',
      operationId: 'createPowChallenge',
      summary: 'A stateless, HMAC-signed ALTCHA proof-of-work challenge',
      description: 'Solve it and send the base64 payload as `altcha_solution` when registering. See docs/wallet-integration.md.',
      tags: ['auth'],
      auth: 'none',
      response: powChallengeResponse,
      handler: () => deps.pow.challenge(),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/payment-invoice',
      operationId: 'createPaymentInvoice',
      errors: ['payment_gate_off', 'already_registered', 'key_invalid', 'processor_unavailable'],
      summary: 'Create the registration invoice for a new wallet on the payment processor',
      tags: ['auth'],
      auth: 'none',
      body: paymentInvoiceRequest,
      response: paymentInvoiceResponse,
      statuses: { 400: 'Payment gate off, wallet already registered, or invalid key', 503: 'Payment processor unavailable' },
      handler: async ({ body }) => {
        if (deps.payments === null) throw gateErrors.create.payment_gate_off();
        if ('pubkey_hash' in body) {
          const pubkeyHash = body.pubkey_hash.toLowerCase();
          if ((await deps.identities.byPubkeyHash(deps.peppers.pepper(pubkeyHash))) !== null) throw gateErrors.create.already_registered();
          return deps.payments.createInvoice({ kind: 'pubkey_hash', value: pubkeyHash });
        }
        if ((await deps.identities.byNostr(body.nostr_pubkey)) !== null) throw gateErrors.create.already_registered();
        return deps.payments.createInvoice({ kind: 'npub', value: body.nostr_pubkey });
      },
    }),
  ];
}

const admin = { tags: ['admin'], openapi: 'internal' as const, auth: 'admin' as const };
const isoTime = v.pipe(v.string(), v.isoTimestamp());
const nullableIsoTime = v.nullable(isoTime);

const mintInvitesRequest = v.pipe(v.strictObject({
  count: v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be from 1 to 100'), v.maxValue(100, 'must be from 1 to 100')),
  label: v.optional(v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must be 1 to 100 characters'),
    v.maxLength(100, 'must be 1 to 100 characters'),
    v.regex(/^\P{Cc}*$/u, 'must not contain control characters'),
  )),
  expires_at: v.optional(v.pipe(
    v.string('must be an ISO-8601 time'),
    v.isoTimestamp('must be an ISO-8601 time'),
    v.transform((text) => new Date(text)),
    v.check((date) => Number.isFinite(date.getTime()), 'must be an ISO-8601 time'),
  )),
}), v.title('MintInvitesRequest'));

const mintInvitesResponse = v.pipe(v.object({
  invites: v.array(v.object({ id: v.string(), code: v.string(), label: v.nullable(v.string()), created_at: isoTime, expires_at: nullableIsoTime })),
}), v.title('MintInvitesResponse'));

const inviteView = v.pipe(v.object({
  id: v.string(),
  label: v.nullable(v.string()),
  created_at: isoTime,
  expires_at: nullableIsoTime,
  used_at: nullableIsoTime,
  revoked_at: nullableIsoTime,
  state: v.picklist(INVITE_STATES),
}), v.title('AdminInvite'));

const inviteListResponse = v.pipe(v.object({
  invites: v.array(inviteView),
  /** Pass as `after` for the next page; null on the last page. */
  next_after: nextAfterField,
}), v.title('AdminInviteList'));

const inviteIdParams = v.object({ invite_id: v.pipe(v.string(), v.uuid('must be a UUID'), v.transform((id) => id.toLowerCase())) });

/** The operator's invite routes (docs/admin.md › Invites): HTTP only; the service does the rest. */
export function inviteAdminRoutes(invites: InviteAdmin): AnyRoute[] {
  return [
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/admin/invites',
      operationId: 'mintInvites',
      summary: 'Mint invite codes; the raw codes are in this answer only',
      body: mintInvitesRequest,
      response: mintInvitesResponse,
      successStatus: 201,
      errors: ['invite_expiry_past'],
      handler: ({ body, auth, clientIp }) => invites.mint({ kind: 'admin', pubkey: auth.pubkey, peerIp: clientIp }, { count: body.count, label: body.label, expiresAt: body.expires_at }),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/invites',
      operationId: 'listInvites',
      summary: 'Invites newest first, with their state now; never a code',
      query: v.object({
        state: v.optional(v.picklist([...INVITE_STATES, 'all'], 'must be unused, used, expired, revoked or all'), 'all'),
        ...pageQuery,
      }),
      response: inviteListResponse,
      handler: ({ query }) => invites.list(query),
    }),
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/admin/invites/{invite_id}/revoke',
      operationId: 'revokeInvite',
      summary: 'Revoke an unused, unexpired invite',
      params: inviteIdParams,
      response: inviteView,
      errors: ['invite_not_found', 'invite_not_revocable'],
      handler: ({ params, auth, clientIp }) => invites.revoke(auth, params.invite_id, clientIp),
    }),
  ];
}
