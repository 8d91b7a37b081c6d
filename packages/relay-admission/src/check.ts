import { existsSync } from 'node:fs';
import { appliedMigrations, connect, coreMigrations, databaseFailureOf, ledgerIdOf, parseDatabaseUrl, silentLogger } from '@wallet/backend-core/database';
import { within } from './deadline.js';

/** Why the hook cannot read the wallet database, in an operator's terms. */
export type DatabaseProblemCause = 'unreachable' | 'authentication' | 'schema';

export type DatabaseCheck = { ok: true; description: string } | { ok: false; cause: DatabaseProblemCause; description: string; message: string };

/** `wallet-relay-admission check`'s exit codes: 0 ready, 2 a usage or configuration error, then one per cause. */
export const CHECK_EXIT_CODES: Record<'ok' | 'usage' | DatabaseProblemCause, number> = { ok: 0, usage: 2, unreachable: 3, authentication: 4, schema: 5 };

const failed = (cause: DatabaseProblemCause, description: string, message: string): DatabaseCheck => ({ ok: false, cause, description, message });

/**
 * Whether the hook can read the wallet database at `databaseUrl`: it answers within `timeoutMs`,
 * the credentials are accepted, and every core migration this version knows is applied (the
 * hook reads `users.nostr_pubkey` and `users.premium_until`). Never throws, never writes, and
 * never creates a SQLite file that is not there.
 */
export async function checkAdmissionDatabase(databaseUrl: string, timeoutMs: number): Promise<DatabaseCheck> {
  let description: string;
  let sqliteFile: string | null;
  try {
    const target = parseDatabaseUrl(databaseUrl, 1, silentLogger);
    description = target.description;
    sqliteFile = target.kind === 'sqlite' ? target.description.slice('sqlite:'.length) : null;
  } catch (err) {
    return failed('unreachable', '(unparsable)', `DATABASE_URL is not a database URL (${(err as Error).message})`);
  }
  if (sqliteFile !== null && sqliteFile !== ':memory:' && !existsSync(sqliteFile)) {
    return failed('unreachable', description, `no SQLite database at ${sqliteFile}: is DATABASE_URL the wallet server's?`);
  }
  let connection;
  try {
    connection = connect(databaseUrl, 1, silentLogger, { sqliteReader: { busyTimeoutMs: Math.min(timeoutMs, 1_000) } });
  } catch (err) {
    return failed('unreachable', description, (err as Error).message);
  }
  const { knex } = connection;
  try {
    return await within(
      (async (): Promise<DatabaseCheck> => {
        await knex.raw('select 1');
        const applied = new Set(await appliedMigrations(knex));
        if (applied.size === 0) return failed('schema', description, 'the wallet schema is missing (no migrations applied): run the wallet server’s migrations (`wallet-backend migrate`) against this database');
        const missing = coreMigrations.map((migration) => ledgerIdOf('core', migration)).filter((id) => !applied.has(id));
        if (missing.length > 0) return failed('schema', description, `the wallet schema is older than this version expects (missing ${missing.join(', ')}): run \`wallet-backend migrate\` with a wallet server of this version`);
        return { ok: true, description };
      })(),
      timeoutMs,
      () => failed('unreachable', description, `the database did not answer within ${timeoutMs} ms`),
    );
  } catch (err) {
    const message = (err as Error).message;
    const failure = databaseFailureOf(err);
    if (failure === 'authentication') return failed('authentication', description, `the database refused the credentials (${message})`);
    if (failure === 'schema') return failed('schema', description, `the wallet schema is missing (${message}): run the wallet server’s migrations against this database`);
    return failed('unreachable', description, failure === 'unreachable' ? `cannot reach the database (${message})` : message);
  } finally {
    // A query the database never answered would hold the pool's close too.
    await within(knex.destroy(), 1_000, () => undefined);
  }
}
