import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { createJsonLogger, type Logger } from '../logger/index.js';
import { BootError } from '../errors/index.js';
import { dialectFor, type Dialect, type DialectKind } from './dialect.js';
import { cachePreparedStatements } from './statement-cache.js';

/**
 * SQLite's own page cache per connection, in KiB (SQLite's upstream default). better-sqlite3
 * compiles SQLite with a 16 MB default, which a growing database fills and the process keeps:
 * on the bench that was 13 MB of the server's RSS, and most of the gap to Postgres (whose cache
 * lives in its own server). A page SQLite no longer holds is read again from the kernel's page
 * cache, which keeps the file's hot pages either way.
 */
const SQLITE_PAGE_CACHE_KIB = 2_000;

/**
 * WAL pages after which a committing write copies the log back into the database (SQLite's
 * default is 1,000). That copy runs inside the write, on the event loop under better-sqlite3:
 * at 1,000 pages it made one write in ten take 16-20 ms instead of 1.5 ms (a 100-row delete of
 * login events, whose random-UUID indexes scatter the pages), and every request queued behind
 * it waited as long. At 100 pages the copies are ten times smaller and the total work about the
 * same (measured: p99 of 50-row deletes 4.6 ms against 18.5 ms, 12 s against 11 s for 200k rows).
 */
const SQLITE_WAL_AUTOCHECKPOINT_PAGES = 100;

/**
 * What every SQLite connection is set to, in order: WAL, a busy timeout, foreign keys,
 * synchronous NORMAL, the bounded page cache and small automatic checkpoints. One list, so the bench's bare server opens its
 * connection exactly as core does.
 */
export const SQLITE_PRAGMAS: readonly string[] = sqlitePragmas(5_000);

function sqlitePragmas(busyTimeoutMs: number): readonly string[] {
  return ['journal_mode = WAL', `busy_timeout = ${busyTimeoutMs}`, 'foreign_keys = ON', 'synchronous = NORMAL', `cache_size = -${SQLITE_PAGE_CACHE_KIB}`, `wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`];
}

/**
 * A reader of a SQLite database another process owns (the relay admission hook): it changes
 * nothing about the file (no journal mode, nothing written), a missing file is an error rather
 * than a new empty database, and it waits `busyTimeoutMs` on a busy file. A SQLite read blocks
 * the whole process while it waits (the driver is synchronous), so a reader that must answer in
 * milliseconds waits little and takes a busy file as a database that did not answer.
 */
function sqliteReaderPragmas(busyTimeoutMs: number): readonly string[] {
  return [`busy_timeout = ${busyTimeoutMs}`, `cache_size = -${SQLITE_PAGE_CACHE_KIB}`];
}

export interface ConnectOptions {
  /** SQLite only: open the file as a reader of another process's database (see sqliteReaderPragmas). */
  sqliteReader?: { busyTimeoutMs: number };
}

export interface DatabaseTarget {
  kind: DialectKind;
  /** The database file (absolute, or `:memory:`) of a file database; null for a server. */
  file: string | null;
  knexConfig: Knex.Config;
  /** A description without credentials, for logs. */
  description: string;
}

/**
 * Turns DATABASE_URL into a knex configuration.
 *  - `postgres://user@host:5432/db[?schema=name]`: a pool; `schema` sets the search_path.
 *  - `sqlite:<path>` (relative to the working directory, or absolute): WAL, a busy timeout
 *    and ONE connection, so writers are serialised in-process
 *    (docs/architecture.md#storage).
 */
export function parseDatabaseUrl(databaseUrl: string, poolMax = 10, logger: Logger = createJsonLogger(), options: ConnectOptions = {}): DatabaseTarget {
  if (databaseUrl.startsWith('sqlite:')) {
    const reader = options.sqliteReader;
    const pragmas = reader === undefined ? SQLITE_PRAGMAS : sqliteReaderPragmas(reader.busyTimeoutMs);
    const filename = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (filename === '') throw new Error('sqlite: URL has no file path');
    const absolute = filename === ':memory:' ? filename : resolve(filename);
    return {
      kind: 'sqlite',
      description: `sqlite:${absolute}`,
      file: absolute,
      knexConfig: {
        client: 'better-sqlite3',
        // A function, so the directory is made when the first connection opens, not when a
        // backend is merely built (`config check` must not touch the disk).
        connection: () => {
          if (absolute !== ':memory:' && reader !== undefined && !existsSync(absolute)) throw new Error(`no SQLite database at ${absolute}`);
          if (absolute !== ':memory:') mkdirSync(dirname(absolute), { recursive: true });
          return { filename: absolute };
        },
        useNullAsDefault: true,
        // knex cannot see the filename inside a connection function and warns on every boot;
        // that one warning is expected, anything else goes to the logger.
        log: knexLog(logger, (message) => typeof message === 'string' && message.includes('connection.filename')),
        // One connection: a query that waits this long is starved (a deadlock bug), not slow.
        acquireConnectionTimeout: 10_000,
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: { pragma(sql: string): unknown; prepare(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
            try {
              for (const pragma of pragmas) conn.pragma(pragma);
              done(null, cachePreparedStatements(conn));
            } catch (err) {
              done(err as Error, conn);
            }
          },
        },
      },
    };
  }
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  return {
    kind: 'postgres',
    description: maskDatabasePassword(url.toString()),
    file: null,
    knexConfig: {
      client: 'pg',
      connection: url.toString(),
      pool: { min: 0, max: poolMax },
      acquireConnectionTimeout: 10_000,
      log: knexLog(logger),
      ...(schema ? { searchPath: [schema] } : {}),
    },
  };
}

export interface Connection {
  knex: Knex;
  dialect: Dialect;
  description: string;
  /** The database file of a file database (SQLite); null for a server. */
  file: string | null;
}

/**
 * knex's own messages (a failed connection attempt with its stack, a deprecation) as log lines:
 * by default knex prints them as coloured plain text with console.log, which breaks a JSON log
 * stream. The first line of the message is `detail`, any further lines (a stack) `stack`.
 */
export function knexLog(logger: Logger, ignore: (message: unknown) => boolean = () => false): NonNullable<Knex.Config['log']> {
  const forward = (level: 'debug' | 'warn' | 'error', what: string) => (message: unknown) => {
    if (ignore(message)) return;
    if (typeof message === 'string') {
      const [detail, ...rest] = message.split('\n');
      const stack = rest.join('\n').trim();
      logger[level](what, { detail, ...(stack !== '' ? { stack } : {}) });
    } else {
      logger[level](what, { detail: message });
    }
  };
  return {
    warn: forward('warn', 'database driver warning'),
    error: forward('error', 'database driver error'),
    deprecate: forward('warn', 'database driver deprecation'),
    debug: forward('debug', 'database driver debug'),
  };
}

/**
 * A Postgres URL with its password replaced by `***` (unchanged without one, and for other
 * schemes): what may be shown or handed on while the pool keeps the real URL.
 */
export function maskDatabasePassword(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password === '') return databaseUrl;
    url.password = '***';
    return url.toString();
  } catch {
    // Not a URL core would connect to either; nothing that looks like a password is passed on.
    return databaseUrl.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** knex loads its driver with `require` from its own folder: resolve it the same way, without loading it. */
const fromKnex = createRequire(createRequire(import.meta.url).resolve('knex'));
function driverInstalled(driver: string): boolean {
  try {
    fromKnex.resolve(driver);
    return true;
  } catch {
    return false;
  }
}

/** A knex instance for DATABASE_URL; knex's own messages go to `logger` (JSON lines on stdout by default). */
export function connect(databaseUrl: string, poolMax?: number, logger: Logger = createJsonLogger(), options: ConnectOptions = {}): Connection {
  const target = parseDatabaseUrl(databaseUrl, poolMax, logger, options);
  // The drivers are optional peer dependencies, so a host may have installed only the other one.
  // Asked before knex is built: knex would log the failed load with its stack, then throw.
  const driver = target.knexConfig.client as string;
  if (!driverInstalled(driver)) {
    throw new BootError([`DATABASE_URL is a ${target.kind} database (${target.description}) but its driver is not installed: run \`npm install ${driver}\``]);
  }
  const knex = knexFactory(target.knexConfig);
  return { knex, dialect: dialectFor(target.kind), description: target.description, file: target.file };
}
