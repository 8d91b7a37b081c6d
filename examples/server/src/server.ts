import { createJsonLogger, type Logger, type WalletBackend } from '@wallet/backend-core';
import { bootBackend } from './boot.js';
import { loadServerConfig } from './config.js';
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

/**
 * Environment → validated configuration → migrated backend → listening server. Refuses to
 * start (BootError listing every problem) on any configuration violation.
 */
export async function startServer(env: Env, options: StartServerOptions = {}): Promise<RunningServer> {
  const config = loadServerConfig(env);
  const logger: Logger = createJsonLogger({ level: config.logLevel, ...(options.write ? { write: options.write } : {}) });
  const backend = await bootBackend(config, logger);
  for (const notice of config.notices) logger.warn(notice);
  try {
    const applied = await backend.migrate();
    if (applied.length > 0) logger.info('database migrated', { applied: applied.length });
    const { url } = await backend.start({ port: config.port, host: config.host });
    logger.info('listening', { url, api: `${url}/api/v1`, database: backend.db.dialect.kind });
    return { backend, url: url!, close: () => backend.close() };
  } catch (err) {
    await backend.close();
    throw err;
  }
}
