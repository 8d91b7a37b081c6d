export { gateErrors } from './errors.js';
export { ProofOfWork } from './pow.js';
export { InviteStore } from './invites.js';
export { RegistrationPayments, type PaymentTerms, type RegistrationInvoice } from './payment.js';
