import { BootError, createJsonLogger, type Logger, type WalletBackend } from '@wallet/backend-core';
import { bootBackend, loadServerConfig } from '@wallet/server';
import { CliFailure, ExitCode, type CliIo } from './io.js';

/** A database URL with its password masked, safe to print. */
export function maskDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
}

/** The codes of errors that mean "no connection to the database", not "a query failed". */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'SQLITE_CANTOPEN']);

/** Whether `err` says the database cannot be reached or opened (as opposed to a failed query). */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || err.name === 'KnexTimeoutError';
}

/** What went wrong, in one line: Node's AggregateError (IPv4 and IPv6 both refused) has an empty message. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'KnexTimeoutError') return 'no connection within the acquire timeout';
  const code = (err as { code?: unknown }).code;
  const inner = err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0].message : '';
  const message = (err.message || inner || String(code ?? err.name)).split('\n')[0]!;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The one-line "database unreachable" failure (exit code 3), naming DATABASE_URL. */
export function databaseUnreachable(err: unknown, databaseUrl: string | undefined): CliFailure {
  const where = databaseUrl === undefined ? 'DATABASE_URL' : `DATABASE_URL (${maskDatabaseUrl(databaseUrl)})`;
  return new CliFailure(`cannot reach the database (${reasonOf(err)}): check ${where}`, [], ExitCode.databaseUnreachable);
}

/**
 * knex reports a failed connection attempt itself, with a stack trace, on stdout (its default
 * logger uses console.log). The CLI reports that failure in one line on stderr instead, and
 * sends knex's other warnings through the CLI's JSON logger (stderr).
 */
function routeKnexLogs(backend: WalletBackend, logger: Logger): void {
  const knexLogger = (backend.db.knex.client as { logger?: Record<string, unknown> }).logger;
  if (knexLogger === undefined) return;
  const text = (message: unknown) => (typeof message === 'string' ? message : String(message));
  knexLogger.warn = (message: unknown) => {
    if (text(message).startsWith('Acquire connection error')) return;
    logger.warn(text(message), { source: 'knex' });
  };
  knexLogger.error = (message: unknown) => logger.error(text(message), { source: 'knex' });
  knexLogger.deprecate = (method: unknown, alternative: unknown) => logger.warn(`${text(method)} is deprecated, please use ${text(alternative)}`, { source: 'knex' });
  knexLogger.debug = () => undefined;
}

/**
 * The backend the reference server would run with this environment, for operator commands,
 * with its database connection proven: an invalid configuration fails with exit code 4, a
 * database that cannot be reached with exit code 3. Its log lines go to stderr at `warn` so
 * a command's own output stays clean. With `connect: false` it is only booted (the pool opens
 * no connection until a query), for what the configuration alone answers.
 */
export async function openBackend(io: CliIo, { connect = true }: { connect?: boolean } = {}): Promise<WalletBackend> {
  const config = loadServerConfig(io.env);
  const databaseUrl = String(config.backend.databaseUrl);
  const logger = createJsonLogger({ level: 'warn', write: io.err });
  let backend: WalletBackend;
  try {
    backend = await bootBackend(config, logger);
  } catch (err) {
    if (err instanceof BootError) {
      throw new CliFailure(`configuration is invalid (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'})`, err.problems, ExitCode.invalidConfiguration);
    }
    if (isConnectionError(err)) throw databaseUnreachable(err, databaseUrl);
    throw err;
  }
  routeKnexLogs(backend, logger);
  if (!connect) return backend;
  try {
    await backend.db.knex.raw('select 1');
  } catch (err) {
    await backend.close().catch(() => undefined);
    // Anything that stops the first query (refused, unknown host, authentication, a missing
    // database, an SQLite path that cannot be created) is "cannot reach the database".
    throw databaseUnreachable(err, databaseUrl);
  }
  return backend;
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
