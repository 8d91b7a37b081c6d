/**
 * `npm run bench:scan`: issue 18's target for the Grin scan off the event loop. A real backend
 * (in this process, on a loopback port, SQLite then Postgres) scans a GrinNodeFake's output set
 * (BENCH_OUTPUTS, default 10,000: six real wallet outputs of the vectors among misses built from
 * real proofs) while autocannon loads GET /api/v1/health. Measured in the same run, per dialect:
 *  - baseline: /health under load alone;
 *  - under scans: the same load while BENCH_SCANS clients (default 2) scan the whole set again
 *    and again, page by page (BENCH_PAGE_SIZE, by default the server's default page of 1,000);
 * each with /health p50/p99/max and req/s, and the server thread's event-loop delay
 * (perf_hooks.monitorEventLoopDelay, 10 ms resolution). The target: /health p99 under 20 ms
 * while the scans run (PASS/FAIL, reported, never the exit code). Also the scanner's own rate,
 * the server's worker pool against a single worker, and the projected time of a full-chain scan
 * of 300,000 outputs. Prints tables and writes test/bench/results/scan-latency.json.
 *
 * Threads: autocannon runs on a worker thread of its own (its `workers` option) and the node
 * fake on another (scan-node-worker.ts), so the only JavaScript on the main thread is the
 * server's (plus the scan clients' few small requests). They still share the machine's cores
 * with the server and its scan pool, as a real node and load generator on the same host would.
 *
 * Knobs: BENCH_DURATION_SEC (10, per phase), BENCH_OUTPUTS (10000), BENCH_SCANS (2),
 * BENCH_CONNECTIONS (16), BENCH_PAGE_SIZE (the configuration's default; at most its maximum); Postgres from WALLET_TEST_PG_URL like the tests. Exits non-zero only on
 * errors (a non-2xx /health, a failed or inconsistent scan), not on FAIL.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { monitorEventLoopDelay, performance, type ELDHistogram } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { hexToBytes } from '@noble/hashes/utils.js';
import autocannon from 'autocannon';
import { createJsonLogger, createWalletBackend } from '@wallet/backend-core';
import { defaultScanPoolSize, GrinScanPool } from '../../packages/core/src/chains/grin/index.js';
import { settingsSchema } from '../../packages/core/src/config/schema.js';
import { FAKE_GRIN_SECRET, type FakeChainOutput } from '../fakes/grin-node.js';
import { DIALECTS, freshDatabaseUrl, TEST_PUBLIC_API_URL, TEST_SECRETS, type DialectName } from '../harness/backend.js';
import { dropRunDatabase } from '../harness/postgres.js';
import { removeSqliteFiles } from '../harness/sqlite.js';
import { seedSession } from '../harness/users.js';
import { loadVectors } from '../harness/vectors.js';

export const TARGET_P99_MS = 20;
export const FULL_CHAIN_OUTPUTS = 300_000;
const ELD_RESOLUTION_MS = 10;
/** The vector batch whose rewind hash the bench scans with (mainnet maturity, six wallet outputs). */
export const HIT_BATCH_ID = 'batch-s-A';
export const DEFAULT_JSON_PATH = fileURLToPath(new URL('./results/scan-latency.json', import.meta.url));

/** An output the scan finds, as POST /wallet/grin/scan answers it. */
export interface ScanHit {
  commit: string;
  value: string;
  height: number;
  mmr_index: number;
  is_coinbase: boolean;
  lock_height: number;
}

export interface ScanBatch {
  id: string;
  rewind_hash: string;
  coinbase_maturity: number;
  outputs: FakeChainOutput[];
  expected: { output_result: ScanHit[]; total_balance: string };
}

export interface ScanOutputSet {
  rewindHash: string;
  outputs: FakeChainOutput[];
}

export function scanBatches(): ScanBatch[] {
  return loadVectors<{ scan_batches: ScanBatch[] }>('grin/scan-rewind-hash.json').scan_batches;
}

/**
 * `count` outputs in mmr order, deterministic. The six wallet outputs of HIT_BATCH_ID (commit,
 * proof, height and type as the vector has them) sit evenly spread at new mmr indexes; every
 * other output pairs the commitment of another wallet's output (the other vector batches: never
 * one of HIT_BATCH_ID's, so the scan's nonce was never used to build any proof) with a real proof
 * of the vectors, rotating through both. Each miss thus goes the whole way through the rewind
 * (valid point, valid scalars) and fails where a stranger's output fails: the nonce does not open
 * the proof. (A commitment of HIT_BATCH_ID with another of its proofs can be a real hit: the
 * vector's "swapped commitment" miss carries the true proof of another wallet output.) Mmr
 * indexes leave a gap every third output, as spent outputs do.
 */
export function buildScanOutputs(count: number): ScanOutputSet {
  const batches = scanBatches();
  const batch = batches.find((candidate) => candidate.id === HIT_BATCH_ID)!;
  const wallet = new Set(batch.expected.output_result.map((hit) => hit.commit.toLowerCase()));
  const hits = batch.outputs.filter((output) => wallet.has(output.commit.toLowerCase()));
  if (count < hits.length * 2) throw new Error(`BENCH_OUTPUTS must be at least ${hits.length * 2}`);
  const strangers = batches.filter((candidate) => candidate.id !== HIT_BATCH_ID).flatMap((candidate) => candidate.outputs);
  const proofs = batches.flatMap((candidate) => candidate.outputs);
  const hitAt = new Map(hits.map((hit, k) => [Math.floor(((k + 0.5) * count) / hits.length), hit] as const));
  const outputs: FakeChainOutput[] = [];
  let mmrIndex = 0;
  for (let i = 0; i < count; i++) {
    mmrIndex += i % 3 === 2 ? 2 : 1;
    const hit = hitAt.get(i);
    if (hit !== undefined) {
      outputs.push({ ...hit, mmr_index: mmrIndex });
      continue;
    }
    const proof = proofs[(i + Math.floor(i / proofs.length)) % proofs.length]!;
    outputs.push({ commit: strangers[i % strangers.length]!.commit, proof: proof.proof, is_coinbase: proof.is_coinbase, height: 1 + Math.floor(i / 4), mmr_index: mmrIndex });
  }
  return { rewindHash: batch.rewind_hash, outputs };
}

type PageSizeEntry = { wrapped: { pipe: Array<{ type: string; requirement?: unknown }> }; default: unknown };
const pageSizeEntry = () => settingsSchema.entries.grinScanPageSize as unknown as PageSizeEntry;

/** The largest `grinScanPageSize` the configuration schema accepts (read from it, so it cannot drift). */
export function largestScanPage(): number {
  const max = pageSizeEntry().wrapped.pipe.find((action) => action.type === 'max_value')?.requirement;
  if (typeof max !== 'number') throw new Error('grinScanPageSize has no maximum in the settings schema');
  return max;
}

/** The `grinScanPageSize` a server runs with unless its operator sets one (read from the schema). */
export function defaultScanPage(): number {
  const fallback = pageSizeEntry().default;
  if (typeof fallback !== 'number') throw new Error('grinScanPageSize has no default in the settings schema');
  return fallback;
}

export interface ScanLatencyOptions {
  dialects?: readonly DialectName[];
  /** Outputs per scan request and the server's `grinScanPageSize` (default: the configuration's default). */
  pageSize?: number;
  /** Seconds of each measured phase (baseline, under scans). */
  durationSec?: number;
  outputs?: number;
  /** Concurrent scan clients. */
  scanClients?: number;
  /** autocannon connections on /health. */
  connections?: number;
  /** Seconds of /health warm-up before the baseline. */
  warmupSec?: number;
  /** Seconds of each scanner-rate measurement (pool, one worker). */
  scannerSec?: number;
  /** Where the JSON goes; null: nowhere. */
  jsonPath?: string | null;
  /** Progress lines and tables (default: console). */
  log?: (line: string) => void;
  table?: (rows: object[]) => void;
}

export interface HealthFigures {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Event-loop delay beyond the 10 ms sampling interval (Node reports the interval itself too: `raw_*`). */
export interface DelayFigures {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  raw_p50_ms: number;
  raw_p99_ms: number;
  raw_max_ms: number;
}

export interface ScanFigures {
  clients: number;
  page_size: number;
  /** Full scans (every page, up to `complete`) finished inside the window. */
  scans_completed: number;
  pages: number;
  outputs_scanned: number;
  outputs_per_sec: number;
  mean_scan_sec: number | null;
  /** FULL_CHAIN_OUTPUTS at this aggregate rate. */
  projected_full_chain_sec: number | null;
}

export interface PhaseFigures {
  window_sec: number;
  health: HealthFigures;
  event_loop_delay: DelayFigures;
}

export interface DialectReport {
  dialect: DialectName;
  baseline: PhaseFigures;
  under_scans: PhaseFigures & { scans: ScanFigures };
  verdict: 'PASS' | 'FAIL';
  /** What the first complete scan found (every later one must equal it). */
  hits: ScanHit[];
  errors: string[];
}

export interface ScannerFigures {
  workers: number;
  rounds: number;
  outputs_per_sec: number;
  projected_full_chain_sec: number;
  hits_per_scan: number;
}

export interface ScanLatencyReport {
  target: string;
  machine: { cpu: string; cores: number; node: string };
  load_average: { start: number[]; end: number[] };
  options: { dialects: DialectName[]; duration_sec: number; outputs: number; scan_clients: number; connections: number; page_size: number };
  scanners: { pool: ScannerFigures; one_worker: ScannerFigures };
  dialects: DialectReport[];
  errors: string[];
  json_path: string | null;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const ms = (ns: number) => ns / 1e6;

function delayFigures(histogram: ELDHistogram): DelayFigures {
  const raw = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
  const excess = (value: number) => round(Math.max(0, value - ELD_RESOLUTION_MS));
  return { p50_ms: excess(raw.p50), p99_ms: excess(raw.p99), max_ms: excess(raw.max), raw_p50_ms: round(raw.p50), raw_p99_ms: round(raw.p99), raw_max_ms: round(raw.max) };
}

/** autocannon on /health from a worker thread (`workers: 1`): its own JavaScript stays off the server's event loop. */
async function loadHealth(baseUrl: string, connections: number, durationSec: number): Promise<HealthFigures> {
  const result = await autocannon({ url: `${baseUrl}/api/v1/health`, connections, duration: durationSec, workers: 1 });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

function healthErrors(phase: string, health: HealthFigures): string[] {
  return health.non2xx + health.errors + health.timeouts > 0 ? [`${phase}: /health had ${health.non2xx} non-2xx, ${health.errors} errors, ${health.timeouts} timeouts`] : [];
}

/** The node fake on its worker thread; resolves with its URL and a closer. */
async function startNode(outputs: FakeChainOutput[]): Promise<{ url: string; close(): Promise<void> }> {
  const entry = new URL('./scan-node-worker.ts', import.meta.url).href;
  // As the scan pool does from source: the worker registers tsx's loader, then imports the entry.
  const worker = new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, { eval: true, workerData: { outputs } });
  const url = await new Promise<string>((resolveUrl, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { url: string }) => resolveUrl(message.url));
  });
  return {
    url,
    async close() {
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 5_000);
        worker.once('message', () => {
          clearTimeout(timer);
          done();
        });
        worker.postMessage('close');
      });
      await worker.terminate();
    },
  };
}

/** The scanner alone (no HTTP): the server's pool (`new GrinScanPool()`), or a pool of one worker. */
async function scannerRate(size: number | undefined, set: ScanOutputSet, pageSize: number, seconds: number, errors: string[]): Promise<ScannerFigures> {
  const pool = size === undefined ? new GrinScanPool() : new GrinScanPool(size);
  const workers = size ?? defaultScanPoolSize();
  const rewindHash = hexToBytes(set.rewindHash);
  const pages: FakeChainOutput[][] = [];
  for (let start = 0; start < set.outputs.length; start += pageSize) pages.push(set.outputs.slice(start, start + pageSize));
  const maturity = scanBatches().find((batch) => batch.id === HIT_BATCH_ID)!.coinbase_maturity;
  const once = async () => {
    let hits = 0;
    for (const page of pages) hits += (await pool.scan(rewindHash, page, maturity)).outputs.length;
    return hits;
  };
  try {
    // The first pass starts the workers (each loads tsx and the crypto): not timed.
    const hitsPerScan = await once();
    let rounds = 0;
    const started = performance.now();
    do {
      const hits = await once();
      if (hits !== hitsPerScan) errors.push(`scanner (${workers} workers): ${hits} hits, the first pass found ${hitsPerScan}`);
      rounds++;
    } while (performance.now() - started < seconds * 1_000);
    const rate = (rounds * set.outputs.length) / ((performance.now() - started) / 1_000);
    return { workers, rounds, outputs_per_sec: Math.round(rate), projected_full_chain_sec: round(FULL_CHAIN_OUTPUTS / rate, 1), hits_per_scan: hitsPerScan };
  } finally {
    await pool.close();
  }
}

/** The first index of `sorted` at or above `value`. */
function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

interface ScanClientState {
  stopped: boolean;
  windowEnd: number;
  scans: number;
  scanSeconds: number;
  pages: number;
  outputs: number;
  first: string | null;
  hits: ScanHit[];
  errors: string[];
}

/**
 * One wallet scanning the whole set again and again until stopped (checked between pages, so a
 * page in flight finishes), or just `once`. Pages and outputs count when they finish inside the window.
 */
async function scanClient(baseUrl: string, token: string, set: ScanOutputSet, mmrIndexes: number[], pageSize: number, state: ScanClientState, once = false): Promise<void> {
  while (!state.stopped && state.errors.length === 0) {
    const scanStarted = performance.now();
    const found: ScanHit[] = [];
    let start = 1;
    let complete = false;
    while (!complete && !state.stopped) {
      const response = await fetch(`${baseUrl}/api/v1/wallet/grin/scan`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ rewind_hash: set.rewindHash, start_index: start, max: pageSize }),
      }).catch((err: Error) => err);
      if (response instanceof Error) {
        state.errors.push(`scan page at ${start}: ${response.message}`);
        return;
      }
      const text = await response.text();
      if (response.status !== 200) {
        state.errors.push(`scan page at ${start}: status ${response.status}: ${text.slice(0, 300)}`);
        return;
      }
      const page = JSON.parse(text) as { outputs: ScanHit[]; next_index: number; complete: boolean };
      found.push(...page.outputs);
      if (performance.now() <= state.windowEnd) {
        state.pages++;
        state.outputs += lowerBound(mmrIndexes, page.next_index) - lowerBound(mmrIndexes, start);
      }
      complete = page.complete;
      start = page.next_index;
    }
    if (!complete) return;
    const key = JSON.stringify(found);
    if (state.first === null) {
      state.first = key;
      state.hits = found;
    } else if (key !== state.first) {
      state.errors.push(`a scan found ${found.length} outputs, unlike the first scan's ${state.hits.length}`);
    }
    if (performance.now() <= state.windowEnd) {
      state.scans++;
      state.scanSeconds += (performance.now() - scanStarted) / 1_000;
    }
    if (once) return;
  }
}

async function measureDialect(dialect: DialectName, nodeUrl: string, set: ScanOutputSet, options: Required<Omit<ScanLatencyOptions, 'jsonPath' | 'dialects'>> & { pageSize: number }): Promise<DialectReport> {
  const errors: string[] = [];
  // The production logger's work (one JSON line per request) without the console I/O; 5xx lines are kept.
  const logger = createJsonLogger({ level: 'info', write: (line) => void (line.startsWith('{"level":"error"') && errors.push(`server: ${line.slice(0, 400)}`)) });
  const backend = await createWalletBackend({
    publicApiUrl: TEST_PUBLIC_API_URL,
    databaseUrl: await freshDatabaseUrl(dialect),
    nodeEnv: 'test',
    rateLimitMax: 100_000,
    ...TEST_SECRETS,
    logger,
    schedulerEnabled: false,
    grinNodeUrl: nodeUrl,
    grinNodeApiSecret: FAKE_GRIN_SECRET,
    grinScanPageSize: options.pageSize,
    // A 10,000-output page is ~14 MB from the node; a loaded shared machine must not turn it into a 503.
    upstreamTimeoutMs: 30_000,
  });
  try {
    await backend.migrate();
    const { url } = await backend.start({ port: 0, host: '127.0.0.1' });
    const baseUrl = url!;
    const token = (await seedSession(backend)).auth.access_token;
    const mmrIndexes = set.outputs.map((output) => output.mmr_index);
    const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });

    // Warm-up: one whole scan (starts the pool's workers) and a little /health load.
    const warm: ScanClientState = { stopped: false, windowEnd: 0, scans: 0, scanSeconds: 0, pages: 0, outputs: 0, first: null, hits: [], errors: [] };
    await scanClient(baseUrl, token, set, mmrIndexes, options.pageSize, warm, true);
    errors.push(...warm.errors.map((error) => `warm-up ${error}`));
    if (options.warmupSec > 0) await loadHealth(baseUrl, options.connections, options.warmupSec);

    options.log(`[${dialect}] baseline: /health × ${options.connections} connections, ${options.durationSec} s`);
    eld.reset();
    eld.enable();
    let started = performance.now();
    const baselineHealth = await loadHealth(baseUrl, options.connections, options.durationSec);
    eld.disable();
    const baseline: PhaseFigures = { window_sec: round((performance.now() - started) / 1_000), health: baselineHealth, event_loop_delay: delayFigures(eld) };
    errors.push(...healthErrors(`${dialect} baseline`, baselineHealth));

    options.log(`[${dialect}] under scans: the same load + ${options.scanClients} scan clients × ${set.outputs.length} outputs, page ${options.pageSize}`);
    const state: ScanClientState = { stopped: false, windowEnd: Infinity, scans: 0, scanSeconds: 0, pages: 0, outputs: 0, first: warm.first, hits: warm.hits, errors: [] };
    eld.reset();
    eld.enable();
    started = performance.now();
    const clients = Array.from({ length: options.scanClients }, () => scanClient(baseUrl, token, set, mmrIndexes, options.pageSize, state));
    const loadedHealth = await loadHealth(baseUrl, options.connections, options.durationSec);
    state.windowEnd = performance.now();
    state.stopped = true;
    eld.disable();
    const windowSec = (state.windowEnd - started) / 1_000;
    await Promise.all(clients);
    errors.push(...healthErrors(`${dialect} under scans`, loadedHealth), ...state.errors.map((error) => `${dialect} ${error}`));
    if (state.scans === 0) errors.push(`${dialect}: no scan completed within ${round(windowSec)} s`);
    const rate = state.outputs / windowSec;
    const scans: ScanFigures = {
      clients: options.scanClients,
      page_size: options.pageSize,
      scans_completed: state.scans,
      pages: state.pages,
      outputs_scanned: state.outputs,
      outputs_per_sec: Math.round(rate),
      mean_scan_sec: state.scans === 0 ? null : round(state.scanSeconds / state.scans, 3),
      projected_full_chain_sec: rate === 0 ? null : round(FULL_CHAIN_OUTPUTS / rate, 1),
    };
    return {
      dialect,
      baseline,
      under_scans: { window_sec: round(windowSec), health: loadedHealth, event_loop_delay: delayFigures(eld), scans },
      verdict: loadedHealth.p99_ms < TARGET_P99_MS ? 'PASS' : 'FAIL',
      hits: state.hits,
      errors,
    };
  } finally {
    await backend.close();
  }
}

/** The whole measurement (see the module comment); never throws on FAIL, lists errors in `errors`. */
export async function measureScanLatency(options: ScanLatencyOptions = {}): Promise<ScanLatencyReport> {
  const dialects = [...(options.dialects ?? DIALECTS)];
  const pageSize = options.pageSize ?? defaultScanPage();
  if (pageSize > largestScanPage()) throw new Error(`the page size may be at most ${largestScanPage()}`);
  const resolved = {
    durationSec: options.durationSec ?? 10,
    outputs: options.outputs ?? 10_000,
    scanClients: options.scanClients ?? 2,
    connections: options.connections ?? 16,
    warmupSec: options.warmupSec ?? 1,
    scannerSec: options.scannerSec ?? Math.min(5, options.durationSec ?? 10),
    log: options.log ?? ((line: string) => console.log(line)),
    table: options.table ?? ((rows: object[]) => console.table(rows)),
    pageSize,
  };
  const jsonPath = options.jsonPath === undefined ? DEFAULT_JSON_PATH : options.jsonPath;
  const loadStart = loadavg().map((value) => round(value));
  const set = buildScanOutputs(resolved.outputs);
  const errors: string[] = [];

  resolved.log(`scanner alone: the server's pool, then one worker, ${resolved.scannerSec} s each`);
  const pool = await scannerRate(undefined, set, pageSize, resolved.scannerSec, errors);
  const oneWorker = await scannerRate(1, set, pageSize, resolved.scannerSec, errors);

  const node = await startNode(set.outputs);
  const reports: DialectReport[] = [];
  try {
    for (const dialect of dialects) {
      const report = await measureDialect(dialect, node.url, set, resolved);
      reports.push(report);
      errors.push(...report.errors);
    }
  } finally {
    await node.close();
  }

  const report: ScanLatencyReport = {
    target: `/health p99 < ${TARGET_P99_MS} ms while scans of ${set.outputs.length} outputs run`,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
    load_average: { start: loadStart, end: loadavg().map((value) => round(value)) },
    options: { dialects, duration_sec: resolved.durationSec, outputs: resolved.outputs, scan_clients: resolved.scanClients, connections: resolved.connections, page_size: pageSize },
    scanners: { pool, one_worker: oneWorker },
    dialects: reports,
    errors,
    json_path: jsonPath,
  };
  printReport(report, resolved.log, resolved.table);
  if (jsonPath !== null) {
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    resolved.log(`wrote ${jsonPath}`);
  }
  return report;
}

function printReport(report: ScanLatencyReport, log: (line: string) => void, table: (rows: object[]) => void): void {
  log(`\nGrin scan vs /health: ${report.machine.cpu}, ${report.machine.cores} cores, node ${report.machine.node}, load average ${report.load_average.start.join(' ')} → ${report.load_average.end.join(' ')}`);
  log(`${report.options.outputs} outputs, page ${report.options.page_size}, ${report.options.scan_clients} scan clients, /health × ${report.options.connections} connections, ${report.options.duration_sec} s per phase`);
  table(
    report.dialects.flatMap((dialect) =>
      (['baseline', 'under_scans'] as const).map((phase) => {
        const figures = dialect[phase];
        const scans = phase === 'under_scans' ? dialect.under_scans.scans : null;
        return {
          dialect: dialect.dialect,
          phase: phase === 'baseline' ? 'baseline' : 'under scans',
          'req/s': figures.health.rps,
          'p50 ms': figures.health.p50_ms,
          'p99 ms': figures.health.p99_ms,
          'max ms': figures.health.max_ms,
          'eld p50': figures.event_loop_delay.p50_ms,
          'eld p99': figures.event_loop_delay.p99_ms,
          'eld max': figures.event_loop_delay.max_ms,
          scans: scans?.scans_completed ?? '',
          'outputs/s': scans?.outputs_per_sec ?? '',
          verdict: phase === 'baseline' ? '' : `${dialect.verdict} (p99 < ${TARGET_P99_MS} ms)`,
        };
      }),
    ),
  );
  log('eld = event-loop delay of the server thread beyond the 10 ms sampling interval, ms');
  const scanners = [
    { scanner: `pool as the server builds it (${report.scanners.pool.workers} workers)`, ...report.scanners.pool },
    { scanner: 'one worker', ...report.scanners.one_worker },
    ...report.dialects.map((dialect) => ({
      scanner: `HTTP under /health load, ${dialect.dialect} (aggregate of ${dialect.under_scans.scans.clients} clients)`,
      outputs_per_sec: dialect.under_scans.scans.outputs_per_sec,
      projected_full_chain_sec: dialect.under_scans.scans.projected_full_chain_sec,
    })),
  ];
  table(scanners.map((row) => ({ scanner: row.scanner, 'outputs/s': row.outputs_per_sec, [`${FULL_CHAIN_OUTPUTS} outputs, s`]: row.projected_full_chain_sec })));
  for (const error of report.errors) log(`ERROR ${error}`);
}

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

async function main(): Promise<number> {
  try {
    const report = await measureScanLatency({
      durationSec: envInt('BENCH_DURATION_SEC', 10),
      outputs: envInt('BENCH_OUTPUTS', 10_000),
      scanClients: envInt('BENCH_SCANS', 2),
      connections: envInt('BENCH_CONNECTIONS', 16),
      pageSize: envInt('BENCH_PAGE_SIZE', defaultScanPage()),
    });
    return report.errors.length > 0 ? 1 : 0;
  } catch (err) {
    console.error(err);
    return 1;
  } finally {
    removeSqliteFiles();
    await dropRunDatabase().catch((err: Error) => console.error(`could not drop the bench database: ${err.message}`));
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main().then((code) => (process.exitCode = code));
}
