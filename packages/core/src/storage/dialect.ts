import type { Knex } from 'knex';
import { inTransaction, requireAtMostOne, type Executor } from './single-row.js';

/**
 * The ONE place that knows which database it is talking to
 * (docs/architecture.md#one-place-per-rule). Feature code
 * calls these helpers and never branches on the dialect.
 */
export type DialectKind = 'postgres' | 'sqlite';

export interface Dialect {
  /** For diagnostics and this module's callers inside storage/ only. */
  readonly kind: DialectKind;
  /**
   * The driver answers in the calling thread (SQLite's better-sqlite3): a read that waits on a
   * locked or hung file blocks the whole process, so no timer of that process can fire meanwhile.
   */
  readonly synchronousDriver: boolean;
  /**
   * Lock the selected rows for this transaction and skip rows another worker holds:
   * `FOR UPDATE SKIP LOCKED` on Postgres. SQLite has one writer connection, so a transaction
   * already excludes every other writer and the builder is returned unchanged.
   */
  lockRowsSkipLocked<T extends Knex.QueryBuilder>(qb: T): T;
  /**
   * Lock the rows `qb` reads until the transaction ends, waiting for other holders (a
   * read-modify-write of one row, such as extending a period). Postgres `FOR NO KEY UPDATE`: it
   * excludes every other locker and writer of the row, but not the KEY SHARE lock that inserting
   * a row which references it takes, so a transaction that already inserted a child row (a login
   * event, then a session guard's lock on the user) cannot deadlock with its twin. Callers never
   * change a key column under it. SQLite's single writer connection already serialises the
   * transaction, so the builder is unchanged.
   */
  lockRowsForUpdate<T extends Knex.QueryBuilder>(qb: T): T;
  /**
   * Lock the rows a SELECT reads against writers until the statement's transaction ends, while
   * letting other share-lockers through: Postgres `FOR SHARE`, which waits for a transaction
   * holding `lockRowsForUpdate` on the row and makes such a locker wait for it. Inside one
   * statement (an uncorrelated sub-SELECT, which Postgres runs before the rows the statement
   * changes) it orders that statement before or after the row's writer. SQLite's single writer
   * already serialises; unchanged there.
   */
  lockRowsForShare<T extends Knex.QueryBuilder>(qb: T): T;
  /**
   * Serialise writers of one table until the transaction ends (hash-chain appends, ledgers).
   * Postgres takes an EXCLUSIVE table lock (readers still proceed); SQLite already serialises.
   */
  lockTableForWrites(trx: Knex.Transaction, table: string): Promise<void>;
  /** Hold the migration lock until the transaction ends, so two processes never migrate at once. */
  lockMigrations(trx: Knex.Transaction): Promise<void>;
  /**
   * `DELETE … RETURNING *` for the rows `where` selects. Postgres runs knex's own; knex's
   * SQLite compiler silently drops RETURNING on delete, so SQLite runs the same compiled
   * statement with RETURNING appended (SQLite ≥ 3.35 supports it).
   */
  deleteReturning<T>(executor: Knex | Knex.Transaction, table: string, where: (qb: Knex.QueryBuilder) => void): Promise<T[]>;
  /**
   * Runs one statement in the driver's own placeholders straight on `connection` (a connection
   * knex's pool or a transaction handed out), binding values as knex's client would, and
   * returns its rows (none for a write without RETURNING). Postgres runs it as the named
   * prepared statement `name`, so the server plans it once per connection; SQLite prepares it
   * on the connection (whose statement cache keeps it). For `PreparedStatement`.
   */
  runPrepared(connection: unknown, statement: { name: string; sql: string; values: unknown[] }): Promise<unknown[]>;
  /**
   * The one statement of `transitionThenInsert` where the dialect has one (Postgres), to run or
   * to prepare (`PreparedTransitionThenInsert`); absent where it takes two (SQLite).
   */
  transitionThenInsertStatement?: (
    executor: Executor,
    table: string,
    where: (qb: Knex.QueryBuilder) => void,
    set: Record<string, unknown>,
    row: Record<string, unknown>,
    /** The columns of the transitioned row to return; every column (`*`) by default. */
    returning?: string[],
  ) => Knex.Raw;
  /**
   * `UPDATE … RETURNING *` and, only when it updated a row, `INSERT row`, atomically; the
   * updated rows. Postgres: ONE statement, the update in a data-modifying WITH whose output
   * gates an `INSERT … SELECT`. SQLite allows no data-modifying WITH, so both run in a
   * transaction (the caller's or its own), refusing an update of several rows before inserting.
   * Never more than one row: on Postgres `row`'s primary key makes a second insert fail the
   * statement.
   */
  transitionThenInsert(
    executor: Executor,
    table: string,
    where: (qb: Knex.QueryBuilder) => void,
    set: Record<string, unknown>,
    row: Record<string, unknown>,
  ): Promise<unknown[]>;
  /**
   * Makes `column` of `table` write-once in the database itself (a migration step): once it
   * holds a value, an UPDATE that changes it or sets it back to NULL is refused (Postgres
   * SQLSTATE 23514, SQLite `SQLITE_CONSTRAINT_TRIGGER`), whatever code runs it. A trigger per
   * column, named `<table>_<column>_write_once`.
   */
  writeOnce(trx: Knex.Transaction, table: string, column: string): Promise<void>;
  /** A Date as this dialect stores it: a timestamptz on Postgres, fixed-width ISO-8601 UTC text on SQLite (so text order is time order). */
  time(date: Date): Date | string;
  /** A boolean as stored: native on Postgres, 0/1 on SQLite. */
  bool(value: boolean): boolean | number;
  /** A JSON value as stored: jsonb on Postgres, text on SQLite. */
  json(value: unknown): unknown;
  /**
   * `qb` cancelled in the database once it has run `ms`: `pg_cancel_backend` on Postgres, so a
   * read given up on does not keep its connection. Unchanged on SQLite: better-sqlite3 runs a
   * statement synchronously on the event loop, so nothing can interrupt it.
   */
  cancelAfter<T extends Knex.QueryBuilder>(qb: T, ms: number): T;
  /**
   * The column that addresses a row within one statement, for `deleteInBatches`: SQLite's
   * `rowid`, Postgres's `ctid` (the tuple's place in the heap, fetched by a TID scan without an
   * index; stable for the one statement that reads and deletes it). Every table has one, whatever
   * its primary key, and neither is ever stored or kept across statements.
   */
  readonly rowAddress: string;
  /**
   * `qb` narrowed to the rows whose `key` is among those `keys` (a one-column SELECT) returns:
   * how `deleteInBatches` names its batch. Postgres `key = ANY(ARRAY(<keys>))`: the array is
   * computed once, first, and the rows fetched by TID (or by the key's index), whatever the
   * planner's estimates (a plain `IN (<keys>)` may be planned as a hash semi-join that scans every
   * matching row, a whole backlog per batch). SQLite `key IN (<keys>)`, a rowid lookup per key.
   */
  whereKeyIn<T extends Knex.QueryBuilder>(qb: T, key: string, keys: Knex.QueryBuilder): T;
  /**
   * `qb` narrowed to the rows whose `column` is one of `values`, bound as ONE parameter however
   * many there are: the statement's text is the same for every list, and knex does not write
   * and renumber a placeholder per value (a re-read of 500 standings). Postgres
   * `column = any(?)` with a text array; SQLite `column in (select value from json_each(?))` with
   * a JSON array. Either probes `column`'s index once per value.
   */
  whereAnyOf<T extends Knex.QueryBuilder>(qb: T, column: string, values: readonly string[]): T;
  /**
   * A select item: the stored time `column` as whole milliseconds since the epoch, a number (NULL
   * stays NULL), named `alias`. For a read of many rows that only compares its times: pg parses
   * every timestamptz into a Date through a regular expression (about 3 µs a value with the
   * caches cold: a third of the driver's CPU for 500 rows holding 100 times), SQLite hands back
   * ISO text.
   * Postgres `round(extract(epoch from date_trunc('milliseconds', column)) * 1000)::float8`
   * (truncated to the millisecond as pg's own Date parsing does, exact whether `extract` returns
   * numeric, 14 and later, or float8); SQLite
   * `cast(round(unixepoch(column, 'subsec') * 1000) as integer)`. Both are the Date's own
   * `getTime()` for every time this code stores (`time()`: whole milliseconds, ISO text on
   * SQLite; a time some other writer stored as a number on SQLite reads as NULL). Postgres
   * `infinity` reads as Infinity, where a Date would be invalid.
   */
  epochMs(knex: Knex, column: string, alias: string): Knex.Raw;
  /** Rows per statement of `deleteInBatches` (measured: see the dialects below). */
  readonly deleteBatchSize: number;
  /**
   * How long `deleteInBatches` waits before its next statement after one that ran `elapsedMs`;
   * 0 is one turn of the event loop.
   */
  pauseAfterBatchMs(elapsedMs: number): number;
  /**
   * `column` ascending with NULLs first, as SQL text for an ORDER BY term (`orderByRaw`) AND for
   * the index column that serves it, so a worker walks the index in order and stops at its
   * LIMIT: `column asc nulls first` on Postgres (its ASC puts NULLs last), `column asc` on
   * SQLite (its ASC already puts them first). Plain identifiers only. (knex's `nulls: 'first'`
   * on SQLite orders by the null test alone, which no index serves.)
   */
  ascNullsFirst(column: string): string;
}

/** A table or column name written into DDL text: only plain lower-case identifiers, so nothing needs quoting. */
function plainName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`);
  return name;
}

/** The parts of a pg connection `runPrepared` uses. */
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** The parts of a better-sqlite3 connection `runPrepared` uses. */
interface SqliteConnection {
  prepare(sql: string): { reader: boolean; all(values: unknown[]): unknown[]; run(values: unknown[]): unknown };
}

/** A value bound as knex's better-sqlite3 client binds it (its `_formatBindings`). */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.valueOf();
  if (typeof value === 'boolean') return Number(value);
  return value;
}

/** An arbitrary constant naming the migration advisory lock. */
const MIGRATION_LOCK_KEY = 4_207_330_401;

const postgres: Dialect = {
  kind: 'postgres',
  synchronousDriver: false,
  lockRowsSkipLocked: (qb) => qb.forUpdate().skipLocked() as typeof qb,
  lockRowsForUpdate: (qb) => qb.forNoKeyUpdate() as typeof qb,
  lockRowsForShare: (qb) => qb.forShare() as typeof qb,
  async runPrepared(connection, { name, sql, values }) {
    return (await (connection as PgConnection).query({ name, text: sql, values })).rows;
  },
  cancelAfter: (qb, ms) => qb.timeout(ms, { cancel: true }) as typeof qb,
  ascNullsFirst: (column) => `${plainName(column)} asc nulls first`,
  rowAddress: 'ctid',
  whereKeyIn: (qb, key, keys) => qb.whereRaw('?? = any(array(?))', [key, keys]) as typeof qb,
  whereAnyOf: (qb, column, values) => qb.whereRaw('?? = any(?)', [column, [...values]]) as typeof qb,
  epochMs: (knex, column, alias) => knex.raw("round(extract(epoch from date_trunc('milliseconds', ??)) * 1000)::float8 as ??", [column, alias]),
  // A delete only marks the heap tuples (indexes are cleaned by vacuum): 1,000 expired login
  // events take ~3 ms (p99 ~9 ms), and the event loop is free while the server runs them.
  deleteBatchSize: 1000,
  // So one turn lets the requests that queued behind the answer go first.
  pauseAfterBatchMs: () => 0,
  async lockTableForWrites(trx, table) {
    await trx.raw('LOCK TABLE ?? IN EXCLUSIVE MODE', [table]);
  },
  async lockMigrations(trx) {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
  },
  async deleteReturning<T>(executor: Knex | Knex.Transaction, table: string, where: (qb: Knex.QueryBuilder) => void) {
    return (await executor(table).where(where).delete().returning('*')) as T[];
  },
  transitionThenInsertStatement: (executor, table, where, set, row, returning = ['*']) => {
    const update = executor(table).where(where).update(set).returning(returning).toSQL();
    const columns = Object.keys(row);
    const list = (mark: string) => columns.map(() => mark).join(', ');
    // The parameters of the INSERT's SELECT take the target columns' types (Postgres resolves
    // unknown-typed SELECT outputs of an INSERT against its columns), as a VALUES list would.
    return executor.raw(
      `with transitioned as (${update.sql}), inserted as (insert into ?? (${list('??')}) select ${list('?')} from transitioned) select * from transitioned`,
      [...update.bindings, table, ...columns, ...Object.values(row)] as Knex.RawBinding[],
    );
  },
  async transitionThenInsert(executor, table, where, set, row) {
    return ((await postgres.transitionThenInsertStatement!(executor, table, where, set, row)) as { rows: unknown[] }).rows;
  },
  async writeOnce(trx, table, column) {
    const name = `${table}_${column}_write_once`;
    await trx.raw(
      `CREATE FUNCTION ??() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF OLD.?? IS NOT NULL AND NEW.?? IS DISTINCT FROM OLD.?? THEN
           RAISE EXCEPTION '${plainName(table)}.${plainName(column)} is write-once' USING ERRCODE = '23514';
         END IF;
         RETURN NEW;
       END $$`,
      [name, column, column, column],
    );
    await trx.raw('CREATE TRIGGER ?? BEFORE UPDATE OF ?? ON ?? FOR EACH ROW EXECUTE FUNCTION ??()', [name, column, table, name]);
  },
  time: (date) => date,
  bool: (value) => value,
  json: (value) => JSON.stringify(value),
};

const sqlite: Dialect = {
  kind: 'sqlite',
  synchronousDriver: true,
  lockRowsSkipLocked: (qb) => qb,
  lockRowsForUpdate: (qb) => qb,
  lockRowsForShare: (qb) => qb,
  async runPrepared(connection, { sql, values }) {
    const statement = (connection as SqliteConnection).prepare(sql);
    const bound = values.map(sqliteValue);
    if (statement.reader) return statement.all(bound);
    statement.run(bound);
    return [];
  },
  cancelAfter: (qb) => qb,
  ascNullsFirst: (column) => `${plainName(column)} asc`,
  rowAddress: 'rowid',
  whereKeyIn: (qb, key, keys) => qb.whereIn(key, keys) as typeof qb,
  whereAnyOf: (qb, column, values) => qb.whereRaw('?? in (select value from json_each(?))', [column, JSON.stringify(values)]) as typeof qb,
  epochMs: (knex, column, alias) => knex.raw("cast(round(unixepoch(??, 'subsec') * 1000) as integer) as ??", [column, alias]),
  // The statement holds the event loop for its whole run, and SQLite updates every index of a
  // deleted row: login_events' two random-UUID indexes cost ~30-60 µs a row once the table
  // outgrows the page cache, so 50 rows is ~3 ms (p99 ~4.6 ms with the small automatic
  // checkpoints of connect.ts), about the p99 of /auth/me when idle.
  deleteBatchSize: 50,
  // As long again as the statement ran: the sweep holds the loop at most half the time, and a
  // request that started between two batches has time to finish its few statements.
  pauseAfterBatchMs: (elapsedMs) => elapsedMs,
  async lockTableForWrites() {
    // One writer connection: holding the transaction already excludes other writers.
  },
  async lockMigrations() {
    // Same: the migration transaction is the only writer of this process.
  },
  async deleteReturning<T>(executor: Knex | Knex.Transaction, table: string, where: (qb: Knex.QueryBuilder) => void) {
    const { sql, bindings } = executor(table).where(where).delete().toSQL().toNative();
    return (await executor.raw(`${sql} returning *`, bindings)) as T[];
  },
  async transitionThenInsert(executor, table, where, set, row) {
    return inTransaction(executor, async (trx) => {
      const updated = requireAtMostOne(table, (await trx(table).where(where).update(set).returning('*')) as unknown[]);
      if (updated.length === 1) await trx(table).insert(row);
      return updated;
    });
  },
  async writeOnce(trx, table, column) {
    await trx.raw(
      `CREATE TRIGGER ?? BEFORE UPDATE OF ?? ON ?? FOR EACH ROW
       WHEN OLD.?? IS NOT NULL AND NEW.?? IS NOT OLD.??
       BEGIN SELECT RAISE(ABORT, '${plainName(table)}.${plainName(column)} is write-once'); END`,
      [`${table}_${column}_write_once`, column, table, column, column, column],
    );
  },
  time: (date) => date.toISOString(),
  bool: (value) => (value ? 1 : 0),
  json: (value) => JSON.stringify(value),
};

export function dialectFor(kind: DialectKind): Dialect {
  return kind === 'postgres' ? postgres : sqlite;
}

const CLIENTS: Record<string, Dialect> = {
  pg: postgres,
  postgres: postgres,
  postgresql: postgres,
  pgnative: postgres,
  'better-sqlite3': sqlite,
  sqlite3: sqlite,
  sqlite: sqlite,
};

/** The dialect of a knex pool or transaction, read off its client name, knex's aliases included (storage-internal). */
export function dialectOf(executor: Knex | Knex.Transaction): Dialect {
  const client = (executor as unknown as { client: { config: { client: unknown } } }).client.config.client;
  const dialect = typeof client === 'string' ? CLIENTS[client] : undefined;
  if (dialect === undefined) throw new Error(`unsupported knex client ${String(client)}: use pg or better-sqlite3`);
  return dialect;
}

/** `qb` narrowed to rows whose `column` is one of `values`, bound as one parameter (`Dialect.whereAnyOf`). */
export function whereAnyOf<T extends Knex.QueryBuilder>(qb: T, column: string, values: readonly string[]): T {
  return dialectOf(qb as unknown as Knex).whereAnyOf(qb, column, values);
}

/** A select item: the stored time `column` as epoch milliseconds (a number, or null), named `alias` (`Dialect.epochMs`). */
export function epochMsOf(knex: Knex | Knex.Transaction, column: string, alias: string): Knex.Raw {
  return dialectOf(knex).epochMs(knex as Knex, column, alias);
}

/** `qb`'s rows locked for update until the transaction ends, as its dialect can (`Dialect.lockRowsForUpdate`). */
export function lockRowsForUpdate<T extends Knex.QueryBuilder>(qb: T): T {
  return dialectOf(qb as unknown as Knex).lockRowsForUpdate(qb);
}

/** `qb`'s rows share-locked until its statement's transaction ends, as its dialect can (`Dialect.lockRowsForShare`). */
export function lockRowsForShare<T extends Knex.QueryBuilder>(qb: T): T {
  return dialectOf(qb as unknown as Knex).lockRowsForShare(qb);
}

/** `qb` cancelled in the database once it has run `ms`, as its dialect can (`Dialect.cancelAfter`). */
export function cancelAfter<T extends Knex.QueryBuilder>(qb: T, ms: number): T {
  return dialectOf(qb as unknown as Knex).cancelAfter(qb, ms);
}

/** A unique (or primary key) violation on either dialect: Postgres 23505, SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Which unique key a violation is about, the same on both dialects: the table and its key
 * columns in index order (`users`, [`pubkey_hash`]). `name` is what the log shows: the Postgres
 * constraint or index name, or `table(columns)` on SQLite, whose error names columns, not
 * indexes. Never the violating value (Postgres puts it in `detail`; it may be a peppered
 * identity), which is why only the column list is read from there.
 */
export interface UniqueViolation {
  table: string;
  columns: string[];
  name: string;
}

export function uniqueViolationOf(err: unknown): UniqueViolation | null {
  if (!isUniqueViolation(err)) return null;
  const fields = err as { code: string; table?: unknown; constraint?: unknown; detail?: unknown; message?: unknown };
  if (fields.code === '23505') {
    const columns = typeof fields.detail === 'string' ? /^Key \((.+?)\)=\(/.exec(fields.detail)?.[1]?.split(', ') : undefined;
    const table = typeof fields.table === 'string' ? fields.table : '';
    return { table, columns: columns ?? [], name: typeof fields.constraint === 'string' ? fields.constraint : `${table}(?)` };
  }
  // "UNIQUE constraint failed: user_keys.asset, user_keys.key_type, user_keys.public_key"
  const list = typeof fields.message === 'string' ? /constraint failed: (.+)$/.exec(fields.message)?.[1] : undefined;
  const qualified = (list ?? '').split(', ').map((item) => item.split('.'));
  const table = qualified[0]?.length === 2 ? qualified[0][0]! : '';
  const columns = qualified.filter((parts) => parts.length === 2 && parts[0] === table).map((parts) => parts[1]!);
  return { table, columns, name: `${table}(${columns.join(',')})` };
}

/** The violation is on `table`'s unique key over exactly `columns` (in the index's order). */
export function isViolationOf(violation: UniqueViolation | null, table: string, columns: readonly string[]): boolean {
  return violation !== null && violation.table === table && violation.columns.length === columns.length && columns.every((column, i) => violation.columns[i] === column);
}

/**
 * Postgres data exceptions that mean "this input value cannot be stored or compared", never a
 * server fault: 22021 character_not_in_repertoire (a NUL in text), 22P05
 * untranslatable_character (a NUL escape in jsonb), 22003 numeric_value_out_of_range, 22P02
 * invalid_text_representation, 22001 string_data_right_truncation (longer than varchar(n)).
 * SQLite is lax about all of these; SQLITE_TOOBIG is its only counterpart.
 */
const REFUSED_VALUE_CODES = new Set(['22021', '22P05', '22003', '22P02', '22001', 'SQLITE_TOOBIG']);

/**
 * The database refused a value of the request (either dialect). The HTTP boundary answers it
 * as 400 `invalid_request`, a safety net behind route validation for code that passed such a
 * value through unchecked; it is logged as a warning so the missing validation gets fixed.
 */
export function isRefusedValue(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && REFUSED_VALUE_CODES.has(code);
}

/** Values read back from either dialect, normalised. */
export function readTime(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string' || typeof value === 'number') return new Date(value);
  throw new TypeError(`not a stored timestamp: ${typeof value}`);
}

export function readOptionalTime(value: unknown): Date | null {
  return value === null || value === undefined ? null : readTime(value);
}

export function readBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

export function readJson<T = unknown>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Why a database could not be used, in an operator's terms. */
export type DatabaseFailure = 'unreachable' | 'authentication' | 'schema';

const AUTHENTICATION_FAILURES = new Set(['28P01', '28000']);
const UNREACHABLE_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', '3D000', '57P03', 'SQLITE_CANTOPEN', 'SQLITE_BUSY', 'SQLITE_PROTOCOL']);
const SCHEMA_FAILURES = new Set(['42P01', '42703']);

/**
 * What a driver's error says about the database, on either dialect: it cannot be reached (or
 * does not exist, or is busy), it refused the credentials, or a table or column is missing;
 * null for anything else.
 */
export function databaseFailureOf(err: unknown): DatabaseFailure | null {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (AUTHENTICATION_FAILURES.has(code)) return 'authentication';
  if (UNREACHABLE_FAILURES.has(code)) return 'unreachable';
  if (SCHEMA_FAILURES.has(code) || /no such (table|column)/i.test((err as Error | null)?.message ?? '')) return 'schema';
  return null;
}
