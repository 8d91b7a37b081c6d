import { defineErrors } from '../errors/index.js';

/** Registration-gate errors. The invite message is one literal for not-found, used, expired and revoked. */
export const gateErrors = defineErrors({
  pow_required: { status: 400, message: 'A proof-of-work solution (altcha_solution) is required to register.' },
  pow_invalid: { status: 400, message: 'The proof-of-work solution is invalid, expired or already used.' },
  invite_invalid: { status: 400, message: 'Invalid invite code' },
  invite_not_found: { status: 404, message: 'No such invite.' },
  invite_not_revocable: { status: 409, message: 'Only an unused, unexpired, unrevoked invite can be revoked.' },
  invite_expiry_past: { status: 400, message: 'expires_at must be in the future.' },
  payment_required: { status: 400, message: 'Registration requires a settled payment (payment_invoice_id).' },
  payment_invalid: { status: 400, message: 'The payment invoice is unknown, unpaid, already used or for another wallet.' },
  payment_gate_off: { status: 400, message: 'Registration does not require payment on this server.' },
  already_registered: { status: 400, message: 'This wallet is already registered.' },
});
