export { gateErrors } from './errors.js';
export { ProofOfWork } from './pow.js';
export { InviteStore, INVITE_STATES, type InviteState, type InviteView, type MintedInvite } from './invites.js';
export { InviteAdmin, type InviteMinter, type MintRequest } from './invites-admin.js';
export { RegistrationPayments, type PaymentTerms, type RegistrationInvoice } from './payment.js';
