import * as v from 'valibot';
import { nextAfterField, pageQuery } from '@wallet/backend-core';

export const invoiceRequest = v.pipe(v.strictObject({
  /** A plan id of `/capabilities` `premium.plans`. */
  plan: v.pipe(v.string('plan must be a string'), v.minLength(1, 'plan must not be empty'), v.maxLength(32, 'plan must be at most 32 characters')),
}), v.title('PremiumInvoiceRequest'));

export const activateRequest = v.pipe(v.strictObject({
  /** The id `POST /premium/invoice` answered. */
  invoice_id: v.pipe(v.string('invoice_id must be a string'), v.minLength(1, 'invoice_id must not be empty'), v.maxLength(128, 'invoice_id must be at most 128 characters')),
}), v.title('PremiumActivateRequest'));

const timestamp = v.pipe(v.string(), v.isoTimestamp());

export const invoiceResponse = v.pipe(v.object({
  invoice_id: v.string(),
  plan: v.string(),
  days: v.number(),
  amount: v.string(),
  currency: v.string(),
  /** The processor's checkout page: where the user pays. */
  checkout_link: v.string(),
  expires_at: timestamp,
}), v.title('PremiumInvoiceResponse'));

const invoiceRecord = v.object({
  invoice_id: v.string(),
  plan: v.string(),
  days: v.number(),
  amount: v.string(),
  currency: v.string(),
  created_at: timestamp,
  expires_at: timestamp,
  /** When it was redeemed (premium extended by `days`); null while unused. */
  activated_at: v.nullable(timestamp),
});

export const statusResponse = v.pipe(v.object({
  /** premium_until lies in the future. */
  active: v.boolean(),
  premium_until: v.nullable(timestamp),
  /** The account's linked Nostr key (64 hex), the only key the relay recognises premium by; null when none is linked. */
  nostr_pubkey: v.nullable(v.string()),
  /** The relay admits the account as premium now: `active` AND a linked Nostr key. */
  relay_premium: v.boolean(),
  /** The caller's premium invoices, newest first (at most 50). */
  invoices: v.array(invoiceRecord),
}), v.title('PremiumStatusResponse'));

export type InvoiceResponse = v.InferOutput<typeof invoiceResponse>;
export type StatusResponse = v.InferOutput<typeof statusResponse>;
export type InvoiceRecord = v.InferOutput<typeof invoiceRecord>;

/**
 * An invoice's state as this server knows it (reads never ask the processor): `activated` it was
 * redeemed (premium extended); `settled_unactivated` an activation attempt heard the processor
 * say Settled but no extension was committed (the operator's stuck list); `pending` neither, and
 * still payable (`expires_at` ahead); `expired` neither, and `expires_at` passed.
 */
export const INVOICE_STATES = ['pending', 'expired', 'settled_unactivated', 'activated'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

export const adminInvoicesQuery = v.object({
  /** Left out: every state. */
  state: v.optional(v.picklist(INVOICE_STATES, `must be one of ${INVOICE_STATES.join(', ')}`)),
  /** `limit` and `after`, as every admin list (core's http/paging.ts). */
  ...pageQuery,
});
export const adminUserQuery = v.object(pageQuery);
export const adminUserParams = v.object({ user_id: v.pipe(v.string(), v.uuid('must be a UUID')) });

/** The user's invoice record (in its order) with whose it is, its state and when it was heard Settled. */
const { invoice_id, activated_at, ...invoiceTerms } = invoiceRecord.entries;
const adminInvoice = v.object({
  invoice_id,
  user_id: v.string(),
  state: v.picklist(INVOICE_STATES),
  ...invoiceTerms,
  /** When an activation attempt first heard the processor say Settled; null if none has. */
  settled_at: v.nullable(timestamp),
  activated_at,
});

const stateCounts = v.object({ pending: v.number(), expired: v.number(), settled_unactivated: v.number(), activated: v.number() });

export const adminInvoicesResponse = v.pipe(v.object({
  /** Newest first (created_at, then invoice_id). */
  invoices: v.array(adminInvoice),
  /** Pass as `after` for the next page; null on the last page. */
  next_after: nextAfterField,
}), v.title('PremiumAdminInvoices'));

export const adminUserResponse = v.pipe(v.object({
  user_id: v.string(),
  premium_until: v.nullable(timestamp),
  /** premium_until lies in the future. */
  active: v.boolean(),
  /** All of the user's invoices, by state. */
  invoice_counts: stateCounts,
  /** The days all activations added together. */
  days_activated: v.number(),
  /** Every activation, newest first (at most 500; `invoice_counts.activated` is the total). */
  activations: v.array(v.object({ invoice_id: v.string(), plan: v.string(), days: v.number(), activated_at: timestamp })),
  /** The user's invoices, newest first, a page at a time. */
  invoices: v.array(adminInvoice),
  /** Pass as `after` for the next page of `invoices`; null on the last page. */
  next_after: nextAfterField,
}), v.title('PremiumAdminUser'));

export type AdminInvoice = v.InferOutput<typeof adminInvoice>;
export type StateCounts = v.InferOutput<typeof stateCounts>;
export type AdminInvoicesResponse = v.InferOutput<typeof adminInvoicesResponse>;
export type AdminUserResponse = v.InferOutput<typeof adminUserResponse>;
