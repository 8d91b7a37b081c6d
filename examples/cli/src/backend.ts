import { BootError, createJsonLogger, type WalletBackend } from '@wallet/backend-core';
import { bootBackend, loadServerConfig } from '@wallet/server';
import { CliFailure, type CliIo } from './io.js';

/**
 * The backend the reference server would run with this environment, for operator commands.
 * Its log lines go to stderr at `warn` so a command's own output stays clean.
 */
export async function openBackend(io: CliIo): Promise<WalletBackend> {
  const config = loadServerConfig(io.env);
  try {
    return await bootBackend(config, createJsonLogger({ level: 'warn', write: io.err }));
  } catch (err) {
    if (err instanceof BootError) throw new CliFailure(`configuration is invalid (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'})`, err.problems);
    throw err;
  }
}
