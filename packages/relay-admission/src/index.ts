export { createRelayAdmission, ADMISSION_DEFAULTS, type RelayAdmission, type RelayAdmissionOptions, type AdmissionContext } from './admission.js';
export { decide, ACCEPT, REFUSALS, FREE_KINDS, GIFT_WRAP_KIND, DM_RELAY_LIST_KIND, MAX_GIFT_WRAP_RECIPIENTS, type AdmissionDecision, type AuthorStanding } from './policy.js';
export { eventShapeProblem, type NostrEvent } from './event.js';
export { runStrfryPlugin, STRFRY_DEFAULT_TIMEOUT_MS, type StrfryAnswer, type StrfryPluginOptions } from './strfry.js';
export { startNauthzServer, loadNauthz, eventFromWire, NAUTHZ_PROTO, type NauthzServer, type NauthzServerOptions, type EventReply } from './grpc.js';
