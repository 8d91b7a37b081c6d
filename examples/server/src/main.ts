#!/usr/bin/env node
import { BootError } from '@wallet/backend-core';
import { startServer } from './server.js';

/** The reference server: `npm start` from the repository root. */
async function main(): Promise<void> {
  let server;
  try {
    server = await startServer(process.env);
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`${err.message}\n`);
    } else {
      process.stderr.write(`wallet backend failed to start: ${(err as Error).message}\n`);
    }
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.backend.logger.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
