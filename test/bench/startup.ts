/**
 * `npm run bench:startup`: how long the reference server takes from `node …` to its first 200
 * on GET /api/v1/health, beside the bench's bare Koa + knex server (test/bench/bare-server.ts)
 * in the same run (issue 35: ours at most 1.2× the bare server's time).
 *
 * Both run as plain JavaScript with the Node flags of `npm run start:prod`: the wallet from
 * examples/server/dist (built by `tsc -b`), the bare server bundled by esbuild (http/bare-bundle.ts:
 * its own few modules one file, its npm dependencies left as imports, so both resolve koa, knex
 * and the drivers from node_modules the same way). Per dialect, on a
 * database the wallet migrated once before timing, rounds alternate who starts first; each start
 * is timed to the first 200 (polled every 5 ms on a new connection) together with the CPU the
 * process had used by then (/proc), then the process is stopped with SIGTERM.
 *
 *   npm run bench:startup                          # 10 rounds, both dialects
 *   BENCH_STARTUP_ROUNDS=20 BENCH_DIALECTS=sqlite npm run bench:startup
 *
 * Prints medians per server and the ratio; exits non-zero only on errors (a server that exits or
 * never answers), not on FAIL. Postgres: a scratch database on the tests' server (WALLET_TEST_PG_URL).
 * `runStartupBench()` is imported by test/bench/startup-smoke.test.ts (2 rounds).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scratchPostgresDatabase } from '../harness/postgres.js';
import { freePort, REPO_ROOT, serverNodeFlags } from '../harness/processes.js';
import { bareServerBundle } from './http/bare-bundle.js';
import { cpuMs, walletEnv } from './http/children.js';
import { median } from './median.js';

const TARGET = 1.2;

/** One GET /api/v1/health on a fresh connection: its status, or 0 when nothing answers yet. */
function health(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/v1/health', agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

interface Start {
  ms: number;
  cpuMs: number;
}

/** Starts `file` with the start:prod flags, times it to the first 200, then stops it. */
async function timeStart(name: string, file: string, env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...serverNodeFlags(), file], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it answered:\n${stderr}`);
      if (performance.now() - started > 30_000) throw new Error(`${name}: no 200 on /health within 30 s:\n${stderr}`);
      if ((await health(port)) === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { ms: performance.now() - started, cpuMs: cpuMs(child.pid!) ?? Number.NaN };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

export interface StartupOptions {
  rounds: number;
  dialects: string[];
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** The result table (default: stdout). */
  print?: (text: string) => void;
}

export interface StartupRow {
  dialect: string;
  wallet_ms: number;
  bare_ms: number;
  ratio: number;
  wallet_cpu_ms: number;
  bare_cpu_ms: number;
  cpu_ratio: number;
  verdict: string;
}

async function benchDialect(dialect: string, databaseUrl: string, dataDir: string, bare: string, rounds: number, progress: (line: string) => void): Promise<StartupRow> {
  const wallet = join(REPO_ROOT, 'examples/server/dist/main.js');
  const env = walletEnv(databaseUrl, 'http://127.0.0.1:1', dataDir);
  // Migrations run once, untimed: a restart finds the schema current.
  await timeStart('wallet (migrating)', wallet, env);
  const times: Record<'wallet' | 'bare', Start[]> = { wallet: [], bare: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['wallet', 'bare'] as const) : (['bare', 'wallet'] as const);
    for (const who of order) times[who].push(await timeStart(who, who === 'wallet' ? wallet : bare, env));
    progress(`  ${dialect} round ${round + 1}: wallet ${times.wallet.at(-1)!.ms.toFixed(0)} ms, bare ${times.bare.at(-1)!.ms.toFixed(0)} ms`);
  }
  const of = (who: 'wallet' | 'bare') => ({ ms: median(times[who].map((t) => t.ms)), cpuMs: median(times[who].map((t) => t.cpuMs)) });
  const w = of('wallet');
  const b = of('bare');
  const ratio = w.ms / b.ms;
  return {
    dialect,
    wallet_ms: Math.round(w.ms),
    bare_ms: Math.round(b.ms),
    ratio: Number(ratio.toFixed(2)),
    wallet_cpu_ms: Math.round(w.cpuMs),
    bare_cpu_ms: Math.round(b.cpuMs),
    cpu_ratio: Number((w.cpuMs / b.cpuMs).toFixed(2)),
    verdict: `${ratio <= TARGET ? 'PASS' : 'FAIL'} (≤ ${TARGET}×)`,
  };
}

/** The whole bench (both dialects as asked); prints its table and returns the rows. */
export async function runStartupBench(options: StartupOptions): Promise<StartupRow[]> {
  const { rounds } = options;
  if (!Number.isSafeInteger(rounds) || rounds < 2) throw new Error('rounds must be a whole number of at least 2');
  const progress = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const bundle = await bareServerBundle('startup');
  const bare = bundle.server;
  const scratch = mkdtempSync(join(tmpdir(), 'wallet-bench-startup-'));
  try {
    const rows: StartupRow[] = [];
    for (const dialect of options.dialects) {
      progress(`${dialect}: ${rounds} rounds, who starts first alternates`);
      if (dialect === 'sqlite') {
        rows.push(await benchDialect('sqlite', `sqlite:${join(scratch, 'startup.db')}`, join(scratch, 'data-sqlite'), bare, rounds, progress));
        continue;
      }
      if (dialect !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${dialect}`);
      const database = await scratchPostgresDatabase();
      try {
        rows.push(await benchDialect('postgres', database.url, join(scratch, 'data-pg'), bare, rounds, progress));
      } finally {
        await database.drop();
      }
    }
    const print = options.print ?? ((text: string) => process.stdout.write(text));
    print(`Startup to the first 200 on /health: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rounds} rounds per dialect, medians; flags ${serverNodeFlags().join(' ')}\n`);
    const columns = Object.keys(rows[0] ?? {}) as Array<keyof StartupRow>;
    print(`${columns.join('  ')}\n${rows.map((row) => columns.map((column) => String(row[column])).join('  ')).join('\n')}\n`);
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    bundle.remove();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runStartupBench({
    rounds: Number(process.env.BENCH_STARTUP_ROUNDS ?? 10),
    dialects: (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').filter(Boolean),
  });
}
