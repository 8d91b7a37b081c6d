import { defineErrors } from '@wallet/backend-core';

/**
 * Premium's refusals (spec › Premium: 400 for premium off, an unknown plan, an unknown, unpaid or
 * used invoice; and for an account without a linked Nostr key, which the relay could not admit). Another user's invoice is `premium_invoice_unknown`, exactly like an invoice
 * that does not exist, so invoice ids cannot be probed for their owners. A processor outage is
 * core's 503 `processor_unavailable`. `premium_user_not_found` is the admin history of an unknown user.
 */
export const premiumErrors = defineErrors({
  premium_off: { status: 400, message: 'Premium is not enabled on this server.' },
  premium_plan_unknown: { status: 400, message: 'No premium plan has this id.' },
  premium_nostr_not_linked: { status: 400, message: 'Link a Nostr key to this account first: the relay recognises premium by that key only.' },
  premium_invoice_limit: { status: 400, message: 'Too many unpaid premium invoices; pay one or let them expire first.' },
  premium_invoice_unknown: { status: 400, message: 'No such premium invoice for this caller.' },
  premium_invoice_unpaid: { status: 400, message: 'The invoice is not settled by the payment processor.' },
  premium_invoice_used: { status: 400, message: 'The invoice has already been used.' },
  premium_user_not_found: { status: 404, message: 'No user has this id.' },
});
