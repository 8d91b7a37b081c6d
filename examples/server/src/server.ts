import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import cors from '@koa/cors';
import { adminConsole } from '@wallet/admin-console';
import { BootError, createJsonLogger, requestDrain, type Logger, type RequestDrain, type WalletBackend } from '@wallet/backend-core';
import { bootBackend } from './boot.js';
import { loadServerConfig, type CorsSettings, type ServerConfig } from './config.js';
import type { Env } from './env.js';

export interface RunningServer {
  backend: WalletBackend;
  url: string;
  /** Graceful: stop accepting, drain requests in flight, stop the scheduler, close the pool. */
  close(): Promise<void>;
}

export interface StartServerOptions {
  /** Where log lines go (stdout by default). */
  write?: (line: string) => void;
}

/** How often Node checks the request and headers timeouts (its default, 30 s, lets a 30 s limit run to 60 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** A Koa middleware as the backend's app takes it (koa is core's dependency, not this package's). */
type Middleware = Parameters<WalletBackend['app']['use']>[0];

/** This server's release, from its package.json (one directory up from both src/ and dist/). */
export const SERVER_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How long a browser may cache a preflight answer (Chromium caps it at 2 hours). */
const CORS_MAX_AGE_SEC = 600;

/**
 * CORS for the API routes (`/api/…`) and only for the listed origins: a disallowed or absent
 * Origin gets no CORS header at all, so the browser blocks the response. Credentials are off
 * (the API authenticates with bearer tokens, never cookies). NIP-05 (`/.well-known/nostr.json`)
 * is left alone: it answers `*` and its own preflight.
 */
export function corsMiddleware(settings: CorsSettings): Middleware {
  const allowed = new Set(settings.origins);
  const handle = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    credentials: false,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposeHeaders: ['X-Request-Id', 'Retry-After'],
    maxAge: CORS_MAX_AGE_SEC,
    // The backend's request boundary writes error answers without clearing headers already set.
    keepHeadersOnError: false,
  });
  return (ctx, next) => (ctx.path.startsWith('/api/') ? handle(ctx, next) : next());
}

/**
 * The listener, with every time limit set deliberately instead of Node's defaults (300 s for a
 * request, so one trickling body would hold a connection for five minutes).
 */
function createListener(backend: WalletBackend, config: ServerConfig, requests: RequestDrain): Server {
  const timeouts = config.http;
  const api = backend.callback();
  // The console's own path is answered by its handler (its files, its CSP); everything else is the API's.
  const consolePage = config.adminConsole ? adminConsole({ apiBase: config.backend.publicApiUrl! }) : undefined;
  return createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    requests.track(consolePage === undefined ? api : (req, res) => consolePage(req, res) || api(req, res)),
  );
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

/**
 * Environment → validated configuration → migrated backend → listening server. Refuses to
 * start (BootError listing every problem) on any configuration violation.
 */
export async function startServer(env: Env, options: StartServerOptions = {}): Promise<RunningServer> {
  const config = loadServerConfig(env);
  const logger: Logger = createJsonLogger({ level: config.logLevel, ...(options.write ? { write: options.write } : {}) });
  const backend = await bootBackend(config, logger);
  for (const notice of config.notices) logger.warn(notice);
  // Outermost, so a preflight is answered before routing and every answer (errors too) carries the headers.
  if (config.cors) backend.app.middleware.unshift(corsMiddleware(config.cors));
  // Draining lets requests in flight finish (and tells keep-alive clients to go) before the pool closes.
  const requests = requestDrain();
  const server = createListener(backend, config, requests);
  let listening = false;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const started = Date.now();
      try {
        await requests.drain(server, { delayMs: config.http.shutdownDelayMs });
        await backend.close();
      } catch (err) {
        logger.error('stop failed', describe(err));
        throw err;
      }
      if (listening) logger.info('stopped', { ms: Date.now() - started });
    })());
  try {
    // Asked while the database migrates and never awaited: BTCPay may be slow or down (each of its
    // probes may take UPSTREAM_TIMEOUT_MS), may come up later, and only payments depend on it. Its
    // findings are logged when they arrive, as warnings, never fatal; none is logged once the
    // server is closing (a refused start included).
    checkBtcpay(backend, logger, () => closing !== undefined);
    const applied = await backend.migrate();
    if (applied.length > 0) logger.info('database migrated', { applied: applied.length });
    // No port: the backend checks the setup latch and starts its scheduler; this server listens.
    const { metricsUrl } = await backend.start();
    const url = await listen(server, config.port, config.host);
    listening = true;
    logger.info('listening', {
      url,
      api: `${url}/api/v1`,
      database: backend.db.dialect.kind,
      version: SERVER_VERSION,
      node: process.version,
      // What V8 may grow the heap to: about 280 with the flags of `npm run start:prod`, several GB without.
      heap_limit_mb: Math.round(getHeapStatistics().heap_size_limit / 1_048_576),
      ...(config.cors ? { cors_origins: config.cors.origins } : {}),
      ...(config.adminConsole ? { admin_console: `${url}/admin-console/` } : {}),
      ...(metricsUrl ? { metrics: metricsUrl } : {}),
    });
    return { backend, url, close };
  } catch (err) {
    // A refused start is reported by the caller as a list; anything else is logged here, as JSON.
    if (!(err instanceof BootError)) logger.error('start failed', describe(err));
    await close().catch(() => undefined);
    throw err;
  }
}

/**
 * Runs the BTCPay check in the background: `btcpay check passed`, or one `btcpay check failed; …`
 * warning per problem (each names the setting, never the key). The check never throws; should it
 * (or the logger) fail all the same, that is a warning too, never an unhandled rejection.
 */
function checkBtcpay(backend: WalletBackend, logger: Logger, closing: () => boolean): void {
  void Promise.resolve()
    .then(() => backend.checkProcessor())
    .then(
      (result) => {
        if (result === null || closing()) return;
        if (result.problems.length === 0) logger.info('btcpay check passed', result.storeName === undefined ? {} : { store: result.storeName });
        for (const problem of result.problems) logger.warn('btcpay check failed; payments will answer 503 until it is fixed', { problem });
      },
      (err: unknown) => {
        if (!closing()) logger.warn('btcpay check could not run; payments may answer 503', { err_name: err instanceof Error ? err.name : typeof err });
      },
    )
    .catch(() => undefined);
}

function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { err: err.message, err_name: err.name, stack: err.stack } : { err: String(err) };
}
