/**
 * `npm run bench:heap-flags`: the reference server's Node flags, each set tried on many fresh
 * processes, because what one set costs is not one figure. Under `--max-old-space-size` (256 MB
 * or 512) about half the processes on this machine fell, for their whole life, into collecting
 * the old generation every ~150 ms: V8's allocation-site pretenuring sent short-lived request
 * objects straight to the old space, each young collection then took 4–5 ms instead of 0.4
 * (V8's worker threads busy with it), and a `/health` cost 72–95 µs of CPU instead of 31–44.
 * Which half was decided early in each process's life, so a bench run drew the wallet's and the
 * bare server's luck once per run (docs/performance.md "Memory", eighth pass).
 *
 * Per round, each variant gets a new server (rounds alternate the order), loaded on SQLite with
 * `/health` and a username lookup that reads the database (64 connections, a 1 s warm-up, then
 * `--sec` seconds measured). Each start's CPU per request (all threads, /proc) and its largest
 * RSS (VmHWM, which includes its start) are printed, then per variant the median and how many
 * starts cost more than 1.5 × the best variant's median: the slow ones.
 *
 *   npm run bench:heap-flags                        # 8 starts per variant, 3 s per path
 *   npm run bench:heap-flags -- --starts 4 --sec 2
 *
 * Exits non-zero only on errors (a server that does not start, an answer that is not 2xx).
 * `runHeapFlagsBench()` is imported by test/bench/heap-flags-smoke.test.ts (one start each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { serverNodeFlags } from '../harness/processes.js';
import { checkedPort, cpuMs, launchWallet, peakRssMb, walletEnv } from './http/children.js';
import { load } from './http/load.js';
import { median } from './median.js';

const PRETENURING_OFF = '--no-allocation-site-pretenuring';
const SLOW = 1.5;
const PATHS = { health: '/api/v1/health', username: '/api/v1/usernames/nobody_here' } as const;
type PathName = keyof typeof PATHS;

export interface Variant {
  name: string;
  flags: string[];
}

/** start:prod's flags, and the same without each of the two that matter here. */
export function variants(): Variant[] {
  const prod = serverNodeFlags();
  return [
    { name: 'start:prod', flags: prod },
    { name: `start:prod without ${PRETENURING_OFF}`, flags: prod.filter((flag) => flag !== PRETENURING_OFF) },
    { name: 'start:prod without --max-old-space-size', flags: prod.filter((flag) => !flag.startsWith('--max-old-space-size')) },
  ];
}

export interface StartFigures {
  variant: string;
  /** CPU µs per request, per path. */
  cpuUs: Record<PathName, number>;
  peakRssMb: number | null;
}

async function oneStart(variant: Variant, durationSec: number): Promise<StartFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-heap-flags-'));
  const port = await checkedPort();
  const url = `http://127.0.0.1:${port}`;
  const server = await launchWallet({ entry: 'dist', port, flags: variant.flags, env: walletEnv(`sqlite:${join(dataDir, 'wallet.db')}`, url, dataDir) });
  try {
    const cpuUs = {} as Record<PathName, number>;
    for (const [name, path] of Object.entries(PATHS) as Array<[PathName, string]>) {
      await load(`${variant.name} ${name} warm-up`, url, { method: 'GET', path }, 64, 1, { allowEmpty: true });
      const before = cpuMs(server.pid)!;
      const figures = await load(`${variant.name} ${name}`, url, { method: 'GET', path }, 64, durationSec);
      cpuUs[name] = ((cpuMs(server.pid)! - before) * 1_000) / figures.requests;
    }
    server.assertAlive();
    return { variant: variant.name, cpuUs, peakRssMb: peakRssMb(server.pid) };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface HeapFlagsResult {
  starts: StartFigures[];
  /** Per variant and path: the median CPU µs per request and how many starts were slow. */
  summary: Array<{ variant: string; flags: string[]; path: PathName; medianUs: number; slow: number; starts: number; medianRssMb: number | null }>;
}

export async function runHeapFlagsBench(options: { starts: number; durationSec: number; log?: (line: string) => void }): Promise<HeapFlagsResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const all = variants();
  const starts: StartFigures[] = [];
  for (let round = 0; round < options.starts; round++) {
    const order = round % 2 === 0 ? all : [...all].reverse();
    for (const variant of order) {
      const figures = await oneStart(variant, options.durationSec);
      starts.push(figures);
      log(`start ${round + 1} ${variant.name}: /health ${figures.cpuUs.health.toFixed(1)} µs, username ${figures.cpuUs.username.toFixed(1)} µs CPU/request, peak RSS ${figures.peakRssMb ?? 'n/a'} MB`);
    }
  }
  const summary: HeapFlagsResult['summary'] = [];
  for (const path of Object.keys(PATHS) as PathName[]) {
    const medians = all.map((variant) => median(starts.filter((s) => s.variant === variant.name).map((s) => s.cpuUs[path])));
    const best = Math.min(...medians);
    all.forEach((variant, i) => {
      const mine = starts.filter((s) => s.variant === variant.name);
      const rss = mine.map((s) => s.peakRssMb).filter((mb): mb is number => mb !== null);
      summary.push({
        variant: variant.name,
        flags: variant.flags,
        path,
        medianUs: medians[i]!,
        slow: mine.filter((s) => s.cpuUs[path] > SLOW * best).length,
        starts: mine.length,
        medianRssMb: rss.length > 0 ? median(rss) : null,
      });
    });
  }
  return { starts, summary };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { starts: { type: 'string', default: '8' }, sec: { type: 'string', default: '3' } } });
  const result = await runHeapFlagsBench({ starts: Number(values.starts), durationSec: Number(values.sec) });
  console.log(`\n${cpus()[0]?.model ?? 'cpu'}, ${cpus().length} cores, node ${process.version}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${values.starts} starts per variant, SQLite, 64 connections, ${values.sec} s per path after a 1 s warm-up; slow: CPU per request above ${SLOW} × the best variant's median`);
  for (const row of result.summary) {
    console.log(`${row.path.padEnd(9)} ${row.variant.padEnd(52)} median ${row.medianUs.toFixed(1).padStart(6)} µs/request, slow starts ${row.slow}/${row.starts}, median peak RSS ${row.medianRssMb ?? 'n/a'} MB`);
  }
}
