export type { Knex } from 'knex';
export {
  cancelAfter,
  lockRowsForShare,
  lockRowsForUpdate,
  whereAnyOf,
  epochMsOf,
  dialectFor,
  isUniqueViolation,
  uniqueViolationOf,
  databaseFailureOf,
  type DatabaseFailure,
  isViolationOf,
  isRefusedValue,
  readTime,
  readOptionalTime,
  readBool,
  readJson,
  type Dialect,
  type DialectKind,
  type UniqueViolation,
} from './dialect.js';
export { connect, maskDatabasePassword, parseDatabaseUrl, type Connection, type ConnectOptions, type DatabaseTarget } from './connect.js';
export { consumeOne, transitionOne, transitionOneAndInsert, insertOrNull, type Executor, type Where } from './conditional.js';
export { createDatabase, type Database } from './database.js';
export { inTransaction } from './single-row.js';
export { deleteInBatches, type DeleteInBatchesOptions } from './batched-delete.js';
export { PreparedStatement, PreparedTransitionThenInsert } from './prepared.js';
export { isUuid } from './uuid.js';
export { poolUse, type PoolUse } from './pool-use.js';
export { runMigrations, appliedMigrations, ledgerIdOf, checkMigrationSets, LEDGER_TABLE, type Migration, type MigrationSet } from './migrator.js';
export { coreMigrations } from './migrations/index.js';
