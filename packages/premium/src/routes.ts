import { defineRoute, type AnyRoute } from '@wallet/backend-core';
import type { PremiumAdmin } from './admin.js';
import { activateRequest, adminInvoicesQuery, adminInvoicesResponse, adminUserParams, adminUserQuery, adminUserResponse, invoiceRequest, invoiceResponse, statusResponse } from './schemas.js';
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

/** The operator's read-only premium view (docs/admin.md): admin sessions only, never in the public document. */
export function premiumAdminRoutes(admin: PremiumAdmin): AnyRoute[] {
  const internal = { tags: ['admin'], openapi: 'internal' as const, auth: 'admin' as const };
  return [
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/premium/invoices',
      operationId: 'listPremiumInvoices',
      summary: 'Premium invoices in a state (pending, expired, settled but not activated, activated), newest first',
      query: adminInvoicesQuery,
      response: adminInvoicesResponse,
      handler: ({ query }) => admin.listInvoices(query.state, query.limit, query.after),
    }),
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/premium/users/{user_id}',
      operationId: 'getPremiumUserHistory',
      summary: 'A user’s premium period, invoice counts by state, activations and invoices',
      params: adminUserParams,
      query: adminUserQuery,
      response: adminUserResponse,
      errors: ['premium_user_not_found'],
      statuses: { 404: 'No user has this id' },
      handler: ({ params, query }) => admin.userHistory(params.user_id, query.limit, query.after),
    }),
  ];
}
