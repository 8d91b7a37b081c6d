import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { appliedMigrations, LEDGER_TABLE, type WalletBackend } from '@wallet/backend-core';
import { loadServerConfig } from '@wallet/server';
import { openBackend, requireMigrated, withBackend } from '../backend.js';
import { CliFailure, printJson, usageError, type CliIo } from '../io.js';

/** `backup --json`. */
export interface BackupJson {
  file: string;
  dialect: 'sqlite' | 'postgres';
  bytes: number;
  migrations: number;
  seconds: number;
}

/** `backup verify --json`: `ok` false comes with `problems`. */
export interface BackupVerifyJson {
  file: string;
  format: 'sqlite' | 'pg_dump';
  ok: boolean;
  migrations: number;
  /** Audit entries that verified; null for a pg_dump file (its chain is checked by `restore`). */
  audit_entries: number | null;
  problems: string[];
}

/** `restore --json`. */
export interface RestoreJson {
  file: string;
  dialect: 'sqlite' | 'postgres';
  migrations: number;
  audit_entries: number;
  seconds: number;
}

type Format = 'sqlite' | 'pg_dump';

const SQLITE_MAGIC = 'SQLite format 3\0';
const PG_DUMP_MAGIC = 'PGDMP';

/** The backup's format from its first bytes, so a file needs no side-car telling what it is. */
function formatOf(file: string): Format {
  if (!existsSync(file)) throw usageError(`${file} does not exist`);
  if (!statSync(file).isFile()) throw usageError(`${file} is not a regular file`);
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === SQLITE_MAGIC) return 'sqlite';
  if (head.subarray(0, 5).toString('latin1') === PG_DUMP_MAGIC) return 'pg_dump';
  throw new CliFailure(`${file} is neither an SQLite database nor a pg_dump custom-format archive`, []);
}

/** The environment of the CLI pointed at another database (a scratch copy); the other settings stay. */
function envWithDatabase(io: CliIo, databaseUrl: string): CliIo {
  const env: CliIo['env'] = { ...io.env, DATABASE_URL: databaseUrl };
  delete env.DATABASE_URL_FILE;
  return { ...io, env };
}

/** The database URL the server would use (DATABASE_URL or DATABASE_URL_FILE). */
function configuredDatabaseUrl(io: CliIo): string {
  return String(loadServerConfig(io.env).backend.databaseUrl);
}

function sqlitePathOf(databaseUrl: string): string {
  return resolve(databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
}

function scratchDir(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'wallet-backup-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The ledger ids this version of the backend knows (core's and every configured plugin's), from
 * a backend booted on this configuration without a connection: the ids do not depend on the
 * database (a scratch SQLite path stands in for DATABASE_URL, which need not be set to verify).
 */
async function knownMigrations(io: CliIo): Promise<Set<string>> {
  const scratch = scratchDir();
  try {
    const backend = await openBackend(envWithDatabase({ ...io, err: () => undefined }, `sqlite:${join(scratch.path, 'known.db')}`), { connect: false });
    try {
      return new Set(backend.expectedMigrations());
    } finally {
      await backend.close();
    }
  } finally {
    scratch.remove();
  }
}

/** The ledger ids of `applied` that are not in `known`. */
const unknownOf = (applied: readonly string[], known: ReadonlySet<string>) => applied.filter((id) => !known.has(id));

/** Refuses a backup made by a newer version: this one could neither run on it nor migrate it. */
function refuseUnknown(unknown: readonly string[]): void {
  if (unknown.length > 0) {
    throw new CliFailure(`the backup has ${unknown.length} migration${unknown.length === 1 ? '' : 's'} this version does not know: restore it with the version that made it, or a newer one`, unknown);
  }
}

// ---------------------------------------------------------------------------------------------
// Postgres: pg_dump and pg_restore, with the connection in their environment.

interface PgTarget {
  env: Record<string, string>;
  database: string;
  /** `--dbname` for pg_restore: a connection string naming the database alone (a bare name holding `=` would be read as one). */
  dbname: string;
  schema: string | undefined;
  remove: () => void;
}

/**
 * What the CLI's environment passes on to pg_dump and pg_restore: the locale, the time zone, where
 * programs and temp files are. Nothing else: DATABASE_URL (with its password), the app's secrets
 * and their *_FILE paths would be readable in /proc/<pid>/environ of the child.
 */
const PASSED_TO_PG = /^(PATH|HOME|LANG|LC_[A-Z_]+|TZ|TMPDIR)$/;

/** The variables of the CLI's environment that pass on to pg_dump and pg_restore (PASSED_TO_PG). */
function passedEnv(io: CliIo): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined && PASSED_TO_PG.test(key)) env[key] = value;
  return env;
}

/**
 * The libpq environment for `databaseUrl` (the passed-on variables of the CLI's environment, plus
 * PGHOST, PGPORT, PGUSER, PGDATABASE, the SSL settings and PGPASSFILE). The password goes into a
 * PGPASSFILE (mode 0600, in a private temp directory, removed afterwards): never on a command
 * line, where `ps` shows it, nor in the environment.
 */
function pgTarget(databaseUrl: string, io: CliIo): PgTarget {
  const url = new URL(databaseUrl);
  const env = passedEnv(io);
  env.PGHOST = url.searchParams.get('host') ?? decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ''));
  if (url.port !== '') env.PGPORT = url.port;
  if (url.username !== '') env.PGUSER = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || env.PGUSER || 'postgres';
  env.PGDATABASE = database;
  for (const [param, variable] of [['sslmode', 'PGSSLMODE'], ['sslrootcert', 'PGSSLROOTCERT'], ['sslcert', 'PGSSLCERT'], ['sslkey', 'PGSSLKEY']] as const) {
    const value = url.searchParams.get(param);
    if (value !== null) env[variable] = value;
  }
  env.PGAPPNAME = 'wallet-backend-backup';
  let remove = () => undefined as void;
  if (url.password !== '') {
    const dir = scratchDir();
    const escaped = decodeURIComponent(url.password).replace(/[\\:]/g, (c) => `\\${c}`);
    const passfile = join(dir.path, 'pgpass');
    writeFileSync(passfile, `*:*:*:*:${escaped}\n`, { mode: 0o600 });
    env.PGPASSFILE = passfile;
    remove = dir.remove;
  }
  const dbname = `dbname='${database.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  return { env, database, dbname, schema: url.searchParams.get('schema') ?? undefined, remove };
}

/** Runs a PostgreSQL client program; stderr lines go to `onLine`. A missing program is a clear failure. */
function runPg(program: 'pg_dump' | 'pg_restore', args: string[], env: Record<string, string>, onLine: (line: string) => void = () => undefined): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ENOENT'
          ? new CliFailure(`${program} is not installed (or not on PATH): install the PostgreSQL client programs of your server's major version or newer (Debian: apt-get install postgresql-client)`, [])
          : err,
      );
    });
    child.on('close', (code) => {
      if (code === 0) return resolvePromise({ stdout, stderr });
      const detail = stderr.split('\n').filter((line) => line.trim() !== '' && !/: (dumping|reading|identifying|saving|finding|flagging|last built-in|processing|creating|connecting|executing|implied)/.test(line));
      reject(new CliFailure(`${program} failed (exit code ${code})`, detail.slice(-10)));
    });
  });
}

/** Quotes a name for pg_dump's `--schema` pattern, so it is matched exactly. */
const exactPattern = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The schema the backend's tables live in: `?schema=`, else the connection's current schema. */
async function schemaOf(backend: WalletBackend, target: PgTarget): Promise<string> {
  if (target.schema !== undefined) return target.schema;
  const { rows } = (await backend.db.knex.raw('select current_schema() as schema')) as { rows: { schema: string | null }[] };
  return rows[0]?.schema ?? 'public';
}

/** The archive's table of contents: the schema it holds and whether it carries the ledger's data. */
async function pgDumpContents(file: string, env: Record<string, string>): Promise<{ schema: string; tables: number; list: string }> {
  const { stdout } = await runPg('pg_restore', ['--list', file], env);
  const tableEntries = [...stdout.matchAll(/^\d+; \d+ \d+ TABLE (?!DATA )(\S+) (\S+) /gm)];
  const schemas = new Set(tableEntries.map((m) => m[1]!));
  if (schemas.size !== 1) throw new CliFailure(`${file} holds ${schemas.size === 0 ? 'no tables' : `tables of ${schemas.size} schemas`}: it was not made by \`wallet-backend backup\``, []);
  if (!tableEntries.some((m) => m[2] === LEDGER_TABLE)) throw new CliFailure(`${file} has no ${LEDGER_TABLE} table: it is not a backup of a migrated Wallet Backend database`, []);
  return { schema: [...schemas][0]!, tables: tableEntries.length, list: stdout };
}

/** The ledger ids in a pg_dump archive, read from the ledger table's COPY data. */
async function pgDumpMigrations(file: string, schema: string, env: Record<string, string>): Promise<string[]> {
  const { stdout } = await runPg('pg_restore', ['--data-only', `--schema=${schema}`, `--table=${LEDGER_TABLE}`, '--file=-', file], env);
  const copy = /^COPY \S+ \(([^)]*)\) FROM stdin;\n([\s\S]*?)^\\\.$/m.exec(stdout);
  if (copy === null) return [];
  const idColumn = copy[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, '')).indexOf('id');
  return copy[2]!.split('\n').filter((line) => line !== '').map((line) => line.split('\t')[idColumn]!);
}

// ---------------------------------------------------------------------------------------------

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const seconds = (started: number) => Math.round((performance.now() - started) / 100) / 10;

/**
 * `wallet-backend backup <file>`: a consistent copy of the database while the server runs.
 * SQLite: `VACUUM INTO`, one read transaction (a snapshot; WAL lets the server keep writing).
 * Postgres: `pg_dump --format=custom` of the backend's schema, one repeatable-read snapshot.
 * Written to a temporary name next to `file` (mode 0600) and renamed when complete, so a failed
 * backup never leaves a file that looks like one.
 */
export async function backupCommand(io: CliIo, file: string, options: { force?: boolean; json?: boolean } = {}): Promise<void> {
  const target = resolve(file);
  if (existsSync(target) && !options.force) throw usageError(`${file} exists: pass --force to overwrite it`);
  if (!existsSync(dirname(target))) throw usageError(`${dirname(target)} does not exist`);
  const databaseUrl = configuredDatabaseUrl(io);
  const backend = await openBackend(io);
  const partial = join(dirname(target), `.${basename(target)}.partial-${randomBytes(4).toString('hex')}`);
  const started = performance.now();
  try {
    await requireMigrated(backend, LEDGER_TABLE);
    const migrations = (await appliedMigrations(backend.db.knex)).length;
    const dialect = backend.db.dialect.kind;
    if (dialect === 'sqlite') {
      const path = sqlitePathOf(databaseUrl);
      const size = statSync(path).size;
      io.err(`backing up sqlite:${path} (${mebibytes(size)} plus its WAL) into ${target}…`);
      // Created empty first so the copy is never readable by others, even while it is written.
      writeFileSync(partial, '', { mode: 0o600 });
      await backend.db.knex.raw('VACUUM INTO ?', [partial]);
    } else {
      const pg = pgTarget(databaseUrl, io);
      try {
        const schema = await schemaOf(backend, pg);
        io.err(`backing up schema "${schema}" of database "${pg.database}" with pg_dump into ${target}…`);
        writeFileSync(partial, '', { mode: 0o600 });
        let tables = 0;
        await runPg('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', '--verbose', `--schema=${exactPattern(schema)}`, `--file=${partial}`], pg.env, (line) => {
          const table = /dumping contents of table "([^"]+)"/.exec(line)?.[1];
          if (table !== undefined && ++tables % 10 === 0) io.err(`  ${tables} tables dumped (now ${table})…`);
        });
      } finally {
        pg.remove();
      }
    }
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    const bytes = statSync(target).size;
    const took = seconds(started);
    if (options.json) {
      const document: BackupJson = { file: target, dialect, bytes, migrations, seconds: took };
      printJson(io, document);
    } else {
      io.out(`backup written: ${target} (${dialect}, ${mebibytes(bytes)}, ${migrations} migrations, ${took} s)`);
    }
  } finally {
    rmSync(partial, { force: true });
    await backend.close();
  }
}

interface Verdict {
  format: Format;
  migrations: string[];
  /** The migrations this version does not know (a backup made by a newer one). */
  unknown: string[];
  auditEntries: number | null;
  problems: string[];
}

/** Opens a copy of an SQLite backup as a backend (the backup itself is never opened for writing) and checks it. */
async function verifySqlite(io: CliIo, file: string, keep?: (scratchFile: string) => Promise<void>): Promise<Verdict> {
  const scratch = scratchDir();
  try {
    const copy = join(scratch.path, 'backup.db');
    copyFileSync(file, copy);
    io.err(`checking ${file} (${mebibytes(statSync(file).size)})…`);
    const backend = await openBackend(envWithDatabase(io, `sqlite:${copy}`));
    const problems: string[] = [];
    let migrations: string[] = [];
    let unknown: string[] = [];
    let auditEntries: number | null = null;
    try {
      const integrity = (await backend.db.knex.raw('PRAGMA integrity_check')) as { integrity_check: string }[];
      if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') problems.push(`integrity_check: ${integrity.slice(0, 5).map((r) => r.integrity_check).join('; ')}`);
      const foreign = (await backend.db.knex.raw('PRAGMA foreign_key_check')) as unknown[];
      if (foreign.length > 0) problems.push(`foreign_key_check: ${foreign.length} row${foreign.length === 1 ? '' : 's'} point at nothing`);
      if (!(await backend.db.knex.schema.hasTable(LEDGER_TABLE))) {
        problems.push(`no ${LEDGER_TABLE} table: not a backup of a migrated Wallet Backend database`);
      } else {
        migrations = await appliedMigrations(backend.db.knex);
        unknown = unknownOf(migrations, new Set(backend.expectedMigrations()));
        if (unknown.length > 0) problems.push(`migrations this version does not know: ${unknown.join(', ')}`);
        else if (await backend.db.knex.schema.hasTable('admin_audit')) {
          const audit = await backend.setup.verifyAudit({ full: true, onProgress: (checked) => io.err(`  checked ${checked} audit entries…`) });
          auditEntries = audit.entries;
          if (!audit.ok) problems.push(`audit chain broken at seq ${audit.brokenAt}: ${audit.reason}`);
        }
      }
    } finally {
      await backend.close();
    }
    if (problems.length === 0 && keep !== undefined) await keep(copy);
    return { format: 'sqlite', migrations, unknown, auditEntries, problems };
  } finally {
    scratch.remove();
  }
}

async function verifyPgDump(io: CliIo, file: string, known: ReadonlySet<string>): Promise<Verdict & { schema: string; list: string }> {
  // Reading an archive needs no server: the libpq variables are irrelevant here.
  const env = passedEnv(io);
  io.err(`checking ${file} (${mebibytes(statSync(file).size)}) with pg_restore --list…`);
  const contents = await pgDumpContents(file, env);
  const migrations = await pgDumpMigrations(file, contents.schema, env);
  const problems: string[] = [];
  if (migrations.length === 0) problems.push(`${LEDGER_TABLE} holds no migration`);
  const unknown = unknownOf(migrations, known);
  if (unknown.length > 0) problems.push(`migrations this version does not know: ${unknown.join(', ')}`);
  return { format: 'pg_dump', migrations, unknown, auditEntries: null, problems, schema: contents.schema, list: contents.list };
}

/**
 * `wallet-backend backup verify <file>`: SQLite, on a scratch copy: integrity_check,
 * foreign_key_check, the ledger (every migration known to this version) and the audit chain
 * (which needs ADMIN_KEY_INTEGRITY_SECRET). pg_dump: the archive's table of contents and its
 * ledger; the audit chain of a dump is checked by `restore`, once it is in a database.
 */
export async function backupVerifyCommand(io: CliIo, file: string, options: { json?: boolean } = {}): Promise<void> {
  const format = formatOf(file);
  const verdict = format === 'sqlite' ? await verifySqlite(io, file) : await verifyPgDump(io, file, await knownMigrations(io));
  if (options.json) {
    const document: BackupVerifyJson = { file: resolve(file), format, ok: verdict.problems.length === 0, migrations: verdict.migrations.length, audit_entries: verdict.auditEntries, problems: verdict.problems };
    printJson(io, document);
  }
  if (verdict.problems.length > 0) throw new CliFailure(`backup ${file} failed verification`, verdict.problems);
  if (!options.json) {
    const audit = verdict.auditEntries === null ? 'audit chain checked at restore' : `audit chain intact, ${verdict.auditEntries} entr${verdict.auditEntries === 1 ? 'y' : 'ies'}`;
    io.out(`backup ok: ${file} (${format}, ${verdict.migrations.length} migrations, ${audit})`);
  }
}

/** Tables in the target; a restore goes into an empty database unless --force. */
async function userTables(backend: WalletBackend, schema: string | undefined): Promise<number> {
  if (backend.db.dialect.kind === 'sqlite') {
    const rows = (await backend.db.knex.raw("select count(*) as n from sqlite_master where type = 'table' and name not like 'sqlite_%'")) as { n: number }[];
    return Number(rows[0]!.n);
  }
  const { rows } = (await backend.db.knex.raw('select count(*) as n from information_schema.tables where table_schema = ?', [schema!])) as { rows: { n: string }[] };
  return Number(rows[0]!.n);
}

/** The database connection's better-sqlite3 class, reached through knex: the CLI does not depend on the driver itself. */
type SqliteHandle = { backup(destination: string): Promise<unknown>; close(): void; pragma(sql: string): unknown; exec(sql: string): unknown; prepare(sql: string): { get(): unknown } };
async function sqliteDriver(backend: WalletBackend): Promise<new (file: string) => SqliteHandle> {
  const client = backend.db.knex.client as { acquireConnection(): Promise<object>; releaseConnection(c: object): Promise<void> };
  const connection = await client.acquireConnection();
  await client.releaseConnection(connection);
  return connection.constructor as new (file: string) => SqliteHandle;
}

/**
 * Refuses an SQLite database another connection has open (the server, idle or not; a backup; a
 * `sqlite3` shell): with locking_mode EXCLUSIVE, the first read needs the database to itself,
 * which in WAL mode fails while any other connection has it open, and no busy timeout waits.
 */
function refuseSqliteInUse(Driver: new (file: string) => SqliteHandle, target: string): void {
  if (!existsSync(target)) return;
  const db = new Driver(target);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.prepare('select count(*) from sqlite_master').get();
    db.exec('ROLLBACK');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new CliFailure(`the database at DATABASE_URL (sqlite:${target}) is in use by another process: stop the server (and anything else that has it open) first; nothing was restored`, []);
    }
    throw err;
  } finally {
    db.close();
  }
}

/** The restored database, through the backend: the ledger and the audit chain. */
async function checkRestored(io: CliIo, file: string, consequence: string): Promise<{ migrations: number; auditEntries: number }> {
  return withBackend(io, LEDGER_TABLE, async (restored) => {
    const migrations = (await appliedMigrations(restored.db.knex)).length;
    const audit = await restored.setup.verifyAudit({ full: true, onProgress: (checked) => io.err(`  checked ${checked} audit entries…`) });
    if (!audit.ok) throw new CliFailure(`backup ${file} failed verification: the audit chain is broken at seq ${audit.brokenAt}; ${consequence}`, [audit.reason, 'is ADMIN_KEY_INTEGRITY_SECRET the one the backup was made with?']);
    return { migrations, auditEntries: audit.entries };
  });
}

/** Drops every table, view and sequence in `schema` (a target that was empty before a failed restore). */
async function dropSchemaContents(backend: WalletBackend, schema: string): Promise<void> {
  const { rows } = (await backend.db.knex.raw("select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')", [schema])) as { rows: { name: string; kind: string }[] };
  const kinds: Record<string, string> = { r: 'TABLE', p: 'TABLE', f: 'FOREIGN TABLE', v: 'VIEW', m: 'MATERIALIZED VIEW', S: 'SEQUENCE' };
  for (const { name, kind } of rows) await backend.db.knex.raw(`DROP ${kinds[kind]!} IF EXISTS ??.?? CASCADE`, [schema, name]);
}

/**
 * `wallet-backend restore <file>`: into the database at DATABASE_URL, which must be empty
 * (unless --force) and must not be in use: stop the server first. The backup is verified first;
 * one whose migrations are newer than this version is refused, and so is one whose audit chain
 * does not verify with this ADMIN_KEY_INTEGRITY_SECRET, before the target's contents are given up.
 *
 * SQLite: the backup is verified on a scratch copy (audit chain included); the target must not be
 * open in another process; SQLite's backup API then replaces the target file's whole contents.
 *
 * Postgres: `pg_restore` in one transaction into the same schema name. With --force, the target
 * schema is first renamed aside (a catalog change, undone on failure) and an empty one created,
 * so nothing of the old contents survives (not even a table of a newer migration that the backup
 * does not know); once the restored audit chain verifies, the old schema is dropped. A failure
 * (pg_restore's, or a chain that does not verify) drops what was restored and renames the old
 * schema back.
 */
export async function restoreCommand(io: CliIo, file: string, options: { force?: boolean; json?: boolean } = {}): Promise<void> {
  const format = formatOf(file);
  const databaseUrl = configuredDatabaseUrl(io);
  const started = performance.now();
  const backend = await openBackend(io);
  const dialect = backend.db.dialect.kind;
  let closed = false;
  const close = async () => {
    if (!closed) await backend.close();
    closed = true;
  };
  let result: { migrations: number; auditEntries: number };
  try {
    if ((format === 'sqlite') !== (dialect === 'sqlite')) {
      throw new CliFailure(`${file} is a ${format === 'sqlite' ? 'SQLite' : 'Postgres (pg_dump)'} backup but DATABASE_URL is a ${dialect} database: there is no conversion between them`, []);
    }
    const refuseNonEmpty = (tables: number) => {
      if (tables > 0 && !options.force) {
        throw new CliFailure(`the database at DATABASE_URL is not empty (${tables} table${tables === 1 ? '' : 's'}): restore into an empty database, or pass --force to replace its contents`, []);
      }
    };
    if (format === 'sqlite') {
      refuseNonEmpty(await userTables(backend, undefined));
      const Driver = await sqliteDriver(backend);
      await close();
      const target = sqlitePathOf(databaseUrl);
      refuseSqliteInUse(Driver, target);
      const verdict = await verifySqlite(io, file, async (copy) => {
        // Again just before the copy: the verification may have taken a while.
        refuseSqliteInUse(Driver, target);
        io.err(`restoring into sqlite:${target}…`);
        const source = new Driver(copy);
        try {
          await source.backup(target);
        } finally {
          source.close();
        }
      });
      if (verdict.problems.length > 0) {
        refuseUnknown(verdict.unknown);
        throw new CliFailure(`backup ${file} failed verification: nothing was restored`, verdict.problems);
      }
      result = await checkRestored(io, file, 'it was restored nonetheless');
    } else {
      const pg = pgTarget(databaseUrl, io);
      const scratch = scratchDir();
      try {
        const dump = await verifyPgDump(io, file, new Set(backend.expectedMigrations()));
        refuseUnknown(dump.unknown);
        if (dump.problems.length > 0) throw new CliFailure(`backup ${file} failed verification: nothing was restored`, dump.problems);
        const schema = await schemaOf(backend, pg);
        if (schema !== dump.schema) {
          throw new CliFailure(`${file} holds schema "${dump.schema}" but DATABASE_URL points at schema "${schema}": pg_restore cannot rename a schema; set ?schema=${dump.schema} in DATABASE_URL`, []);
        }
        const tables = await userTables(backend, schema);
        refuseNonEmpty(tables);
        const { rows } = (await backend.db.knex.raw('select count(*) as n from pg_namespace where nspname = ?', [schema])) as { rows: { n: string }[] };
        const schemaExisted = Number(rows[0]!.n) > 0;
        // --force: the current contents go aside, whole, until the restored backup has verified.
        const aside = tables > 0 ? `wallet_pre_restore_${randomBytes(4).toString('hex')}` : undefined;
        if (aside !== undefined) {
          io.err(`moving schema "${schema}" aside as "${aside}" until the restore has verified (if this is interrupted, the previous contents are there)…`);
          await backend.db.knex.transaction(async (trx) => {
            await trx.raw('ALTER SCHEMA ?? RENAME TO ??', [schema, aside]);
            await trx.raw('CREATE SCHEMA ??', [schema]);
          });
        }
        try {
          // An existing schema (public, one made beforehand, the fresh one above) is kept: its CREATE SCHEMA entry is left out.
          const list = join(scratch.path, 'restore.list');
          writeFileSync(list, dump.list.split('\n').filter((line) => !((schemaExisted || aside !== undefined) && / SCHEMA - /.test(line))).join('\n'));
          io.err(`restoring into schema "${schema}" of database "${pg.database}" with pg_restore…`);
          await runPg('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--use-list=${list}`, `--dbname=${pg.dbname}`, file], pg.env);
          result = await checkRestored(io, file, aside === undefined ? 'what was restored was dropped again' : 'the database was left as it was');
        } catch (err) {
          // Undone: what was restored goes, and the previous contents come back.
          try {
            if (aside !== undefined) {
              await backend.db.knex.transaction(async (trx) => {
                await trx.raw('DROP SCHEMA ?? CASCADE', [schema]);
                await trx.raw('ALTER SCHEMA ?? RENAME TO ??', [aside, schema]);
              });
            } else if (!schemaExisted) {
              await backend.db.knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
            } else {
              await dropSchemaContents(backend, schema);
            }
          } catch (undo) {
            const where = aside === undefined ? '' : `: the previous contents are in schema "${aside}" (drop schema "${schema}", then rename "${aside}" to "${schema}")`;
            throw new CliFailure(`the restore failed and could not be undone${where}`, [err instanceof Error ? err.message : String(err), `undoing: ${undo instanceof Error ? undo.message : String(undo)}`]);
          }
          throw err;
        }
        if (aside !== undefined) await backend.db.knex.raw('DROP SCHEMA ?? CASCADE', [aside]);
      } finally {
        pg.remove();
        scratch.remove();
      }
    }
  } finally {
    await close();
  }
  const took = seconds(started);
  if (options.json) {
    const document: RestoreJson = { file: resolve(file), dialect, migrations: result.migrations, audit_entries: result.auditEntries, seconds: took };
    printJson(io, document);
  } else {
    io.out(`restored ${file} into the ${dialect} database at DATABASE_URL (${result.migrations} migrations, audit chain intact: ${result.auditEntries} entr${result.auditEntries === 1 ? 'y' : 'ies'}, ${took} s)`);
  }
}
