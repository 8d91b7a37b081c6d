/**
 * @wallet/backend-core/database: the wallet database without the HTTP stack, for processes that
 * run beside the server and only read its database (the relay admission plugin). Importing the
 * main entry loads Koa, the routes, the chains and every crypto scheme: about 20 MB of heap and
 * half a second before the first answer, which a relay pays at every plugin (re)start and in
 * every collection. This entry loads knex, its drivers and the logger: about 8 MB.
 * @module
 */
export {
  connect,
  parseDatabaseUrl,
  databaseFailureOf,
  readOptionalTime,
  readTime,
  whereAnyOf,
  epochMsOf,
  appliedMigrations,
  coreMigrations,
  ledgerIdOf,
  type Connection,
  type ConnectOptions,
  type DatabaseFailure,
  type Knex,
} from './storage/index.js';
export { createJsonLogger, silentLogger, type Logger } from './logger/index.js';
export { readSecretFiles, type SecretFiles } from './secret-files/index.js';
export type { NostrEvent } from './crypto/index.js';
