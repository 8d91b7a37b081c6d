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
      summary: 'The caller’s premium period, whether the relay admits it as premium, and its invoices',
      response: statusResponse,
      handler: ({ auth }) => service.status(auth.userId),
    }),
  ];
}
