export { adminErrors } from './errors.js';
export { AdminKeyStore, ADMIN_SCOPES, type AdminKey, type AdminScope } from './keys.js';
export { AuditChain, type AuditEntry, type AuditInput, type AuditActorKind, type AuditVerdict } from './audit.js';
export { SetupLatch, type SetupState } from './latch.js';
export { OperatorSettings, SETTING_SECTIONS, APPLY_MODE, isSettingSection, type SettingSection, type SectionValues, type SectionView } from './overlay.js';
export { AdminSessionStore } from './sessions.js';
export { AdminService, ADMIN_LOGIN_PURPOSE, ADMIN_LOGIN_PATH, toKeyView, type AdminKeyView } from './service.js';
export { SetupService, setupErrors } from './setup.js';
export { AuditVerifications, recordVerifications } from './verifications.js';
