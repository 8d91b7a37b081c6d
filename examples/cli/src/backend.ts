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

/** Refuses to run against a database that has not been migrated as far as `table`. */
export async function requireMigrated(backend: WalletBackend, table: string): Promise<void> {
  if (!(await backend.db.knex.schema.hasTable(table))) throw new CliFailure('the database is not migrated: run `wallet-backend migrate` first', []);
}

/** Opens the backend, runs `work`, and always closes it. */
export async function withBackend<T>(io: CliIo, table: string, work: (backend: WalletBackend) => Promise<T>): Promise<T> {
  const backend = await openBackend(io);
  try {
    await requireMigrated(backend, table);
    return await work(backend);
  } finally {
    await backend.close();
  }
}
