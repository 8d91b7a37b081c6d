import * as v from 'valibot';
import { defineRoute, type AnyRoute } from '../http/index.js';
import type { IdentityRepository } from '../identity/index.js';
import type { Peppers } from '../crypto/index.js';
import { gateErrors } from './errors.js';
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
