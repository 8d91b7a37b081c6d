import { BootError, silentLogger } from '@wallet/backend-core';
import { bootBackend, loadServerConfig } from '@wallet/server';
import { maskDatabaseUrl } from '../backend.js';
import { CliFailure, type CliIo } from '../io.js';

/**
 * `wallet-backend config check`: the verdict the server would reach at start-up (every
 * violation at once), without connecting, migrating, listening or generating secrets. An
 * invalid configuration is this command's failed check: exit code 1 (other commands: 4).
 */
export async function configCheckCommand(io: CliIo): Promise<void> {
  const config = loadServerConfig(io.env, { createDevSecrets: false });
  for (const notice of config.notices) io.out(`note: ${notice}`);
  try {
    const backend = await bootBackend(config, silentLogger);
    await backend.close();
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    throw new CliFailure(`configuration is invalid (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'})`, err.problems);
  }
  const database = maskDatabaseUrl(String(config.backend.databaseUrl));
  io.out(`configuration is valid (environment: ${config.backend.nodeEnv}, database: ${database})`);
}
