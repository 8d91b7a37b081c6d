import type Router from '@koa/router';
import type Koa from 'koa';
import type { SessionService } from './auth/index.js';
import type { ChainRegistry } from './chains/index.js';
import type { ChallengeStore } from './challenges/index.js';
import { systemClock, type Clock } from './clock/index.js';
import { withoutSecrets, type SettingsInput } from './config/index.js';
import { buildCoreServices, checkConfiguration, coreExtensions, coreFeatures, lifecycle, mountRoutes, PluginAssembly, type StartOptions, type StartResult } from './composition/index.js';
import { buildOpenApiDocument, createClientIpResolver, OPENAPI_VERSION, type RateLimitStore } from './http/index.js';
import { createJsonLogger, type Logger } from './logger/index.js';
import { createPrometheusMetrics, noMetrics, parseListenAddress } from './metrics/index.js';
import type { PublicSettings, WalletPlugin } from './plugin/index.js';
import type { ProcessorCheck } from './processor/index.js';
import type { Scheduler } from './scheduler/index.js';
import type { SetupService } from './admin/index.js';
import { connect, createDatabase, ledgerIdOf, poolUse, runMigrations, type Database } from './storage/index.js';

export type { StartOptions, StartResult };

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

  // Settings: core's rules and every plugin's, all refusals at once, before anything opens.
  const features = coreFeatures();
  const declarations = [...features, ...plugins];
  const settings = checkConfiguration(input, declarations);
  const metricsAddress = settings.metricsListen === undefined ? null : parseListenAddress(settings.metricsListen);
  const resolveClientIp = createClientIpResolver(settings.trustedProxies);
  const visibleSettings = withoutSecrets(settings);

  // Storage, and the metrics that read its pool at scrape time.
  const connection = connect(settings.databaseUrl, settings.databasePoolMax, logger.child({ component: 'database' }));
  const db = createDatabase(connection.knex, connection.dialect);
  const metrics = metricsAddress === null ? null : createPrometheusMetrics({ pool: () => poolUse(db.knex), apiVersion: OPENAPI_VERSION, clock, logger: logger.child({ component: 'metrics' }) });
  const recorder = metrics?.recorder ?? null;

  // Services: core's own, holding the secrets; plugins get views of them.
  const services = buildCoreServices({ settings, db, clock, logger, metrics: recorder, rateLimitStore });

  // Plugins: core's features, then the host's, through one context.
  const assembly = new PluginAssembly({ settings: visibleSettings, db, services, metrics, clock, logger, declarations });
  const errorCodes = () => new Map(declarations.flatMap((plugin) => (plugin.errors ?? []).flatMap((catalogue) => Object.entries(catalogue.specs).map(([code, spec]) => [code, spec.status] as const))));
  let openapiDocument: Record<string, unknown> | undefined;
  const openapi = () =>
    (openapiDocument ??= buildOpenApiDocument(assembly.routes.routes, {
      title: 'Wallet Backend API',
      version: OPENAPI_VERSION,
      description: 'Non-custodial multi-chain wallet backend.',
      serverUrl: settings.publicApiUrl,
      errorCodes: errorCodes(),
    }));
  let adminDocument: Record<string, unknown> | undefined;
  const adminOpenapi = () =>
    (adminDocument ??= buildOpenApiDocument(
      assembly.routes.routes.filter((route) => !route.root && route.path.startsWith('/admin/')).map((route) => ({ ...route, openapi: 'public' as const })),
      {
        title: 'Wallet Backend admin API',
        version: OPENAPI_VERSION,
        description: 'The operator API: admin sessions only (docs/admin.md).',
        serverUrl: settings.publicApiUrl,
        errorCodes: errorCodes(),
      },
    ));
  const expectedMigrations = () => declarations.flatMap((plugin) => (plugin.migrations ?? []).map((migration) => ledgerIdOf(plugin.name, migration)));
  const core = coreExtensions({ settings, services, upstreamMetrics: recorder, backend: { openapi, adminOpenapi, capabilities: () => assembly.capabilities.assemble(), expectedMigrations, features: () => declarations.map((plugin) => ({ name: plugin.name, version: plugin.version ?? null })) } });
  try {
    await assembly.setUp([...features.map((feature) => ({ declaration: feature, setup: (ctx: Parameters<WalletPlugin['setup']>[0]) => feature.setup(ctx, core) })), ...plugins.map((plugin) => ({ declaration: plugin, setup: plugin.setup.bind(plugin) }))]);
  } catch (err) {
    await db.knex.destroy();
    throw err;
  }

  // HTTP: one handler per route, with the kit every route shares.
  const api = mountRoutes(assembly.routes.routes, {
    logger,
    metrics: recorder ?? noMetrics,
    clock,
    resolveClientIp,
    bodyLimitBytes: settings.bodyLimitBytes,
    limiter: { store: services.rateLimitStore, windowMs: settings.rateLimitWindowSec * 1000, max: settings.rateLimitMax, keyOf: (ip) => `ip:${services.peppers.hashIp(ip)}` },
    authenticateBearer: (authorization) => services.sessions.authenticate(authorization),
    authenticateAdmin: (authorization, needs) => services.adminSessions.authenticate(authorization, needs),
  }, logger);
  const { start, close } = lifecycle({
    latch: services.latch,
    scheduler: services.scheduler,
    schedulerEnabled: settings.schedulerEnabled,
    metrics: metrics === null || metricsAddress === null ? null : { exposition: metrics, address: metricsAddress },
    listener: api.listener,
    release: async () => {
      await assembly.close();
      await db.knex.destroy();
    },
  });

  return {
    app: api.app,
    router: api.router,
    callback: api.listener,
    migrate: () => runMigrations(db.knex, db.dialect, declarations.map((plugin) => ({ owner: plugin.name, migrations: plugin.migrations ?? [] })), clock, logger),
    expectedMigrations,
    start,
    close,
    openapi,
    settings: visibleSettings,
    db,
    sessions: services.sessions,
    challenges: services.challenges,
    scheduler: services.scheduler,
    chains: services.chains,
    setup: services.setup,
    logger,
    metrics: metrics === null ? null : { contentType: metrics.contentType, render: () => metrics.render() },
    checkProcessor: async () => (services.greenfield === null ? null : services.greenfield.check()),
  };
}
