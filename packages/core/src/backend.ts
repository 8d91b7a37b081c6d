import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { SessionRepository, SessionService, SignedActionVerifier, TokenService } from './auth/index.js';
import { CapabilityRegistry } from './capabilities/index.js';
import { ChainRegistry } from './chains/index.js';
import { ChallengeStore } from './challenges/index.js';
import { systemClock, type Clock } from './clock/index.js';
import { validateSettings, withoutSecrets, type Settings, type SettingsInput } from './config/index.js';
import { createIntegrity, createPeppers } from './crypto/index.js';
import { BootError, coreErrors } from './errors/index.js';
import { Nip05Cache } from './directory/index.js';
import { HookRegistry } from './hooks/index.js';
import { RegistrationGates } from './identity/index.js';
import {
  buildOpenApiDocument,
  chooseRateLimitStore,
  createClientIpResolver,
  fullPath,
  OPENAPI_VERSION,
  directListener,
  dispatchThroughTable,
  requestBoundary,
  routeHandler,
  routeMiddleware,
  RouteTable,
  toRouterPath,
  type RateLimitStore,
  type RouteKit,
} from './http/index.js';
import { createJsonLogger, type Logger } from './logger/index.js';
import { createPrometheusMetrics, instrumentUpstream, noMetrics, parseListenAddress, startMetricsListener, stateGaugeProblems, STATE_READ_BUDGET_MS, type MetricsListener, type PrometheusMetrics } from './metrics/index.js';
import { chainsView, challengesView, checkPluginSet, peppersView, processorView, RouteRegistry, sessionsView, signedActionsView, type PaymentProcessor, type PluginContext, type PublicSettings, type WalletPlugin } from './plugin/index.js';
import { GreenfieldClient, type ProcessorCheck } from './processor/index.js';
import { LeaseRepository, Scheduler } from './scheduler/index.js';
import { UserRepository } from './users/index.js';
import { AdminKeyStore, AdminService, AdminSessionStore, AuditChain, AuditVerifications, recordVerifications, OperatorSettings, SetupLatch, SetupService } from './admin/index.js';
import { connect, createDatabase, ledgerIdOf, poolUse, runMigrations, type Database } from './storage/index.js';
// Core's own features are plugins; their factories are imported from each feature's plugin module,
// not its index, so a feature's public face never re-exports what imports the contract.
import { adminPlugin } from './admin/plugin.js';
import { sessionsPlugin } from './auth/plugin.js';
import { chainsPlugin } from './chains/plugin.js';
import { challengesPlugin } from './challenges/plugin.js';
import { directoryPlugin } from './directory/plugin.js';
import { gatesPlugin } from './gates/plugin.js';
import { identityPlugin } from './identity/plugin.js';
import { coreMetricsPlugin } from './metrics/plugin.js';
import { systemPlugin } from './system/plugin.js';

/** Settings plus what cannot come from the environment: plugins and injected services. */
export interface WalletBackendConfig extends SettingsInput {
  plugins?: WalletPlugin[];
  /** Defaults to the system clock; tests pass a controllable one. */
  clock?: Clock;
  /** Defaults to JSON lines on stdout at `info`. */
  logger?: Logger;
  /** The unauthenticated limiter's store; in-process memory by default. */
  rateLimitStore?: RateLimitStore;
}

export interface StartOptions {
  /** Listen on this port (0: any free port). Without it only the scheduler starts. */
  port?: number;
  host?: string;
}

export interface StartResult {
  /** The API listener's base URL, when `start()` was given a port. */
  url?: string;
  /** The metrics listener's `/metrics` URL, when METRICS_LISTEN is set. */
  metricsUrl?: string;
}

/** The Prometheus exposition, for a host that serves it on a listener of its own. */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

export interface WalletBackend {
  /** A Koa app serving every route, with JSON 404/405 answers. */
  readonly app: Koa;
  /** Every route; each carries its own error boundary, so `host.use(router.routes())` embeds the API. */
  readonly router: Router;
  /** A `(req, res)` handler for node:http, Express and friends. */
  callback(): ReturnType<Koa['callback']>;
  /** Runs core's then each plugin's pending migrations; returns the ids applied. */
  migrate(): Promise<string[]>;
  /** The ledger ids of every migration this backend knows (core's and each plugin's), whatever the database holds. */
  expectedMigrations(): string[];
  /** Starts the scheduler (unless disabled) and, given a port, an HTTP server. */
  start(options?: StartOptions): Promise<StartResult>;
  /** Stops accepting requests, drains those in flight, stops the scheduler and closes the pool. */
  close(): Promise<void>;
  /** The OpenAPI 3.1 document served at /api/v1/openapi.json. */
  openapi(): Record<string, unknown>;
  readonly settings: Readonly<PublicSettings>;
  readonly db: Database;
  readonly sessions: SessionService;
  readonly challenges: ChallengeStore;
  readonly scheduler: Scheduler;
  readonly chains: ChainRegistry;
  /** The operator shell's commands: setup latch, first admin, admin keys, audit verification. */
  readonly setup: SetupService;
  readonly logger: Logger;
  /** The Prometheus series when METRICS_LISTEN is set (served there by `start()`); null when metrics are off. */
  readonly metrics: MetricsExposition | null;
  /**
   * Asks the configured BTCPay Server whether its URL, store and key can create and read
   * invoices (one line per problem, never the key); null when no processor is configured. The
   * calls are not counted in the metrics.
   */
  checkProcessor(): Promise<ProcessorCheck | null>;
}

const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Builds a backend: validates the whole configuration (refusing to boot with every problem
 * listed), sets up core's features and the plugins through one contract, and mounts the
 * routes. Nothing listens and nothing is migrated until `migrate()` / `start()`.
 *
 * @example
 * import http from 'node:http';
 * import { createWalletBackend } from '@wallet/backend-core';
 *
 * const env = (name: string) => process.env[name] ?? '';
 * const backend = await createWalletBackend({
 *   publicApiUrl: 'https://wallet.example.com',
 *   databaseUrl: env('DATABASE_URL'),
 *   jwtSecret: env('JWT_SECRET'),
 *   pepperSecret: env('PEPPER_SECRET'),
 *   ipHashSalt: env('IP_HASH_SALT'),
 *   adminKeyIntegritySecret: env('ADMIN_KEY_INTEGRITY_SECRET'),
 *   adminSessionSecret: env('ADMIN_SESSION_SECRET'),
 * });
 * await backend.migrate();
 * await backend.start(); // the scheduler; start({ port }) would listen too
 * http.createServer(backend.callback()).listen(8080);
 */
export async function createWalletBackend(config: WalletBackendConfig): Promise<WalletBackend> {
  const { plugins = [], clock = systemClock, logger = createJsonLogger(), rateLimitStore, ...input } = config;
  const verdict = validateSettings(input);
  const given = (verdict.settings ?? input) as Partial<Settings>;

  const capabilityRegistry = new CapabilityRegistry();
  const routeRegistry = new RouteRegistry();
  let openapiDocument: Record<string, unknown> | undefined;
  const openapi = () => (openapiDocument ??= buildOpenApiDocument(routeRegistry.routes, {
    title: 'Wallet Backend API',
    version: OPENAPI_VERSION,
    description: 'Non-custodial multi-chain wallet backend.',
    serverUrl: given.publicApiUrl,
  }));
  const gates = new RegistrationGates();
  const nip05Cache = new Nip05Cache(() => (late.settings?.nip05CacheTtlSec ?? 0) * 1000, clock);
  // Filled in once the settings are known to be valid, before any plugin's setup runs.
  const auditVerifications = new AuditVerifications(clock);
  const late: { settings?: Settings; processor: PaymentProcessor | null; admin?: AdminService; overlay?: OperatorSettings; metrics?: PrometheusMetrics } = { processor: null };
  const expectedMigrations = () => allPlugins.flatMap((plugin) => (plugin.migrations ?? []).map((migration) => ledgerIdOf(plugin.name, migration)));
  const corePlugins: WalletPlugin[] = [
    systemPlugin({
      openapi,
      capabilities: () => capabilityRegistry.assemble(),
      expectedMigrations,
    }),
    sessionsPlugin(),
    challengesPlugin(),
    identityPlugin({
      gates,
      nostrKeyLinked: (executor) => nip05Cache.forget(executor),
      restoreGovernor: async () => {
        const restore = await late.overlay!.effective('restore');
        return { ipThreshold: restore.ip_threshold!, failThreshold: restore.fail_threshold!, windowSec: restore.window_sec! };
      },
      loginEventRetentionDays: async () => (await late.overlay!.effective('retention')).login_event_retention_days!,
    }),
    gatesPlugin({ settings: () => late.settings!, processor: () => late.processor }),
    directoryPlugin({ nip05Cache }),
    chainsPlugin({ settings: () => late.settings!, metrics: () => late.metrics?.recorder ?? null, registry: () => chains }),
    coreMetricsPlugin({ verifications: auditVerifications }),
    adminPlugin({ service: () => late.admin!, overlay: () => late.overlay! }),
  ];
  const allPlugins = [...corePlugins, ...plugins];

  const early = [...verdict.violations, ...checkPluginSet(allPlugins, given)];
  if (!verdict.ok || early.length > 0) throw new BootError(early);
  const settings = verdict.settings;
  late.settings = settings;
  const metricsAddress = settings.metricsListen === undefined ? null : parseListenAddress(settings.metricsListen);
  // The pool is read only at scrape time, by when it exists.
  const metrics = metricsAddress === null ? null : createPrometheusMetrics({ pool: () => poolUse(connection.knex), apiVersion: OPENAPI_VERSION, clock, logger: logger.child({ component: 'metrics' }) });
  late.metrics = metrics ?? undefined;
  const recorder = metrics?.recorder ?? null;
  let greenfield: GreenfieldClient | null = null;
  if (settings.btcpayUrl !== undefined && settings.btcpayStoreId !== undefined && settings.btcpayApiKey !== undefined) {
    const processor = (greenfield = new GreenfieldClient({ url: settings.btcpayUrl, storeId: settings.btcpayStoreId, apiKey: settings.btcpayApiKey, timeoutMs: settings.upstreamTimeoutMs }));
    late.processor = instrumentUpstream(processor, { chain: 'none', upstream: 'btcpay' }, recorder);
  }
  // Everything that can refuse the configuration happens before the pool exists.
  const resolveClientIp = createClientIpResolver(settings.trustedProxies);

  const connection = connect(settings.databaseUrl, settings.databasePoolMax, logger.child({ component: 'database' }));
  const db = createDatabase(connection.knex, connection.dialect);
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
  const scheduler = new Scheduler(new LeaseRepository(db), clock, logger.child({ component: 'scheduler' }), recorder ?? undefined);
  const limiterStore = rateLimitStore ?? chooseRateLimitStore(settings, db, scheduler, clock);
  const chains = new ChainRegistry();
  const hooks = new HookRegistry();
  const users = new UserRepository(db, clock);
  // Core's own section of every data export (the account, keys, sessions, login events).
  hooks.onUserExport('core', (userId) => users.exportAccount(userId));
  const integrity = createIntegrity(settings.adminKeyIntegritySecret);
  const adminLogger = logger.child({ component: 'admin' });
  const adminKeys = new AdminKeyStore(db, integrity, clock, adminLogger);
  const audit = recordVerifications(new AuditChain(db, integrity, clock), auditVerifications);
  const latch = new SetupLatch(db, integrity, clock);
  const adminSessions = new AdminSessionStore(db, adminKeys, clock, settings.adminSessionSecret, settings.adminSessionTtlSec);
  const overlay = new OperatorSettings(db, integrity, clock, () => settings, adminLogger);
  late.overlay = overlay;
  late.admin = new AdminService({ db, keys: adminKeys, sessions: adminSessions, latch, audit, overlay, challenges, signedActions });
  const setup = new SetupService({ db, latch, keys: adminKeys, sessions: adminSessions, audit });
  const visibleSettings = withoutSecrets(settings);
  // Plugins get these views, never the services themselves (which hold keys).
  const pluginSessions = sessionsView(sessions);
  const pluginChallenges = challengesView(challenges);
  const pluginSignedActions = signedActionsView(signedActions);
  const pluginCrypto = peppersView(peppers);
  const pluginChains = chainsView(chains);
  const pluginProcessor = late.processor === null ? null : processorView(late.processor);

  const closers: Array<{ owner: string; handler: () => void | Promise<void> }> = [];
  const runClosers = async () => {
    for (const { owner, handler } of closers.splice(0).reverse()) {
      try {
        await handler();
      } catch (err) {
        logger.error('plugin close handler failed', { plugin: owner, error: (err as Error).message });
      }
    }
  };
  const problems: string[] = [];
  // Checked with metrics off too, so turning them on never reveals a clash.
  const stateGaugeNames = new Set<string>();
  try {
    for (const plugin of allPlugins) {
      const owner = plugin.name;
      const context: PluginContext = {
        name: owner,
        settings: visibleSettings,
        db,
        routes: { add: (route) => routeRegistry.add(owner, route) },
        auth: { challenges: pluginChallenges, sessions: pluginSessions, signedActions: pluginSignedActions, addSessionGuard: (guard) => sessions.addGuard(guard) },
        registration: {
          addGate: (gate) => {
            try {
              gates.add(gate);
            } catch (err) {
              problems.push(`${owner}: ${(err as Error).message}`);
            }
          },
        },
        users: {
          exists: (userId, executor) => users.exists(userId, executor),
          idByUsername: (username, executor) => users.idByUsername(username, executor),
          nostrPubkey: (userId, executor) => users.nostrPubkey(userId, executor),
          premiumUntil: (userId, executor) => users.premiumUntil(userId, executor),
          // Premium's metrics gauge: cancelled on Postgres once it outlasts a scrape's budget.
          countPremiumActive: (now) => users.countPremiumActive(now, { timeoutMs: STATE_READ_BUDGET_MS }),
          lock: (trx, userId) => users.lock(trx, userId),
          extendPremium: (trx, userId, days) => users.extendPremium(trx, userId, days),
          idByNostrPubkey: (pubkey, executor) => users.idByNostrPubkey(pubkey, executor),
          erase: async (trx, userId, options) => {
            const erased = await users.erase(trx, userId, options);
            nip05Cache.forget(trx);
            return erased;
          },
        },
        audit: { append: (trx, entry, options) => audit.append(trx, entry, options), verify: () => audit.verify(), redact: (trx, userId) => audit.redact(trx, userId) },
        chains: pluginChains,
        processor: pluginProcessor,
        scheduler: {
          every: (name, intervalMs, task, options) => {
            try {
              scheduler.every(`${owner}.${name}`, intervalMs, task, options);
            } catch (err) {
              problems.push(`${owner}: ${(err as Error).message}`);
            }
          },
        },
        capabilities: { contribute: (contributor) => capabilityRegistry.contribute(owner, contributor) },
        metrics: {
          gauge: (gauge) => {
            const invalid = stateGaugeProblems(gauge);
            if (invalid.length === 0 && stateGaugeNames.has(gauge.name)) invalid.push(`metrics gauge "${gauge.name}" is registered twice`);
            if (invalid.length > 0) {
              problems.push(...invalid.map((problem) => `${owner}: ${problem}`));
              return;
            }
            stateGaugeNames.add(gauge.name);
            metrics?.addStateGauge(gauge);
          },
        },
        hooks: {
          onUserErasure: (handler) => hooks.onUserErasure(owner, handler),
          onUserExport: (handler) => hooks.onUserExport(owner, handler),
          runUserErasure: (trx, userId) => hooks.runUserErasure(trx, userId),
          collectUserExport: (userId) => hooks.collectUserExport(userId),
        },
        onClose: (handler) => closers.push({ owner, handler }),
        crypto: pluginCrypto,
        clock,
        logger: logger.child({ plugin: owner }),
      };
      try {
        await plugin.setup(context);
      } catch (err) {
        problems.push(`${owner}: setup failed: ${(err as Error).message}`);
      }
    }
    problems.push(...routeRegistry.problems(), ...capabilityRegistry.problems());
    if (problems.length > 0) throw new BootError(problems);
  } catch (err) {
    await runClosers();
    await connection.knex.destroy();
    throw err;
  }

  const kit: RouteKit = {
    logger,
    metrics: recorder ?? noMetrics,
    clock,
    resolveClientIp,
    bodyLimitBytes: settings.bodyLimitBytes,
    limiter: {
      store: limiterStore,
      windowMs: settings.rateLimitWindowSec * 1000,
      max: settings.rateLimitMax,
      keyOf: (ip) => `ip:${peppers.hashIp(ip)}`,
    },
    authenticateBearer: (authorization) => sessions.authenticate(authorization),
    authenticateAdmin: (authorization) => adminSessions.authenticate(authorization),
  };
  const router = new Router();
  const served = routeRegistry.routes.map((route) => ({ method: route.method, path: fullPath(route), handler: routeHandler(route, kit), route }));
  for (const { route, path, handler } of served) {
    router.register(toRouterPath(path), [route.method], routeMiddleware(route, kit, handler));
  }
  const app = new Koa({ proxy: false });
  app.silent = true;
  const table = new RouteTable(served);
  const boundaryLayer = requestBoundary(logger, kit.metrics);
  const tableLayer = dispatchThroughTable(table);
  app.use(boundaryLayer);
  app.use(tableLayer);
  /**
   * The listener of `start()` and `callback()`, made when asked for (as Koa composes `app`'s
   * middleware then): declared routes served directly while `app` begins with the backend's
   * own two layers; a host that put middleware in front of them (the reference server's CORS)
   * gets Koa for every request, so that middleware sees them all.
   */
  const listener = () => {
    const koa = app.callback();
    return app.middleware[0] === boundaryLayer && app.middleware[1] === tableLayer ? directListener(table, koa, logger, kit.metrics) : koa;
  };
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => coreErrors.create.method_not_allowed(),
      notImplemented: () => coreErrors.create.method_not_allowed(),
    }),
  );

  let server: Server | undefined;
  let metricsListener: MetricsListener | undefined;
  let closing: Promise<void> | undefined;

  const drain = (listening: Server) =>
    new Promise<void>((resolve) => {
      const force = setTimeout(() => listening.closeAllConnections(), DRAIN_TIMEOUT_MS);
      force.unref();
      listening.close(() => {
        clearTimeout(force);
        resolve();
      });
      listening.closeIdleConnections();
    });

  return {
    app,
    router,
    callback: listener,
    migrate: () =>
      runMigrations(db.knex, db.dialect, allPlugins.map((plugin) => ({ owner: plugin.name, migrations: plugin.migrations ?? [] })), clock, logger),
    expectedMigrations,
    async start(options = {}) {
      await checkSetupLatch(latch);
      if (metrics !== null && metricsAddress !== null && metricsListener === undefined) {
        metricsListener = await startMetricsListener(metrics, metricsAddress);
      }
      const metricsUrl = metricsListener === undefined ? {} : { metricsUrl: metricsListener.url };
      if (settings.schedulerEnabled) scheduler.start();
      if (options.port === undefined) return metricsUrl;
      const listening = createServer(listener());
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
      });
      const address = listening.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return { url: `http://${host}:${address.port}`, ...metricsUrl };
    },
    close() {
      closing ??= (async () => {
        if (server) await drain(server);
        await scheduler.stop();
        // Last of the listeners, so a scrape during the drain still answers.
        await metricsListener?.close();
        await runClosers();
        await db.knex.destroy();
      })();
      return closing;
    },
    openapi,
    settings: visibleSettings,
    db,
    sessions,
    challenges,
    scheduler,
    chains,
    setup,
    logger,
    metrics: metrics === null ? null : { contentType: metrics.contentType, render: () => metrics.render() },
    checkProcessor: async () => (greenfield === null ? null : greenfield.check()),
  };
}

/**
 * Start-up adoption of the setup latch, and its integrity check: a latch whose seal fails
 * (an edited `server_config`, or a changed ADMIN_KEY_INTEGRITY_SECRET) refuses the start.
 */
async function checkSetupLatch(latch: SetupLatch): Promise<void> {
  let state;
  try {
    state = await latch.adopt();
  } catch (err) {
    throw new BootError([`the setup latch cannot be read (${(err as Error).message}); run the migrations first`]);
  }
  if (state === 'tampered') {
    throw new BootError(['server_config failed its integrity check: the setup latch was edited or ADMIN_KEY_INTEGRITY_SECRET changed; refusing to start']);
  }
}
