export { createRelayAdmission, ADMISSION_DEFAULTS, type RelayAdmission, type RelayAdmissionOptions, type AdmissionContext } from './admission.js';
export { decide, ACCEPT, REFUSALS, FREE_KINDS, GIFT_WRAP_KIND, DM_RELAY_LIST_KIND, MAX_GIFT_WRAP_RECIPIENTS, type AdmissionDecision, type AuthorStanding } from './policy.js';
export { eventShapeProblem, type NostrEvent } from './event.js';
