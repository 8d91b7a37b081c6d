import { AccountAdmin, AdminKeyStore, AdminService, AdminSessionStore, AuditChain, AuditVerifications, OperatorSettings, recordVerifications, SetupLatch, SetupService } from '../admin/index.js';
import { SessionRepository, SessionService, SignedActionVerifier, TokenService } from '../auth/index.js';
import { ChainRegistry } from '../chains/index.js';
import { ChallengeStore } from '../challenges/index.js';
import type { Clock } from '../clock/index.js';
import type { Settings } from '../config/index.js';
import { createIntegrity, createPeppers, type Peppers } from '../crypto/index.js';
import { Nip05Cache } from '../directory/index.js';
import { InviteAdmin, InviteStore } from '../gates/index.js';
import { HookRegistry } from '../hooks/index.js';
import { chooseRateLimitStore, type RateLimitStore } from '../http/index.js';
import { RegistrationGates } from '../identity/index.js';
import type { Logger } from '../logger/index.js';
import { instrumentUpstream, type MetricsRecorder } from '../metrics/index.js';
import { GreenfieldClient, type PaymentProcessor } from '../processor/index.js';
import { LeaseRepository, Scheduler } from '../scheduler/index.js';
import type { Database } from '../storage/index.js';
import { UserRepository } from '../users/index.js';

/** Core's own services: what holds a secret is built here, and only here. */
export interface CoreServices {
  readonly peppers: Peppers;
  readonly sessions: SessionService;
  readonly challenges: ChallengeStore;
  readonly signedActions: SignedActionVerifier;
  readonly scheduler: Scheduler;
  readonly rateLimitStore: RateLimitStore;
  readonly chains: ChainRegistry;
  readonly hooks: HookRegistry;
  readonly users: UserRepository;
  readonly registrationGates: RegistrationGates;
  readonly nip05Cache: Nip05Cache;
  readonly audit: AuditChain;
  readonly auditVerifications: AuditVerifications;
  readonly adminSessions: AdminSessionStore;
  readonly operatorSettings: OperatorSettings;
  readonly admin: AdminService;
  /** Accounts as the operator finds, views, suspends and reinstates them; its guard refuses suspended accounts' sessions. */
  readonly accounts: AccountAdmin;
  readonly latch: SetupLatch;
  readonly setup: SetupService;
  /** The BTCPay Greenfield client, timed as an upstream; null when none is configured. */
  readonly processor: PaymentProcessor | null;
  /** Its configuration check (never counted in the metrics); null when none is configured. */
  readonly greenfield: GreenfieldClient | null;
}

export interface CoreServiceInputs {
  settings: Settings;
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRecorder | null;
  /** The host's limiter store; otherwise memory or the database, as the settings say. */
  rateLimitStore?: RateLimitStore;
}

/** Builds core's services over an open database, in dependency order; nothing runs until asked. */
export function buildCoreServices({ settings, db, clock, logger, metrics, rateLimitStore }: CoreServiceInputs): CoreServices {
  const peppers = createPeppers(settings.pepperSecret, settings.ipHashSalt);
  const tokens = new TokenService({
    secret: settings.jwtSecret,
    issuer: settings.publicApiUrl,
    accessTtlSec: settings.accessTokenTtlSec,
    refreshTtlSec: settings.refreshTokenTtlSec,
    clock,
  });
  const sessions = new SessionService(db, new SessionRepository(db), tokens, peppers, clock);
  const challenges = new ChallengeStore(db, clock, settings.challengeTtlSec);
  const signedActions = new SignedActionVerifier(settings.publicApiUrl, challenges, clock);
  const scheduler = new Scheduler(new LeaseRepository(db), clock, logger.child({ component: 'scheduler' }), metrics ?? undefined);
  const users = new UserRepository(db, clock);
  const hooks = new HookRegistry();
  // Core's own section of every data export (the account, keys, sessions, login events).
  hooks.onUserExport('core', (userId) => users.exportAccount(userId));
  const integrity = createIntegrity(settings.adminKeyIntegritySecret);
  const adminLogger = logger.child({ component: 'admin' });
  const adminKeys = new AdminKeyStore(db, integrity, clock, adminLogger);
  const auditVerifications = new AuditVerifications(clock);
  const audit = recordVerifications(new AuditChain(db, integrity, clock), auditVerifications);
  const latch = new SetupLatch(db, integrity, clock);
  const adminSessions = new AdminSessionStore(db, adminKeys, clock, settings.adminSessionSecret, settings.adminSessionTtlSec);
  const operatorSettings = new OperatorSettings(db, integrity, clock, () => settings, adminLogger);
  const nip05Cache = new Nip05Cache(() => settings.nip05CacheTtlSec * 1000, clock);
  const accounts = new AccountAdmin({ db, clock, sessions, audit, hooks, nip05Cache, users });
  // Core's guard first: a suspended account opens no session, whatever a plugin's guard would say.
  sessions.addGuard((userId, trx) => accounts.refuseSuspended(userId, trx));
  const greenfield =
    settings.btcpayUrl !== undefined && settings.btcpayStoreId !== undefined && settings.btcpayApiKey !== undefined
      ? new GreenfieldClient({ url: settings.btcpayUrl, storeId: settings.btcpayStoreId, apiKey: settings.btcpayApiKey, timeoutMs: settings.upstreamTimeoutMs })
      : null;
  return {
    peppers,
    sessions,
    challenges,
    signedActions,
    scheduler,
    rateLimitStore: rateLimitStore ?? chooseRateLimitStore(settings, db, scheduler, clock),
    chains: new ChainRegistry(),
    hooks,
    users,
    registrationGates: new RegistrationGates(),
    nip05Cache,
    audit,
    auditVerifications,
    adminSessions,
    operatorSettings,
    admin: new AdminService({ db, keys: adminKeys, sessions: adminSessions, latch, audit, overlay: operatorSettings, challenges, signedActions }),
    accounts,
    latch,
    setup: new SetupService({ db, latch, keys: adminKeys, sessions: adminSessions, audit, invites: new InviteAdmin(db, clock, new InviteStore(db, clock), audit) }),
    processor: greenfield === null ? null : instrumentUpstream<PaymentProcessor>(greenfield, { chain: 'none', upstream: 'btcpay' }, metrics),
    greenfield,
  };
}
