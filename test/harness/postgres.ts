import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The Postgres side of the harness: one fresh database per test run (dropped at the end), one
 * fresh schema per backend inside it. An unreachable server is a failure, never a skip.
 */
export const PG_ADMIN_URL = process.env.WALLET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let runDatabase: Promise<{ name: string; url: URL }> | undefined;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`Postgres is not reachable at ${url} (set WALLET_TEST_PG_URL): ${(err as Error).message}`);
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function runDb(): Promise<{ name: string; url: URL }> {
  runDatabase ??= (async () => {
    const name = `wallet_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await withClient(PG_ADMIN_URL, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return { name, url };
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

/** Drops this run's database, if one was made. */
export async function dropRunDatabase(): Promise<void> {
  if (runDatabase === undefined) return;
  const { name } = await runDatabase;
  runDatabase = undefined;
  await withClient(PG_ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
