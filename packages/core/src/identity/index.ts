export { identityErrors } from './errors.js';
export { RegistrationGates, type RegistrationGate, type RegistrationAttempt, type RegistrationIdentity, type GateInputs } from './gates.js';
export { extensionLoginMessage, keyRotationMessage, nostrMergeMessage, websiteChallengeMessage, SIGNED_TIMESTAMP_SKEW_SEC } from './messages.js';
export { NOSTR_LINK_PURPOSE, NOSTR_REGISTER_PURPOSE } from './nostr-service.js';
export { WEBSITE_LOGIN_PURPOSE, parseOrigin } from './website-service.js';
export { LoginEventLog } from './login-events.js';
export { RestoreCheckService } from './restore-service.js';
export { SpentProofStore } from './spent-proofs.js';
export { IdentityRepository, type IdentityRow } from './identity-repo.js';
