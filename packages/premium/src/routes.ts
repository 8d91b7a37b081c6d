import { defineRoute, type AnyRoute } from '@wallet/backend-core';
import { activateRequest, invoiceRequest, invoiceResponse, statusResponse } from './schemas.js';
import type { PremiumService } from './service.js';

const common = { tags: ['premium'], auth: 'bearer' as const };

/** HTTP for premium: translate, call the service, nothing else. */
export function premiumRoutes(service: PremiumService): AnyRoute[] {
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: '/premium/invoice',
      operationId: 'createPremiumInvoice',
      errors: ['premium_off', 'premium_plan_unknown', 'premium_nostr_not_linked', 'premium_invoice_limit', 'processor_unavailable'],
      summary: 'Create a processor invoice for a premium plan, bound to the caller',
      body: invoiceRequest,
      response: invoiceResponse,
      statuses: { 400: 'Premium off, unknown plan, no linked Nostr key, too many unpaid invoices, invalid input', 503: 'The payment processor is unavailable' },
      handler: ({ body, auth }) => service.createInvoice(auth.userId, body.plan),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/premium/activate',
      operationId: 'activatePremium',
      errors: ['premium_off', 'premium_invoice_unknown', 'premium_invoice_unpaid', 'premium_invoice_used', 'processor_unavailable'],
      summary: 'Redeem a settled invoice: consume it and extend premium by its plan’s days',
      body: activateRequest,
      response: statusResponse,
      statuses: { 400: 'Premium off; unknown (or another user’s), unpaid or already used invoice', 503: 'The payment processor is unavailable' },
      handler: ({ body, auth }) => service.activate(auth.userId, body.invoice_id),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/premium/status',
      operationId: 'getPremiumStatus',
      errors: ['premium_off'],
      summary: 'The caller’s premium period, whether the relay admits it as premium, and its invoices',
      response: statusResponse,
      handler: ({ auth }) => service.status(auth.userId),
    }),
  ];
}
