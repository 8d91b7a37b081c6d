#!/usr/bin/env node
import { BootError } from '@wallet/backend-core';
import { keepWorkerHeapBounds } from './heap-flags.js';
import { startServer } from './server.js';

/** The reference server: `npm start` from the repository root. */
async function main(): Promise<void> {
  keepWorkerHeapBounds();
  // Signals are caught from the first moment: a SIGTERM that arrives while the server boots (or
  // just after it logged "listening") is answered by a drain once it is up, never by Node's
  // default of dying mid-request.
  let signalled: string | undefined;
  let onSignal = (signal: string) => {
    signalled ??= signal;
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  let server;
  try {
    server = await startServer(process.env);
  } catch (err) {
    // A refused start is a plain-text list on stderr (documented); any other failure was also
    // logged as a JSON line on stdout by startServer.
    if (err instanceof BootError) {
      process.stderr.write(`${err.message}\n`);
    } else {
      process.stderr.write(`wallet backend failed to start: ${(err as Error).message}\n`);
    }
    process.exit(1);
  }
  const { logger } = server.backend;
  // Whatever escapes still leaves as a JSON line, not as Node's plain-text stack trace.
  process.on('uncaughtException', (err) => {
    logger.error('uncaught exception; exiting', { err: err.message, err_name: err.name, stack: err.stack });
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled promise rejection; exiting', reason instanceof Error ? { err: reason.message, err_name: reason.name, stack: reason.stack } : { err: reason });
    process.exit(1);
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // close() logs `stopped`, or `stop failed` with the error, itself.
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  onSignal = stop;
  if (signalled !== undefined) stop(signalled);
}

await main();
