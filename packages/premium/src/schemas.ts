import * as v from 'valibot';

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
  /** When it was activated; null while unused. */
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
