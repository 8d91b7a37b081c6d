/**
 * @wallet/backend-core: createWalletBackend, the plugin contract and the pieces plugins build on.
 * @module
 */
export { createWalletBackend, type WalletBackend, type WalletBackendConfig, type StartOptions, type StartResult, type MetricsExposition } from './backend.js';
export { requestDrain, type RequestDrain, type RequestListener } from './http/index.js';
export { describePlugin, type PluginSurface, type WalletPlugin, type PluginDeclaration, type PluginContext, type PluginMigration, type PublicSettings, type PublicSettingsInput, type ChainAccess, type UtxoChainReader, type UtxoReceipt, type UtxoSpend, type GrinChainReader, type CryptonoteChainReader, type PaymentProcessor } from './plugin/index.js';
export { validateSettings, envNameOf, settingsSchema, SECRET_SETTINGS, withoutSecrets, readSecretFiles, type SecretFiles, type SecretSetting, type Settings, type SettingsInput, type SettingsVerdict } from './config/index.js';
export { BootError, WalletError, defineErrors, coreErrors, UpstreamFailure, type ErrorSpec, type ErrorCatalogue, type ErrorDetail } from './errors/index.js';
export {
  defineRoute,
  MemoryRateLimitStore,
  createClientIpResolver,
  API_PREFIX,
  OPENAPI_VERSION,
  type RouteDefinition,
  type RouteInput,
  type AnyRoute,
  type AuthKind,
  type HttpMethod,
  type Platform,
  type UserAuth,
  type AdminAuth,
  type RateLimitStore,
  safeIntegerText,
  pageCursor,
  pageLimit,
  pageQuery,
  nextAfterField,
  nextAfter,
  encodeCursor,
  decodeCursor,
  type PageCursor,
} from './http/index.js';
export { systemClock, type Clock } from './clock/index.js';
export { createJsonLogger, silentLogger, type Logger, type LogLevel, type LogFields } from './logger/index.js';
export {
  connect,
  type ConnectOptions,
  createDatabase,
  consumeOne,
  transitionOne,
  transitionOneAndInsert,
  insertOrNull,
  deleteInBatches,
  PreparedStatement,
  PreparedTransitionThenInsert,
  type DeleteInBatchesOptions,
  isUniqueViolation,
  uniqueViolationOf,
  databaseFailureOf,
  type DatabaseFailure,
  isViolationOf,
  readTime,
  readOptionalTime,
  readBool,
  readJson,
  whereAnyOf,
  epochMsOf,
  appliedMigrations,
  coreMigrations,
  ledgerIdOf,
  parseDatabaseUrl,
  LEDGER_TABLE,
  type Database,
  type Dialect,
  type Executor,
  type Where,
  type UniqueViolation,
  type Knex,
  type Migration,
} from './storage/index.js';
export type { SessionService, Sessions, AuthResponse, SignedActionVerifier, SignedAction, SignedActionInput, RequestDescriptor } from './auth/index.js';
export { requestDescriptorHash } from './auth/index.js';
export { identityErrors, extensionLoginMessage, keyRotationMessage, websiteChallengeMessage, SIGNED_TIMESTAMP_SKEW_SEC, NOSTR_LINK_PURPOSE, NOSTR_REGISTER_PURPOSE, WEBSITE_LOGIN_PURPOSE, type RegistrationGate, type RegistrationAttempt, type RegistrationIdentity, type GateInputs } from './identity/index.js';
export { directoryErrors, RESERVED_USERNAMES, type UserKeyInfo } from './directory/index.js';
export { gateErrors, InviteStore } from './gates/index.js';
export { chainErrors } from './chains/index.js';
export { processorErrors, GreenfieldClient, missingInvoicePermissions, type ProcessorInvoice, type InvoiceStatus, type CreateInvoiceInput, type ProcessorCheck, type ProcessorFailureReason } from './processor/index.js';
export type { ChallengeStore, IssuedChallenge } from './challenges/index.js';
export { ASSETS, isAsset, isReceivingAddress, type AddressAsset, type Asset, type ChainRegistry, type HeightSource, type Heights, type ChainNetwork } from './chains/index.js';
export type { Scheduler, Task, TaskContext, TaskOptions } from './scheduler/index.js';
export { cancellingTimeout, STATE_READ_BUDGET_MS, type StateGauge, type StateSample } from './metrics/index.js';
export type { UserErasureHandler, UserExportHandler, UserSummaryHandler } from './hooks/index.js';
export type { Peppers, NostrEvent } from './crypto/index.js';
export {
  adminErrors,
  setupErrors,
  ADMIN_LOGIN_PURPOSE,
  ADMIN_LOGIN_PATH,
  ADMIN_SCOPES,
  SETTING_SECTIONS,
  APPLY_MODE,
  type SetupService,
  type SetupState,
  type AdminKey,
  type AdminScope,
  type AuditEntry,
  type AuditInput,
  type AuditActorKind,
  type AuditVerdict,
  type SettingSection,
} from './admin/index.js';
export { parseNostrPubkey } from './crypto/index.js';
