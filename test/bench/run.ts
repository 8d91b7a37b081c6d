/**
 * `npm run bench`: the reference server (examples/server) against a bare Koa + knex server
 * (test/bench/bare-server.ts) doing the same queries, crypto and writes per endpoint, and what every
 * response owes (request id, no-store, a log line; checked by header names before the rounds), on
 * SQLite (a file database) and on Postgres (a fresh database created and dropped by the bench).
 *
 * How it runs: per dialect both servers are started (separate processes, same database; afresh
 * for every round unless BENCH_RESTART=off), each identified by its own ready line (the wallet's
 * `"msg":"listening"` JSON line naming the url, the bare server's `bare ready` line with its pid),
 * on ports bind-tested free just before. The wallet runs with its default log level; both
 * servers' stdout is read and discarded through a pipe, as a log collector would. For each round
 * and each endpoint, the two servers are loaded one after the other (the order alternates per round), each with a short warm-up,
 * then a measured autocannon run. Every answer must be 2xx: a non-2xx, an error or a timeout
 * fails the bench with the first bad body, as does a server that exits. Both servers run as plain
 * JavaScript (the wallet from examples/server/dist, the bare server bundled by esbuild:
 * http/bare-bundle.ts) with the same Node flags (`npm run start:prod`'s), and each one's RSS is
 * sampled during its runs, so the memory is set side by side too.
 *
 * Endpoints: /health, /auth/me, NIP-05, username lookup, user keys, refresh (one session per
 * connection, each rotated token chained into the next request), extension login (pre-signed
 * returning-user bodies, each (pubkey_hash, timestamp) used once), Grin relay create (fresh
 * slate_id per request) and a Grin scan page (against a GrinNodeFake serving the scan vectors).
 *
 * Output: a table (median req/s and [min–max] per server, median p99, the median CPU each
 * server process spent per request (from /proc), the wallet/bare ratio per round and its median,
 * PASS/FAIL against the targets; a FAIL does not change the exit code, only errors do) and JSON
 * with machine info, settings and every run's raw figures.
 *
 *   npm run bench                                   # builds (tsc -b), runs examples/server/dist
 *   BENCH_ROUNDS=1 BENCH_DURATION_SEC=2 npm run bench
 *
 * Environment:
 *   BENCH_ROUNDS         rounds per dialect (default 7: on a shared VM the same server's CPU per
 *                        request moves by a third between runs a minute apart, so the median of
 *                        many short paired runs is steadier than of a few long ones)
 *   BENCH_CONNECTIONS    autocannon connections (default 64)
 *   BENCH_DURATION_SEC   measured seconds per run (default 4; fractions allowed)
 *   BENCH_WARMUP_SEC     warm-up seconds before each run (default 1)
 *   BENCH_DIALECTS       sqlite,postgres (default both)
 *   BENCH_ENDPOINTS      comma list of endpoint ids (default all: health, me, nip05, username,
 *                        user-keys, refresh, extension, relay-create, grin-scan)
 *   BENCH_OUT            JSON output path (default test/bench/results/latest.json, gitignored)
 *   BENCH_WALLET_ENTRY   dist (default) or source (examples/server/src/main.ts through tsx)
 *   BENCH_WALLET_FLAGS   the wallet's Node flags (default: those of `npm run start:prod`)
 *   BENCH_WALLET_NODE_OPTIONS  NODE_OPTIONS for the wallet only (a memory experiment, say)
 *   BENCH_BARE_FLAGS     Node flags for the bare server instead of the wallet's (`--cpu-prof`, say;
 *                        empty: Node's defaults, as the runs before 2026-11-29 had)
 *   BENCH_RESTART        off: one process of each server per dialect for all rounds (to attach a
 *                        profiler, say); by default both are started afresh every round
 *   BENCH_BARE_PER_REQUEST  off: the bare server leaves out what every wallet response owes (the
 *                        request id header, no-store, a log line), as the runs before 2026-11-28
 *                        did; on (default): it does that work too, checked by header names
 *   WALLET_TEST_PG_URL   the Postgres admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 *
 * The orchestration is `runBench()`, imported by test/bench/bench-smoke.test.ts (1 round, ~1 s
 * runs, 4 connections, the wallet from source).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { FAKE_GRIN_SECRET, GrinNodeFake } from '../fakes/grin-node.js';
import { REPO_ROOT } from '../harness/processes.js';
import { bareServerBundle } from './http/bare-bundle.js';
import { bareNodeFlags, checkedPort, cpuMs, launchBare, launchWallet, sampleRss, walletNodeFlags, type ServerChild } from './http/children.js';
import { ENDPOINTS, GRIN_SCAN_BATCH, type Endpoint } from './http/endpoints.js';
import { seed, type Seeded } from './http/fixtures.js';
import { load, requestHeaders, type LoadFigures } from './http/load.js';
import { machineCpuTimes, stealPercentSince } from './machine-cpu.js';

export type Dialect = 'sqlite' | 'postgres';
export type ServerName = 'wallet' | 'bare';

export interface BenchOptions {
  rounds: number;
  connections: number;
  durationSec: number;
  warmupSec: number;
  dialects: Dialect[];
  /** Endpoint ids to run (default all). */
  endpoints?: string[];
  walletEntry: 'dist' | 'source';
  /**
   * Whether the bare server does what every wallet response owes (the request id, no-store, a
   * log line; default true). False runs the lighter yardstick of the runs before 2026-11-28, to
   * report a route both ways; the bench then skips its check that both answer with one header set.
   */
  barePerRequest?: boolean;
  /** Both servers started afresh for every round after the first (default true); false keeps one process of each per dialect. */
  restartEachRound?: boolean;
  outFile: string;
  pgAdminUrl: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export interface RunRecord extends LoadFigures {
  dialect: Dialect;
  round: number;
  endpoint: string;
  server: ServerName;
  /** 1 or 2: whether this server was loaded first or second in its round. */
  order: number;
  /** The server process that answered (a new one each round unless BENCH_RESTART=off). */
  pid: number;
  warmup: { rps: number; requests: number };
  rssMaxMb?: number | null;
  /** The server process's CPU (user + system) per answered request in the measured run, in µs; null without /proc. */
  cpuUsPerRequest: number | null;
}

export interface ServerSummary {
  medianRps: number;
  minRps: number;
  maxRps: number;
  medianP99: number;
  medianCpuUs: number | null;
  /** The largest RSS sampled during this endpoint's runs, MB; null without /proc. */
  maxRssMb: number | null;
}

export interface EndpointSummary {
  dialect: Dialect;
  endpoint: string;
  label: string;
  wallet: ServerSummary;
  bare: ServerSummary;
  ratios: number[];
  medianRatio: number;
  target: number | null;
  verdict: 'PASS' | 'FAIL' | 'report';
}

export interface BenchResult {
  at: string;
  machine: {
    cpu: string;
    cores: number;
    node: string;
    platform: string;
    totalMemMb: number;
    loadAvgAtStart: number[];
    /** The share of the machine's CPU time its hypervisor gave to others during the run (/proc/stat steal), %; null without /proc. */
    stealPercent: number | null;
  };
  settings: Omit<BenchOptions, 'log' | 'outFile'> & { outFile: string };
  /** Each server's Node flags in this run. */
  flags: Record<ServerName, string[]>;
  walletRssMaxMb: Record<string, number | null>;
  /** The bare server's largest RSS per dialect, sampled as the wallet's is. */
  bareRssMaxMb: Record<string, number | null>;
  rssTargetMb: number;
  summary: EndpointSummary[];
  runs: RunRecord[];
}

const RSS_TARGET_MB = 150;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round2 = (value: number) => Math.round(value * 100) / 100;

const secrets = () => ({
  JWT_SECRET: `bench-jwt-${randomBytes(24).toString('hex')}`,
  PEPPER_SECRET: `bench-pepper-${randomBytes(24).toString('hex')}`,
  IP_HASH_SALT: `bench-ip-${randomBytes(24).toString('hex')}`,
  ADMIN_KEY_INTEGRITY_SECRET: `bench-admin-${randomBytes(24).toString('hex')}`,
  ADMIN_SESSION_SECRET: `bench-admin-session-${randomBytes(24).toString('hex')}`,
});

/** Headers whose presence says nothing about the work done. */
const NOT_WORK = new Set(['date']);

/**
 * The yardstick must do the work the wallet does (issue 35): each endpoint whose request can be
 * repeated (no per-request body or token) is asked once of each server, and both must answer 2xx
 * with the same header names, so a header the wallet owes every response (its request id, say)
 * cannot be left out of the bare server unnoticed. A difference fails the bench.
 */
export async function assertSameHeaders(wallet: Pick<ServerChild, 'name' | 'url'>, bare: Pick<ServerChild, 'name' | 'url'>, seeded: Seeded, endpoints: Endpoint[]): Promise<void> {
  for (const endpoint of endpoints) {
    const spec = await endpoint.spec({ seeded, connections: 1, durationSec: 1, lastRps: undefined });
    if (spec.setupRequest !== undefined || spec.setupClient !== undefined) continue;
    const names: string[][] = [];
    for (const server of [wallet, bare]) {
      const res = await fetch(`${server.url}${spec.path}`, { method: spec.method, headers: requestHeaders(spec), body: spec.body });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`bench: ${server.name} answered ${endpoint.id} with ${res.status} in the header check`);
      names.push([...res.headers.keys()].filter((name) => !NOT_WORK.has(name)).sort());
    }
    const [ours, theirs] = names as [string[], string[]];
    if (ours.join() !== theirs.join()) {
      throw new Error(`bench: the bare server answers ${endpoint.id} with headers ${theirs.join(', ')}, the wallet with ${ours.join(', ')}: the yardstick must do the wallet's work (test/bench/bare-server.ts)`);
    }
  }
}

/** One dialect's rounds; returns each server's largest RSS (MB). */
async function benchDialect(
  dialect: Dialect,
  databaseUrl: string,
  dataDir: string,
  grin: GrinNodeFake,
  bareBundle: string,
  options: BenchOptions,
  endpoints: Endpoint[],
  runs: RunRecord[],
): Promise<Record<ServerName, number | null>> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const walletPort = await checkedPort();
  let barePort = await checkedPort();
  while (barePort === walletPort) barePort = await checkedPort();
  const publicApiUrl = `http://127.0.0.1:${walletPort}`;
  const shared = { ...secrets(), DATABASE_URL: databaseUrl, PUBLIC_API_URL: publicApiUrl, GRIN_NODE_URL: grin.url, GRIN_NODE_API_SECRET: FAKE_GRIN_SECRET };
  let servers: ServerChild[] = [];
  const rssMax: Record<ServerName, number | null> = { wallet: null, bare: null };
  const barePerRequest = options.barePerRequest ?? true;
  /** Both servers, on the same ports each time (the wallet's is in its public URL, so in the seeded tokens). */
  const start = async (): Promise<[ServerChild, ServerChild]> => {
    // The wallet first: it migrates the database the bare server then uses. No LOG_LEVEL: the default.
    const wallet = await launchWallet({
      entry: options.walletEntry,
      port: walletPort,
      env: { ...shared, DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000', SCHEDULER_ENABLED: 'false', FEATURE_GRIN_RELAY: 'true' },
    });
    servers.push(wallet);
    const bare = await launchBare(bareBundle, { ...shared, BARE_PER_REQUEST: barePerRequest ? 'on' : 'off' }, barePort);
    servers.push(bare);
    log(`${dialect}: wallet pid ${wallet.pid} at ${wallet.url}, bare pid ${bare.pid} at ${bare.url}${barePerRequest ? '' : ' (without the per-request work: BENCH_BARE_PER_REQUEST=off)'}`);
    return [wallet, bare];
  };
  try {
    let [wallet, bare] = await start();
    const seeded: Seeded = await seed(wallet.url, publicApiUrl, databaseUrl, 'benchuser');
    if (barePerRequest) await assertSameHeaders(wallet, bare, seeded, endpoints);
    const lastRps = new Map<string, number>();
    let previous: { server: ServerChild; p99: number } | undefined;
    for (let round = 1; round <= options.rounds; round++) {
      if (round > 1 && (options.restartEachRound ?? true)) {
        // Fresh processes each round: a process keeps for life how fast it drew (where V8 and the
        // kernel placed it, how its collector tuned itself; the same server's CPU per request
        // moved by half between starts here), so the median is over seven draws of each, not one.
        await Promise.all(servers.map((server) => server.stop()));
        servers = [];
        previous = undefined;
        [wallet, bare] = await start();
      }
      const order: Array<[ServerName, ServerChild]> = round % 2 === 1 ? [['wallet', wallet], ['bare', bare]] : [['bare', bare], ['wallet', wallet]];
      for (const endpoint of endpoints) {
        for (const [index, [name, server]] of order.entries()) {
          const key = `${name} ${endpoint.id}`;
          // The other server may still be finishing the requests its run left in flight (autocannon
          // stops sending, the server does not stop working); on SQLite a write of that tail would
          // collide with this run's first writes (SQLITE_BUSY across processes). Let it drain first.
          if (previous !== undefined && previous.server !== server) await sleep(Math.min(1_000, Math.max(100, 2 * previous.p99)));
          const label = `${dialect} round ${round} ${endpoint.id} ${name}`;
          const rss = sampleRss(server.pid);
          let warmup = { rps: 0, requests: 0 };
          try {
            // Warm up until at least one answer came back: a first request can outlast a short
            // warm-up (the Grin scan starts its worker threads on first use).
            for (let attempt = 1; options.warmupSec > 0 && attempt <= 30; attempt++) {
              const spec = await endpoint.spec({ seeded, connections: options.connections, durationSec: options.warmupSec, lastRps: lastRps.get(key) });
              const figures = await load(`${label} (warm-up)`, server.url, spec, options.connections, options.warmupSec, { allowEmpty: true });
              warmup = { rps: figures.rps, requests: warmup.requests + figures.requests };
              if (figures.rps > 0) {
                lastRps.set(key, figures.rps);
                break;
              }
            }
            const spec = await endpoint.spec({ seeded, connections: options.connections, durationSec: options.durationSec, lastRps: lastRps.get(key) });
            const cpuBefore = cpuMs(server.pid);
            const figures = await load(label, server.url, spec, options.connections, options.durationSec);
            const cpuAfter = cpuMs(server.pid);
            lastRps.set(key, figures.rps);
            previous = { server, p99: figures.p99 };
            // The CPU a request cost the server itself: steadier than req/s on a noisy machine (the
            // load generator shares it), though it counts the tail the server finishes after the run.
            const cpuUsPerRequest = cpuBefore !== null && cpuAfter !== null && figures.requests > 0 ? Math.round(((cpuAfter - cpuBefore) * 1000) / figures.requests) : null;
            const record: RunRecord = { dialect, round, endpoint: endpoint.id, server: name, order: index + 1, pid: server.pid, ...figures, warmup, cpuUsPerRequest };
            record.rssMaxMb = rss.stop();
            const largest = rssMax[name];
            if (record.rssMaxMb !== null && (largest === null || record.rssMaxMb > largest)) rssMax[name] = record.rssMaxMb;
            runs.push(record);
            log(`${label}: ${figures.rps} req/s, p99 ${figures.p99} ms${cpuUsPerRequest !== null ? `, ${cpuUsPerRequest} µs CPU/request` : ''}${record.rssMaxMb != null ? `, rss ${record.rssMaxMb} MB` : ''}`);
          } catch (err) {
            rss.stop();
            // A dead server explains the failure better than the load's symptoms.
            for (const each of servers) each.assertAlive();
            const logged = server.problems();
            const stderr = server.stderr().trim();
            if (logged.length > 0 || stderr !== '') {
              (err as Error).message += `\n${server.name}'s last error/warning lines:\n${[...logged, stderr].filter(Boolean).join('\n').slice(-6_000)}`;
            }
            throw err;
          } finally {
            // The fake keeps every request it received: drop them between runs.
            grin.received.length = 0;
          }
          for (const each of servers) each.assertAlive();
        }
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  return rssMax;
}

function summarise(runs: RunRecord[], options: BenchOptions, endpoints: Endpoint[]): EndpointSummary[] {
  const out: EndpointSummary[] = [];
  for (const dialect of options.dialects) {
    for (const endpoint of endpoints) {
      const of = (server: ServerName) => runs.filter((r) => r.dialect === dialect && r.endpoint === endpoint.id && r.server === server);
      const wallet = of('wallet');
      const bare = of('bare');
      if (wallet.length === 0 || bare.length === 0) continue;
      const stats = (rows: RunRecord[]) => ({
        medianRps: round2(median(rows.map((r) => r.rps))),
        minRps: Math.min(...rows.map((r) => r.rps)),
        maxRps: Math.max(...rows.map((r) => r.rps)),
        medianP99: median(rows.map((r) => r.p99)),
        medianCpuUs: rows.every((r) => r.cpuUsPerRequest !== null) ? median(rows.map((r) => r.cpuUsPerRequest!)) : null,
        maxRssMb: rows.some((r) => r.rssMaxMb != null) ? Math.max(...rows.map((r) => r.rssMaxMb ?? 0)) : null,
      });
      const ratios = wallet.map((w) => round2(w.rps / bare.find((b) => b.round === w.round)!.rps));
      const medianRatio = round2(median(ratios));
      out.push({
        dialect,
        endpoint: endpoint.id,
        label: endpoint.label,
        wallet: stats(wallet),
        bare: stats(bare),
        ratios,
        medianRatio,
        target: endpoint.target,
        verdict: endpoint.target === null ? 'report' : medianRatio >= endpoint.target ? 'PASS' : 'FAIL',
      });
    }
  }
  return out;
}

function table(result: BenchResult): string {
  const s = result.settings;
  const widths = [9, 13, 26, 26, 9, 9, 13, 13, 18, 7, 12];
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' ').trimEnd();
  const range = (x: { medianRps: number; minRps: number; maxRps: number }) => `${Math.round(x.medianRps)} [${Math.round(x.minRps)}–${Math.round(x.maxRps)}]`;
  const rows = [
    '',
    `${result.machine.cpu}, ${result.machine.cores} cores, node ${result.machine.node}, load ${result.machine.loadAvgAtStart.map((l) => l.toFixed(2)).join(' ')} at start` +
      (result.machine.stealPercent === null ? '' : `, ${result.machine.stealPercent.toFixed(1)} % of the CPU time stolen by the hypervisor during the run`),
    `${s.rounds} round(s), ${s.connections} connections, ${s.durationSec} s per run after a ${s.warmupSec} s warm-up, wallet from ${s.walletEntry}`,
    `Node flags: wallet ${result.flags.wallet.join(' ') || "Node's defaults"}; bare ${result.flags.bare.join(' ') || "Node's defaults"}`,
    line(['dialect', 'endpoint', 'wallet req/s [min–max]', 'bare req/s [min–max]', 'w p99 ms', 'b p99 ms', 'CPU µs w/b', 'max RSS MB w/b', 'ratio per round', 'median', 'target']),
  ];
  for (const r of result.summary) {
    const target = r.target === null ? 'report only' : `≥${r.target}× ${r.verdict}`;
    const cpu = r.wallet.medianCpuUs !== null && r.bare.medianCpuUs !== null ? `${r.wallet.medianCpuUs}/${r.bare.medianCpuUs}` : 'n/a';
    const rss = r.wallet.maxRssMb !== null && r.bare.maxRssMb !== null ? `${Math.round(r.wallet.maxRssMb)}/${Math.round(r.bare.maxRssMb)}` : 'n/a';
    rows.push(line([r.dialect, r.endpoint, range(r.wallet), range(r.bare), String(r.wallet.medianP99), String(r.bare.medianP99), cpu, rss, r.ratios.map((x) => x.toFixed(2)).join(' '), r.medianRatio.toFixed(2), target]));
  }
  const sameFlags = result.flags.wallet.join(' ') === result.flags.bare.join(' ');
  for (const [dialect, mb] of Object.entries(result.walletRssMaxMb)) {
    const bare = result.bareRssMaxMb[dialect] ?? null;
    const beside = bare === null ? '' : `; bare ${bare} MB${sameFlags ? ', same flags' : ` under its own flags (${result.flags.bare.join(' ') || "Node's defaults"})`}${mb !== null ? `, ratio ${(mb / bare).toFixed(2)}` : ''}`;
    rows.push(`wallet max RSS under load (${dialect}): ${mb ?? 'n/a'} MB (target < ${result.rssTargetMb} MB: ${mb !== null && mb < result.rssTargetMb ? 'PASS' : 'FAIL'})${beside}`);
  }
  return `${rows.join('\n')}\n`;
}

/** The whole bench: both dialects (as configured), every round and endpoint; writes the JSON and returns it. */
export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const endpoints = options.endpoints ? ENDPOINTS.filter((e) => options.endpoints!.includes(e.id)) : ENDPOINTS;
  if (options.endpoints && endpoints.length !== options.endpoints.length) {
    throw new Error(`unknown endpoint in ${options.endpoints.join(',')}; known: ${ENDPOINTS.map((e) => e.id).join(', ')}`);
  }
  const cpu = cpus();
  const machineAtStart = { cpu: cpu[0]?.model ?? 'unknown', cores: cpu.length, node: process.version, platform: `${platform()} ${release()}`, totalMemMb: Math.round(totalmem() / 1048576), loadAvgAtStart: loadavg() };
  const cpuTimesAtStart = machineCpuTimes();
  const runs: RunRecord[] = [];
  const walletRssMaxMb: Record<string, number | null> = {};
  const bareRssMaxMb: Record<string, number | null> = {};
  const bundle = await bareServerBundle('request');
  const bareBundle = bundle.server;
  log(`bare server bundled into ${relative(REPO_ROOT, dirname(bareBundle))} (removed when the run ends)`);
  const grin = new GrinNodeFake();
  grin.outputs = GRIN_SCAN_BATCH.outputs;
  await grin.start();
  const scratch = mkdtempSync(join(tmpdir(), 'wallet-bench-'));
  try {
    for (const dialect of options.dialects) {
      if (dialect === 'sqlite') {
        ({ wallet: walletRssMaxMb.sqlite, bare: bareRssMaxMb.sqlite } = await benchDialect('sqlite', `sqlite:${join(scratch, 'bench.db')}`, join(scratch, 'data-sqlite'), grin, bareBundle, options, endpoints, runs));
        continue;
      }
      const database = `wallet_bench_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: options.pgAdminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${database}`);
        const url = new URL(options.pgAdminUrl);
        url.pathname = `/${database}`;
        ({ wallet: walletRssMaxMb.postgres, bare: bareRssMaxMb.postgres } = await benchDialect('postgres', url.toString(), join(scratch, 'data-pg'), grin, bareBundle, options, endpoints, runs));
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((err: unknown) => log(`could not drop ${database}: ${(err as Error).message}`));
        await admin.end();
      }
    }
  } finally {
    await grin.close();
    rmSync(scratch, { recursive: true, force: true });
    bundle.remove();
  }
  const { log: _log, ...settings } = options;
  const result: BenchResult = {
    at: new Date().toISOString(),
    machine: { ...machineAtStart, stealPercent: stealPercentSince(cpuTimesAtStart) },
    settings: { ...settings, outFile: relative(REPO_ROOT, options.outFile).startsWith('..') ? options.outFile : relative(REPO_ROOT, options.outFile) },
    flags: { wallet: walletNodeFlags(), bare: bareNodeFlags() },
    walletRssMaxMb,
    bareRssMaxMb,
    rssTargetMb: RSS_TARGET_MB,
    summary: summarise(runs, options, endpoints),
    runs,
  };
  mkdirSync(dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(table(result));
  process.stdout.write(`written to ${result.settings.outFile}\n`);
  return result;
}

function numberEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

/** The options `npm run bench` reads from its environment. */
export function optionsFromEnv(): BenchOptions {
  const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean);
  for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d}`);
  const entry = process.env.BENCH_WALLET_ENTRY ?? 'dist';
  if (entry !== 'dist' && entry !== 'source') throw new Error('BENCH_WALLET_ENTRY must be dist or source');
  return {
    rounds: Math.floor(numberEnv('BENCH_ROUNDS', 7, 1)),
    connections: Math.floor(numberEnv('BENCH_CONNECTIONS', 64, 1)),
    durationSec: numberEnv('BENCH_DURATION_SEC', 4, 0.1),
    warmupSec: numberEnv('BENCH_WARMUP_SEC', 1, 0),
    dialects: dialects as Dialect[],
    ...(process.env.BENCH_ENDPOINTS ? { endpoints: process.env.BENCH_ENDPOINTS.split(',').map((e) => e.trim()) } : {}),
    walletEntry: entry,
    barePerRequest: process.env.BENCH_BARE_PER_REQUEST !== 'off',
    restartEachRound: process.env.BENCH_RESTART !== 'off',
    outFile: process.env.BENCH_OUT ? resolve(process.env.BENCH_OUT) : join(REPO_ROOT, 'test/bench/results/latest.json'),
    pgAdminUrl: process.env.WALLET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await runBench(optionsFromEnv());
    process.exit(0);
  } catch (err) {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
}
