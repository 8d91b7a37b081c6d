import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJsonLogger, type Logger, type WalletBackend } from '@wallet/backend-core';
import { bootBackend } from './boot.js';
import { loadServerConfig, type HttpTimeouts } from './config.js';
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

/** Requests still in flight at shutdown get this long before their connections are cut. */
const DRAIN_TIMEOUT_MS = 10_000;
/** How often Node checks the request and headers timeouts (its default, 30 s, lets a 30 s limit run to 60 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * The listener, with every time limit set deliberately instead of Node's defaults (300 s for a
 * request, so one trickling body would hold a connection for five minutes).
 */
function createListener(backend: WalletBackend, timeouts: HttpTimeouts): Server {
  return createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    backend.callback(),
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

/** Stop accepting, close idle keep-alive connections, let requests in flight finish; cut what is left after DRAIN_TIMEOUT_MS. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
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
  const server = createListener(backend, config.http);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await drain(server);
      await backend.close();
    })());
  try {
    const applied = await backend.migrate();
    if (applied.length > 0) logger.info('database migrated', { applied: applied.length });
    // No port: the backend checks the setup latch and starts its scheduler; this server listens.
    await backend.start();
    const url = await listen(server, config.port, config.host);
    logger.info('listening', { url, api: `${url}/api/v1`, database: backend.db.dialect.kind });
    return { backend, url, close };
  } catch (err) {
    await close();
    throw err;
  }
}
