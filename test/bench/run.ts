/**
 * `npm run bench`: the reference server against a bare Koa + knex server doing the same work,
 * on SQLite and on Postgres, driven by autocannon on /health and an authenticated /auth/me.
 * Prints requests/s, p99 latency and the ratio to the bare server; writes the figures to
 * test/bench/results/latest.json. BENCH_DURATION_SEC (default 10) and BENCH_CONNECTIONS
 * (default 10) tune it; the Postgres side uses WALLET_TEST_PG_URL like the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { createWalletBackend, silentLogger } from '@wallet/backend-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PG_ADMIN = process.env.WALLET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRETS = {
  jwtSecret: `bench-jwt-${randomBytes(24).toString('hex')}`,
  pepperSecret: `bench-pepper-${randomBytes(24).toString('hex')}`,
  ipHashSalt: `bench-ip-${randomBytes(24).toString('hex')}`,
  adminKeyIntegritySecret: `bench-admin-${randomBytes(24).toString('hex')}`,
  adminSessionSecret: `bench-admin-session-${randomBytes(24).toString('hex')}`,
};

interface Row {
  dialect: string;
  endpoint: string;
  server: 'wallet' | 'bare';
  rps: number;
  p99: number;
  ratio?: number;
}

const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

/** Starts a server process on `url` and resolves once its /api/v1/health answers. */
async function launch(args: string[], env: Record<string, string>, url: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ready: ${args.join(' ')}\n${errors}`);
    const ready = await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false);
    if (ready) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready in 30 s: ${args.join(' ')}\n${errors}`);
}

const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  child.kill('SIGKILL');
  children.delete(child);
}

async function load(url: string, token?: string): Promise<{ rps: number; p99: number }> {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers }); // warm-up
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { rps: Math.round(result.requests.average), p99: result.latency.p99 };
}

/** A user and a session on the server's database, minted with the server's secrets. */
async function mintToken(databaseUrl: string, publicApiUrl: string): Promise<string> {
  const backend = await createWalletBackend({ publicApiUrl, databaseUrl, ...SECRETS, logger: silentLogger, schedulerEnabled: false });
  try {
    const id = crypto.randomUUID();
    const now = backend.db.dialect.time(new Date());
    await backend.db.knex('users').insert({ id, username: 'bench', created_at: now, updated_at: now });
    return (await backend.sessions.start(id, 'extension')).access_token;
  } finally {
    await backend.close();
  }
}

async function benchDialect(dialect: 'sqlite' | 'postgres', databaseUrl: string, dataDir: string): Promise<Row[]> {
  const port = String(freePort());
  const publicApiUrl = `http://127.0.0.1:${port}`;
  const wallet = await launch(
    ['examples/server/dist/main.js'],
    {
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      PUBLIC_API_URL: publicApiUrl,
      JWT_SECRET: SECRETS.jwtSecret,
      PEPPER_SECRET: SECRETS.pepperSecret,
      IP_HASH_SALT: SECRETS.ipHashSalt,
      ADMIN_KEY_INTEGRITY_SECRET: SECRETS.adminKeyIntegritySecret,
      ADMIN_SESSION_SECRET: SECRETS.adminSessionSecret,
      // The default log level: the per-request line is part of the server's normal cost (stdout goes to /dev/null).
      RATE_LIMIT_MAX: '1000000',
      SCHEDULER_ENABLED: 'false',
    },
    publicApiUrl,
  );
  const rows: Row[] = [];
  try {
    const token = await mintToken(databaseUrl, publicApiUrl);
    const walletHealth = await load(`${wallet.url}/api/v1/health`);
    const walletMe = await load(`${wallet.url}/api/v1/auth/me`, token);
    await stop(wallet.child);
    const barePort = freePort();
    const bare = await launch(
      ['--import', 'tsx', 'test/bench/bare-server.ts'],
      { DATABASE_URL: databaseUrl, JWT_SECRET: SECRETS.jwtSecret, JWT_ISSUER: publicApiUrl, PORT: String(barePort) },
      `http://127.0.0.1:${barePort}`,
    );
    try {
      const bareHealth = await load(`${bare.url}/api/v1/health`);
      const bareMe = await load(`${bare.url}/api/v1/auth/me`, token);
      for (const [endpoint, mine, theirs] of [
        ['/health', walletHealth, bareHealth],
        ['/auth/me', walletMe, bareMe],
      ] as const) {
        rows.push({ dialect, endpoint, server: 'wallet', ...mine, ratio: Math.round((mine.rps / theirs.rps) * 100) / 100 });
        rows.push({ dialect, endpoint, server: 'bare', ...theirs, ratio: 1 });
      }
    } finally {
      await stop(bare.child);
    }
  } finally {
    await stop(wallet.child);
  }
  return rows;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'wallet-bench-'));
  const database = `wallet_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    rows.push(...(await benchDialect('sqlite', `sqlite:${join(scratch, 'bench.db')}`, join(scratch, 'data-sqlite'))));
    await admin.query(`CREATE DATABASE ${database}`);
    const pgUrl = new URL(PG_ADMIN);
    pgUrl.pathname = `/${database}`;
    rows.push(...(await benchDialect('postgres', pgUrl.toString(), join(scratch, 'data-pg'))));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    rmSync(scratch, { recursive: true, force: true });
  }

  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd([10, 10, 8, 9, 8, 6][i]!)).join(' ');
  process.stdout.write(`\n${CONNECTIONS} connections, ${DURATION} s per run (after a 2 s warm-up), node ${process.version}\n`);
  process.stdout.write(line(['dialect', 'endpoint', 'server', 'req/s', 'p99 ms', 'ratio']) + '\n');
  for (const r of rows) process.stdout.write(line([r.dialect, r.endpoint, r.server, String(r.rps), String(r.p99), r.ratio!.toFixed(2)]) + '\n');
  const out = join(ROOT, 'test/bench/results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'latest.json'), JSON.stringify({ at: new Date().toISOString(), connections: CONNECTIONS, durationSec: DURATION, node: process.version, rows }, null, 2) + '\n');
  process.stdout.write('written to test/bench/results/latest.json\n');
}

await main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
process.exit(0);
