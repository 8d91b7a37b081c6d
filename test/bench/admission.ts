/**
 * `npm run bench:admission [-- flags]`: what a relay admission decision costs (@wallet/relay-admission).
 * On a fresh SQLite file and a fresh Postgres database, each seeded with 10 000 users with a Nostr
 * key (2 000 premium, 500 lapsed), it measures (`--paths`, default all but verify):
 *  - hook: the in-process hook without signature checks (as the strfry and nostr-rs-relay adapters
 *    run it) over the pre-signed mixed workload (`--events`, test/bench/admission-events.ts), with
 *    the default 10 s standing cache and with `cacheTtlMs: 0`;
 *  - verify: the hook with signature checks on the first `--verify-events` of them, beside a bare
 *    nostr-tools `verifyEvent` loop (the ceiling);
 *  - pipe: the real `wallet-relay-admission strfry` executable over the mixed workload, one request
 *    at a time as strfry sends them, and pipelined (`--window` in flight);
 *  - ceiling: the real executable against an accept-all plugin (accept-all-plugin.mjs: a plain
 *    Node plugin, readline's async iterator in and one JSON line out, no decision),
 *    both spawned alike, one line at a time, `--rounds` rounds (even) of `--mix-events` events per
 *    mix, each round on a fresh pair of processes (`--restart off`: one pair per mix) in
 *    `--block`-event turns, ours and the accept-all plugin on the same block, who goes first
 *    alternating per block and per round: premium authors; registered non-premium authors posting
 *    free kinds (1059, 10050); gift wraps from brand-new one-time keys to the active users in turn
 *    (NIP-17). Each pair first makes one untimed-for-the-target pass that reads every standing
 *    the mix's rounds rest on (printed as "first pass": one database read per new pubkey), so the
 *    rounds measure a relay whose users were seen within the cache's lifetime. Target: the
 *    median of the rounds' ours/ceiling ratios >= 0.9 with the standings cached; CPU per decision
 *    from /proc is printed beside it, and `--json <file>` keeps every round's figures and pids;
 *  - stall: the executable speaking strfry's protocol one line at a time while the `users` table
 *    is really locked (Postgres: LOCK TABLE … ACCESS EXCLUSIVE from another connection; SQLite:
 *    the file's WAL read marks held by another process, see sqlite-read-lock.py). Target: after the
 *    first timeout every decision within 50 ms until the lock is released, then normal answers
 *    from the same process (issue 32 item 2).
 * Every answer is checked against the decision the policy owes the event. Figures are printed
 * with PASS/FAIL against the targets; nothing throws on a miss (a benchmark, not a test).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg, platform, arch } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { verifyEvent, type Event } from 'nostr-tools/pure';
import { createRelayAdmission, ADMISSION_DEFAULTS } from '@wallet/relay-admission';
import { createTestBackend, DIALECTS, type DialectName } from '../harness/backend.js';
import { dropRunDatabase } from '../harness/postgres.js';
import { removeSqliteFiles } from '../harness/sqlite.js';
import { loadFreshWraps, loadWorkload, LAPSED_USERS, OUTSIDERS, PREMIUM_USERS, USERS, type BenchEvent, type BenchUser } from './admission-events.js';
import { machineCpuTimes, stealPercentSince } from './machine-cpu.js';
import { balancedMedian } from './median.js';

const TARGET_IN_PROCESS = 20_000;
const TARGET_PIPE = 5_000;
const TARGET_RATIO = 0.9;
const TARGET_STALL_MS = 50;
const ALL_PATHS = ['hook', 'verify', 'pipe', 'ceiling', 'stall'];
const ACCEPT_ALL = fileURLToPath(new URL('./accept-all-plugin.mjs', import.meta.url));
const SQLITE_READ_LOCK = fileURLToPath(new URL('../harness/sqlite-read-lock.py', import.meta.url));
/** The stall scenario sends its next line no sooner than this after the previous one (strfry sends as events arrive). */
const STALL_GAP_MS = 5;
/** How long the stall scenario waits for a first refusal, and then for normal answers, before it gives up. */
const STALL_GIVE_UP_MS = 30_000;

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    'verify-events': { type: 'string', default: '2000' },
    'mix-events': { type: 'string', default: '10000' },
    block: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '6' },
    'stall-ms': { type: 'string', default: '5000' },
    'db-timeout-ms': { type: 'string', default: '500' },
    dialect: { type: 'string', default: 'both' },
    window: { type: 'string', default: '256' },
    paths: { type: 'string', default: 'hook,pipe,ceiling,stall' },
    plugin: { type: 'string' },
    restart: { type: 'string', default: 'on' },
    json: { type: 'string' },
  },
});
const whole = (name: string, min: number) => {
  const n = Number(args[name as keyof typeof args]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return n;
};
const EVENTS = whole('events', 1000);
const VERIFY_EVENTS = Math.min(EVENTS, whole('verify-events', 1));
const MIX_EVENTS = whole('mix-events', 100);
const ROUNDS = whole('rounds', 2);
const BLOCK = whole('block', 1);
const CALIBRATION = 'accept-all as ours (noise)';
// Who goes first in a round runs measurably slower here, so the order alternates and the rounds come in pairs.
if (ROUNDS % 2 !== 0) throw new Error('--rounds must be even: each pair lets ours and the accept-all plugin go first once');
if (args.restart !== 'on' && args.restart !== 'off') throw new Error('--restart must be on or off');
/** A fresh pair of plugin processes for every round of a mix (off: one pair for all its rounds). */
const RESTART = args.restart === 'on';
const STALL_MS = whole('stall-ms', 500);
const DB_TIMEOUT_MS = whole('db-timeout-ms', 1);
const WINDOW = whole('window', 1);
if (!['both', ...DIALECTS].includes(args.dialect)) throw new Error('--dialect must be sqlite, postgres or both');
const dialects = args.dialect === 'both' ? DIALECTS : [args.dialect as DialectName];
const paths = new Set(args.paths.split(','));
if (![...paths].every((path) => ALL_PATHS.includes(path))) throw new Error(`--paths is a comma-separated list of ${ALL_PATHS.join(', ')}`);

const progress = (message: string) => process.stderr.write(`${message}\n`);

interface Figures {
  rate: number;
  p50: number;
  p99: number;
  accepted: number;
  wrong: number;
}

const sortedOf = (values: ArrayLike<number>) => Float64Array.from(values).sort();
const percentile = (sorted: Float64Array, p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

function figures(latencies: Float64Array, totalMs: number, accepted: number, wrong: number): Figures {
  const sorted = sortedOf(latencies);
  return { rate: (latencies.length / totalMs) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99), accepted, wrong };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number | null) => (n === null || Number.isNaN(n) ? '-' : `${n.toFixed(1)} ms`);
function row(dialect: string, path: string, f: Figures, target?: number): void {
  const verdict = target === undefined ? '' : `>= ${int(target)}/s ${f.rate >= target ? 'PASS' : 'FAIL'}`;
  const wrong = f.wrong === 0 ? '' : `  ${f.wrong} WRONG ANSWERS`;
  const line = `${dialect.padEnd(9)}${path.padEnd(48)}${int(f.rate).padStart(11)}${f.p50.toFixed(3).padStart(9)}${f.p99.toFixed(3).padStart(9)}${int(f.accepted).padStart(10)}  ${verdict}${wrong}`;
  console.log(line);
}
const HEADER = `${'dialect'.padEnd(9)}${'path'.padEnd(48)}${'decisions/s'.padStart(11)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'accepted'.padStart(10)}  target`;

async function seed(dialect: DialectName, users: BenchUser[]): Promise<string> {
  const t = await createTestBackend(dialect, { listen: false, realClock: true });
  try {
    const { knex, dialect: sql } = t.backend.db;
    const now = Date.now();
    const created = sql.time(new Date(now - 90 * 86_400_000));
    const premium = sql.time(new Date(now + 30 * 86_400_000));
    const lapsed = sql.time(new Date(now - 30 * 86_400_000));
    const records: Array<{ id: string; username: string | null; nostr_pubkey: string | null; premium_until: unknown; created_at: unknown; updated_at: unknown }> = users.map((user, i) => ({
      id: randomUUID(),
      username: i % 3 === 0 ? `bench${i}` : null,
      nostr_pubkey: user.pubkey,
      premium_until: user.standing === 'premium' ? premium : user.standing === 'lapsed' ? lapsed : null,
      created_at: created,
      updated_at: created,
    }));
    // Users who never linked a Nostr key are in the table too.
    for (let i = 0; i < users.length / 2; i++) records.push({ id: randomUUID(), username: `plain${i}`, nostr_pubkey: null, premium_until: null, created_at: created, updated_at: created });
    await knex.batchInsert('users', records, 100);
    return t.databaseUrl;
  } finally {
    await t.close();
  }
}

async function inProcess(databaseUrl: string, events: BenchEvent[], options: { verifySignatures: boolean; cacheTtlMs: number }): Promise<Figures> {
  // JIT warm-up on a throwaway instance, so the timed one starts with a cold cache.
  const warm = createRelayAdmission({ databaseUrl, ...options });
  for (const { event } of events.slice(0, 500)) await warm.admit(event);
  await warm.close();
  const admission = createRelayAdmission({ databaseUrl, ...options });
  const latencies = new Float64Array(events.length);
  let accepted = 0;
  let wrong = 0;
  try {
    const start = performance.now();
    for (let i = 0; i < events.length; i++) {
      const { event, accept } = events[i]!;
      const t0 = performance.now();
      const decision = await admission.admit(event);
      latencies[i] = performance.now() - t0;
      if (decision.accept) accepted++;
      if (decision.accept !== accept) wrong++;
    }
    return figures(latencies, performance.now() - start, accepted, wrong);
  } finally {
    await admission.close();
  }
}

function bareVerify(events: BenchEvent[]): Figures {
  const latencies = new Float64Array(events.length);
  let valid = 0;
  const start = performance.now();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!.event;
    const t0 = performance.now();
    // A fresh object, as the hook passes: nostr-tools caches a verdict on the object it checked.
    if (verifyEvent({ id: e.id, pubkey: e.pubkey, created_at: e.created_at, kind: e.kind, tags: e.tags, content: e.content, sig: e.sig })) valid++;
    latencies[i] = performance.now() - t0;
  }
  return figures(latencies, performance.now() - start, valid, events.length - valid);
}

interface PluginCommand {
  /** node's arguments before the global options (the script, or the tsx loader and the script). */
  script: string[];
  label: string;
  /** The database-timeout option, if this build has one: its name and whether it goes after `strfry`. */
  dbTimeout: { flag: string; onStrfry: boolean } | null;
}

/** The executable: `--plugin`, else the built dist when it is at least as new as every source file, else the sources through tsx. */
function pluginCommand(): PluginCommand {
  let script: string[];
  let label: string;
  if (args.plugin !== undefined) {
    script = [args.plugin];
    label = `node ${args.plugin} (--plugin)`;
  } else {
    const pkg = join(process.cwd(), 'packages/relay-admission');
    const dist = join(pkg, 'dist/bin.js');
    const sources = readdirSync(join(pkg, 'src')).filter((name) => name.endsWith('.ts'));
    const built = (name: string) => join(pkg, `dist/${name.replace(/\.ts$/, '.js')}`);
    const fresh = existsSync(dist) && sources.every((name) => existsSync(built(name)) && statSync(built(name)).mtimeMs >= statSync(join(pkg, `src/${name}`)).mtimeMs);
    if (fresh) {
      script = [dist];
      label = 'node packages/relay-admission/dist/bin.js';
    } else {
      script = ['--import', 'tsx', '--conditions=wallet-source', join(pkg, 'src/bin.ts')];
      label = 'node --import tsx --conditions=wallet-source packages/relay-admission/src/bin.ts (dist missing or older than src: run npx tsc -b)';
    }
  }
  // A database-timeout option, when the build has one (`--db-timeout-ms`, `--database-timeout-ms`, …).
  const help = (extra: string[]) => spawnSync(process.execPath, [...script, ...extra, '--help'], { encoding: 'utf8' }).stdout ?? '';
  const pattern = /--(?:db|database)-[a-z-]*timeout[a-z-]*/;
  const global = pattern.exec(help([]));
  const strfry = global === null ? pattern.exec(help(['strfry'])) : null;
  const dbTimeout = global !== null ? { flag: global[0], onStrfry: false } : strfry !== null ? { flag: strfry[0], onStrfry: true } : null;
  return { script, label, dbTimeout };
}

/** `node <script> --database-url <url> [global options] strfry [strfry options]`, as operators run it. */
function pluginArgv(command: PluginCommand, databaseUrl: string, options: { dbTimeoutMs?: number; cacheTtlMs?: number } = {}): string[] {
  const global = ['--database-url', databaseUrl];
  const strfry: string[] = [];
  if (options.cacheTtlMs !== undefined) global.push('--cache-ttl-ms', String(options.cacheTtlMs));
  if (options.dbTimeoutMs !== undefined && command.dbTimeout !== null) (command.dbTimeout.onStrfry ? strfry : global).push(command.dbTimeout.flag, String(options.dbTimeoutMs));
  return [...command.script, ...global, 'strfry', ...strfry];
}

class Plugin {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(line: string) => void> = [];
  private readonly ready: string[] = [];
  private stderr = '';
  exited = false;

  constructor(argv: string[]) {
    // Both plugins alike: the same node binary, no extra flags, the same environment and pipes.
    this.child = spawn(process.execPath, argv, { env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      if (this.stderr.length > 1_000_000) this.stderr = this.stderr.slice(-100_000);
    });
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      const resolve = this.waiting.shift();
      if (resolve) resolve(line);
      else this.ready.push(line);
    });
    this.child.on('exit', (code) => {
      this.exited = true;
      if (this.waiting.length > 0) throw new Error(`the strfry plugin exited (${code}) with answers owed: ${this.stderr.slice(-2000)}`);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** CPU time the process has used so far, ms (user + system, every thread; /proc's clock ticks, 10 ms apart). */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  }

  send(line: string): void {
    this.child.stdin.write(line);
  }

  answer(): Promise<string> {
    const line = this.ready.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Sends one line and waits for its answer. */
  async ask(line: string): Promise<{ id: string; action: string; msg: string }> {
    this.send(line);
    return JSON.parse(await this.answer()) as { id: string; action: string; msg: string };
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    await exited;
  }
}

/** USER_HZ: the unit of /proc/<pid>/stat's times (100 on Linux for decades). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A strfry request line, built before timing (serialising it is strfry's work, not the plugin's). */
const receivedAt = Math.floor(Date.now() / 1000);
const requestLine = (event: Event) => `${JSON.stringify({ type: 'new', event, receivedAt, sourceType: 'IP4', sourceInfo: '1.2.3.4' })}\n`;
const requestLines = (events: BenchEvent[]) => events.map(({ event }) => requestLine(event));

async function throughPipe(argv: string[], events: BenchEvent[], lines: string[], window: number): Promise<Figures> {
  const plugin = new Plugin(argv);
  try {
    // Start-up and the first database connection are not timed: the first request, answered once before the clock starts.
    plugin.send(lines[0]!);
    await plugin.answer();
    const sentAt = new Float64Array(events.length);
    const latencies = new Float64Array(events.length);
    let accepted = 0;
    let wrong = 0;
    let sent = 0;
    const start = performance.now();
    for (let i = 0; i < events.length; i++) {
      while (sent < events.length && sent - i < window) {
        sentAt[sent] = performance.now();
        plugin.send(lines[sent]!);
        sent++;
      }
      const answer = JSON.parse(await plugin.answer()) as { id: string; action: string };
      latencies[i] = performance.now() - sentAt[i]!;
      const { event, accept } = events[i]!;
      if (answer.action === 'accept') accepted++;
      if (answer.id !== event.id || (answer.action === 'accept') !== accept) wrong++;
    }
    return figures(latencies, performance.now() - start, accepted, wrong);
  } finally {
    await plugin.close();
  }
}

// ---- ours against the accept-all ceiling, one line at a time ----

interface Mix {
  name: string;
  /** Untimed: start-up, the first connection, the JIT. */
  warm: Event[];
  /**
   * Timed apart, no target: a pass that reads every standing the rounds read (each distinct pubkey
   * once from the database, as a relay does on first sight of a user in a cache lifetime). After
   * it the rounds run with their standings cached, as on a relay whose users were seen within the
   * last `cacheTtlMs`.
   */
  firstSight: Event[];
  /** One set per round (the same set each round, except where authors must be new each time). */
  rounds: Event[][];
}

interface MixResult {
  dialect: DialectName;
  mix: string;
  /** The accept-all plugin against itself: no target, its distance from 1.00 is the bench's own noise. */
  calibration: boolean;
  ours: number;
  ceiling: number;
  oursRounds: number[];
  ceilingRounds: number[];
  /** The verdict's figure: the median of the rounds' ratios (each round a fresh pair unless --restart off). */
  ratio: number;
  /** The processes that answered each round. */
  pids: Array<{ ours: number; ceiling: number }>;
  /** CPU per decision over the rounds, µs (the process's own CPU: what the plugin costs the relay host). */
  oursCpuUs: number;
  ceilingCpuUs: number;
  wrong: number;
  p99: number;
  /** The first-sight passes (one per pair): events in all, ours/s, ceiling/s. */
  firstSight: { events: number; ours: number; ceiling: number };
}

/** `events`, one line at a time: write, wait for the answer, next. Every answer is owed an accept. */
async function oneAtATime(plugin: Plugin, lines: string[], events: Event[]): Promise<{ ms: number; cpuMs: number; wrong: number; latencies: Float64Array }> {
  const latencies = new Float64Array(lines.length);
  let wrong = 0;
  const cpuBefore = plugin.cpuMs();
  const start = performance.now();
  for (let i = 0; i < lines.length; i++) {
    const t0 = performance.now();
    plugin.send(lines[i]!);
    const answer = JSON.parse(await plugin.answer()) as { id: string; action: string };
    latencies[i] = performance.now() - t0;
    if (answer.id !== events[i]!.id || answer.action !== 'accept') wrong++;
  }
  const ms = performance.now() - start;
  return { ms, cpuMs: plugin.cpuMs() - cpuBefore, wrong, latencies };
}

/** A pair of plugin processes, ours and the accept-all one, started and warmed alike. */
interface Pair {
  ours: Plugin;
  ceiling: Plugin;
}

/**
 * One mix, one line at a time, `oursArgv` against the accept-all plugin. Both are started afresh
 * for every round (`--restart off`: once for the mix): a process keeps what it drew at start
 * (which core the scheduler keeps it on, where its heap and code landed, how V8 tuned its
 * collector) for life: two identical plugins started once each per mix gave single-round
 * ratios from 0.71 to 1.07 here, so one draw per side measured the draw. Each new pair is
 * warmed (the JIT) and makes the first-sight pass (the standings cached) before its round. The
 * verdict is the median of the rounds' ratios, as `npm run bench` takes the median of its
 * rounds; the calibration row, the accept-all plugin in ours' place, shows how far apart two
 * identical plugins still land.
 */
async function againstCeiling(dialect: DialectName, oursArgv: string[], mix: Mix, calibration = false): Promise<MixResult> {
  type Run = Awaited<ReturnType<typeof oneAtATime>>;
  let pair: Pair | null = null;
  const close = async () => {
    if (pair === null) return;
    const closing = pair;
    pair = null;
    await Promise.all([closing.ours.close(), closing.ceiling.close()]);
  };
  /**
   * `events` in blocks, ours and the accept-all plugin in turn on each, who goes first
   * alternating from block to block (and with `parity`, from round to round): this machine's
   * speed drifts over seconds, by more than the difference measured, and each plugin must meet
   * the same drift.
   */
  async function dealt(on: Pair, events: Event[], lines: string[], parity: number, each: (who: 'ours' | 'ceiling', run: Run) => void): Promise<void> {
    for (let from = 0, block = 0; from < events.length; from += BLOCK, block++) {
      const order = (parity + block) % 2 === 0 ? (['ours', 'ceiling'] as const) : (['ceiling', 'ours'] as const);
      for (const who of order) each(who, await oneAtATime(on[who], lines.slice(from, from + BLOCK), events.slice(from, from + BLOCK)));
    }
  }
  const warmLines = mix.warm.map(requestLine);
  const firstSightLines = mix.firstSight.map(requestLine);
  const first = { ours: 0, ceiling: 0, passes: 0 };
  let wrong = 0;
  /** A new pair: started, warmed, and through the first-sight pass. */
  async function started(parity: number): Promise<Pair> {
    const fresh: Pair = { ours: new Plugin(oursArgv), ceiling: new Plugin([ACCEPT_ALL]) };
    pair = fresh;
    await oneAtATime(fresh.ours, warmLines, mix.warm);
    await oneAtATime(fresh.ceiling, warmLines, mix.warm);
    await dealt(fresh, mix.firstSight, firstSightLines, parity, (who, run) => {
      first[who] += run.ms;
      if (who === 'ours') wrong += run.wrong;
    });
    first.passes++;
    return fresh;
  }
  try {
    // Serialised once: most mixes send the same events every round.
    const roundLines = mix.rounds.map((events) => events.map(requestLine));
    const oursMs: number[] = [];
    const ceilingMs: number[] = [];
    const pids: Array<{ ours: number; ceiling: number }> = [];
    const oursLatencies: Float64Array[] = [];
    const cpu = { ours: 0, ceiling: 0 };
    for (let r = 0; r < mix.rounds.length; r++) {
      if (r > 0 && RESTART) await close();
      const on = pair ?? (await started(r));
      pids.push({ ours: on.ours.pid ?? -1, ceiling: on.ceiling.pid ?? -1 });
      const round = { ours: 0, ceiling: 0 };
      await dealt(on, mix.rounds[r]!, roundLines[r]!, r, (who, run) => {
        round[who] += run.ms;
        cpu[who] += run.cpuMs;
        if (who === 'ours') {
          wrong += run.wrong;
          oursLatencies.push(run.latencies);
        } else if (run.wrong > 0) throw new Error('the accept-all plugin answered wrong');
      });
      oursMs.push(round.ours);
      ceilingMs.push(round.ceiling);
      progress(`  round ${r + 1}${RESTART || r === 0 ? ` (pids ${pids[r]!.ours}/${pids[r]!.ceiling})` : ''}: ours ${int((mix.rounds[r]!.length / oursMs[r]!) * 1000)}/s, ceiling ${int((mix.rounds[r]!.length / ceilingMs[r]!) * 1000)}/s`);
    }
    const total = mix.rounds.reduce((sum, events) => sum + events.length, 0);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const all = new Float64Array(total);
    let at = 0;
    for (const latencies of oursLatencies) {
      all.set(latencies, at);
      at += latencies.length;
    }
    const firstEvents = mix.firstSight.length * first.passes;
    const perSecond = (ms: number) => (ms === 0 ? NaN : (firstEvents / ms) * 1000);
    progress(`  first-sight passes (${first.passes} × ${mix.firstSight.length} events, standings read): ours ${int(perSecond(first.ours))}/s, ceiling ${int(perSecond(first.ceiling))}/s`);
    const oursRounds = oursMs.map((m, r) => (mix.rounds[r]!.length / m) * 1000);
    const ceilingRounds = ceilingMs.map((m, r) => (mix.rounds[r]!.length / m) * 1000);
    return {
      dialect,
      mix: mix.name,
      calibration,
      ours: (total / sum(oursMs)) * 1000,
      ceiling: (total / sum(ceilingMs)) * 1000,
      oursRounds,
      ceilingRounds,
      ratio: balancedMedian(oursRounds.map((rate, r) => rate / ceilingRounds[r]!)),
      pids,
      oursCpuUs: (cpu.ours * 1000) / total,
      ceilingCpuUs: (cpu.ceiling * 1000) / total,
      wrong,
      p99: percentile(sortedOf(all), 99),
      firstSight: { events: firstEvents, ours: perSecond(first.ours), ceiling: perSecond(first.ceiling) },
    };
  } finally {
    await close();
  }
}

/** `count` events cycling through `pool`. */
const cycle = <T>(pool: T[], count: number, from = 0): T[] => Array.from({ length: count }, (_, i) => pool[(from + i) % pool.length]!);

// ---- the stall ----

interface Lock {
  how: string;
  /** How a separate fresh reader fared against the lock (may resolve after release). */
  verified: Promise<string>;
  release(): Promise<void>;
}

async function lockPostgres(databaseUrl: string): Promise<Lock> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  const table = `"${schema}".users`;
  const holder = new pg.Client({ connectionString: url.toString() });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  const verified = (async () => {
    const reader = new pg.Client({ connectionString: url.toString() });
    await reader.connect();
    try {
      await reader.query("SET lock_timeout = '200ms'");
      await reader.query(`SELECT 1 FROM ${table} LIMIT 1`);
      return 'a fresh connection READ the table: NOT LOCKED';
    } catch (err) {
      return `a fresh connection's SELECT failed: ${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
    } finally {
      await reader.end();
    }
  })();
  return {
    how: `another connection holds BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`,
    verified,
    async release() {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

/** A reader in another process (its sqlite3 may block synchronously): what it got, and after how long. */
function sqliteReaderVerdict(file: string): Promise<string> {
  const script = `const D=require('better-sqlite3');const t=performance.now();try{const d=new D(${JSON.stringify(file)});d.pragma('busy_timeout = 0');d.prepare('SELECT count(*) FROM users').get();console.log('a fresh reader in another process READ the file after '+(performance.now()-t).toFixed(0)+' ms')}catch(e){console.log('a fresh reader in another process got '+e.code+' ('+e.message+') after '+(performance.now()-t).toFixed(0)+' ms')}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', () => resolve(out.trim()));
  });
}

async function lockSqlite(databaseUrl: string): Promise<Lock> {
  const file = databaseUrl.slice('sqlite:'.length);
  // What the issue asks first: exclusive locking mode and an exclusive write transaction.
  const holder = new Database(file);
  holder.pragma('busy_timeout = 0');
  let literal: string;
  try {
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    holder.prepare('UPDATE users SET updated_at = updated_at WHERE rowid = (SELECT min(rowid) FROM users)').run();
    const verdict = await sqliteReaderVerdict(file);
    return {
      how: 'another connection holds PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE users …',
      verified: Promise.resolve(verdict),
      async release() {
        holder.exec('COMMIT');
        holder.close();
      },
    };
  } catch (err) {
    literal = `${(err as { code?: string }).code ?? (err as Error).message}`;
    holder.close();
  }
  // In WAL mode every open connection keeps a shared lock, so the plugin's own connection makes that
  // impossible (SQLITE_BUSY). What a WAL reader needs is a read mark: another process holds them all.
  const locker = spawn('python3', [SQLITE_READ_LOCK, file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  locker.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    locker.stdout.once('data', () => resolve());
    locker.once('error', reject);
    locker.once('exit', (code) => reject(new Error(`sqlite-read-lock.py exited (${code}): ${err}`)));
  });
  return {
    how: `locking_mode=EXCLUSIVE + BEGIN EXCLUSIVE got ${literal} (WAL: the plugin's open connection holds a shared lock), so another process (test/harness/sqlite-read-lock.py) holds all five WAL read-mark locks of the -shm file exclusively`,
    verified: sqliteReaderVerdict(file),
    async release() {
      const exited = new Promise<void>((resolve) => locker.once('exit', () => resolve()));
      locker.stdin.end();
      await exited;
    },
  };
}

interface StallResult {
  dialect: DialectName;
  how: string;
  verified: string;
  options: string;
  /** ms from locking to the first answer, and to the first refusal (the first timeout), with its latency. */
  firstAnswer: number | null;
  firstRefusal: number | null;
  firstRefusalLatency: number | null;
  heldMs: number;
  /** Answers to lines sent after the first refusal and before release. */
  after: { count: number; max: number; p99: number; over: number; refused: number; slowest: string };
  /**
   * This (the bench's) process's own garbage collections while the lock was held: a pause here
   * delays the answer it times as much as one in the plugin. The longest, and how much of it fell
   * inside the slowest answer's wait.
   */
  benchPauses: { count: number; longest: number; inSlowest: number };
  cached: { sent: number; accepted: number };
  /** ms from release to the first accept of an uncached registered author; refusals before it. */
  resumed: number | null;
  refusedAfterRelease: number;
  alive: boolean;
  pass: boolean;
}

interface StallPools {
  premium: Event[];
  registered: Event[];
  reserve: Event[];
  wraps: Event[];
}

async function stall(dialect: DialectName, command: PluginCommand, databaseUrl: string, pools: StallPools): Promise<StallResult> {
  const options = command.dbTimeout === null ? {} : { dbTimeoutMs: DB_TIMEOUT_MS };
  const argv = pluginArgv(command, databaseUrl, options);
  const plugin = new Plugin(argv);
  const optionsLabel = command.dbTimeout === null ? `no database-timeout option in this build (hook default ${ADMISSION_DEFAULTS.timeoutMs} ms), cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s` : `${command.dbTimeout.flag} ${DB_TIMEOUT_MS}, cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s`;
  try {
    // Warm: the connection, and the premium authors' standing in the cache.
    for (const event of [...pools.premium, ...pools.wraps.slice(0, 5)]) await plugin.ask(requestLine(event));
    const lock = dialect === 'postgres' ? await lockPostgres(databaseUrl) : await lockSqlite(databaseUrl);
    const pauses: Array<{ start: number; end: number }> = [];
    const collections = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    });
    collections.observe({ entryTypes: ['gc'] });
    const lockedAt = performance.now();
    let firstAnswer: number | null = null;
    let firstRefusal: number | null = null;
    let firstRefusalLatency: number | null = null;
    let releasedAt: number | null = null;
    let released: Promise<void> | null = null;
    // Held for --stall-ms, and at least half of it past the first refusal (which can come late), at most STALL_GIVE_UP_MS.
    const holdUntil = () => Math.min(lockedAt + STALL_GIVE_UP_MS, Math.max(lockedAt + STALL_MS, firstRefusal === null ? Infinity : lockedAt + firstRefusal + STALL_MS / 2));
    const timer = setInterval(() => {
      if (released === null && performance.now() >= holdUntil()) {
        releasedAt = performance.now();
        released = lock.release();
      }
    }, 2);
    const after: number[] = [];
    let afterRefused = 0;
    let slowest = '-';
    let slowestMs = -1;
    let slowestWait = { start: 0, end: 0 };
    const cached = { sent: 0, accepted: 0 };
    let resumed: number | null = null;
    let refusedAfterRelease = 0;
    let reserveAt = 0;
    let lastSent = 0;
    try {
      for (let i = 0; releasedAt === null || resumed === null; i++) {
        if (releasedAt !== null && performance.now() - releasedAt > STALL_GIVE_UP_MS) break;
        if (releasedAt !== null && reserveAt >= pools.reserve.length) break;
        const wait = lastSent + STALL_GAP_MS - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const locked = releasedAt === null;
        // While locked: a cached premium author, a fresh one-time author's gift wrap, an uncached registered author, in turn.
        // After release: registered authors never sent before, until one is accepted from the database.
        const kind = !locked ? 'reserve' : (['premium', 'wrap', 'registered'] as const)[i % 3]!;
        const event = kind === 'reserve' ? pools.reserve[reserveAt++]! : kind === 'wrap' ? pools.wraps[5 + (i % (pools.wraps.length - 5))]! : kind === 'registered' ? pools.registered[i % pools.registered.length]! : pools.premium[i % pools.premium.length]!;
        const sentAt = performance.now();
        lastSent = sentAt;
        const answer = await plugin.ask(requestLine(event));
        const answeredAt = performance.now();
        const latency = answeredAt - sentAt;
        const accepted = answer.action === 'accept' && answer.id === event.id;
        if (firstAnswer === null) firstAnswer = answeredAt - lockedAt;
        if (locked) {
          if (kind === 'premium') {
            cached.sent++;
            if (accepted) cached.accepted++;
          }
          if (firstRefusal !== null) {
            after.push(latency);
            if (!accepted) afterRefused++;
            if (latency > slowestMs) {
              slowestMs = latency;
              slowestWait = { start: sentAt, end: answeredAt };
              slowest = `${kind === 'wrap' ? 'fresh-author wrap' : kind === 'registered' ? 'uncached registered author' : 'cached premium author'}, ${accepted ? 'accepted' : `refused (${answer.msg})`}`;
            }
          } else if (!accepted) {
            firstRefusal = answeredAt - lockedAt;
            firstRefusalLatency = latency;
          }
        } else if (kind === 'reserve') {
          if (accepted) resumed = answeredAt - releasedAt!;
          else refusedAfterRelease++;
        }
      }
    } finally {
      clearInterval(timer);
      collections.disconnect();
      if (released === null) {
        releasedAt = performance.now();
        released = lock.release();
      }
      await released;
    }
    const sorted = sortedOf(after);
    const max = sorted.length === 0 ? NaN : sorted[sorted.length - 1]!;
    const over = after.filter((latency) => latency > TARGET_STALL_MS).length;
    const alive = !plugin.exited;
    const held = pauses.filter((pause) => pause.start < releasedAt!);
    const benchPauses = {
      count: held.length,
      longest: Math.max(0, ...held.map((pause) => pause.end - pause.start)),
      inSlowest: held.reduce((sum, pause) => sum + Math.max(0, Math.min(pause.end, slowestWait.end) - Math.max(pause.start, slowestWait.start)), 0),
    };
    return {
      dialect,
      how: lock.how,
      verified: await lock.verified,
      options: optionsLabel,
      firstAnswer,
      firstRefusal,
      firstRefusalLatency,
      heldMs: releasedAt! - lockedAt,
      after: { count: after.length, max, p99: percentile(sorted, 99), over, refused: afterRefused, slowest },
      benchPauses,
      cached,
      resumed,
      refusedAfterRelease,
      alive,
      pass: firstRefusal !== null && after.length > 0 && over === 0 && resumed !== null && alive,
    };
  } finally {
    await plugin.close();
  }
}

function printStall(s: StallResult): void {
  console.log(`${s.dialect}: stall, ${s.options}; lock: ${s.how}`);
  console.log(`  lock check: ${s.verified}`);
  console.log(
    `  locked ${(s.heldMs / 1000).toFixed(1)} s; first answer after locking ${ms(s.firstAnswer)}; first refusal (timeout) at ${ms(s.firstRefusal)} (its own wait ${ms(s.firstRefusalLatency)}); ` +
      `after it, until release: ${s.after.count} answers, max ${ms(s.after.max)} (${s.after.slowest}; the bench's own collections in its wait: ${ms(s.benchPauses.inSlowest)}), p99 ${ms(s.after.p99)}, ${s.after.over} over ${TARGET_STALL_MS} ms, ${s.after.refused} refused; ` +
      `the bench's own collections while locked: ${s.benchPauses.count}, longest ${ms(s.benchPauses.longest)}; ` +
      `cached premium authors accepted ${s.cached.accepted}/${s.cached.sent}; after release: first DB-backed accept of an uncached registered author ${s.resumed === null ? 'NEVER' : `${ms(s.resumed)} after release`} (${s.refusedAfterRelease} refused before it), same process ${s.alive ? 'alive' : 'EXITED'} → ${s.pass ? 'PASS' : 'FAIL'}`,
  );
}

async function main(): Promise<void> {
  const runStarted = Date.now();
  const cpu = cpus()[0]?.model.trim() ?? 'unknown cpu';
  const cpuTimesAtStart = machineCpuTimes();
  console.log(`Relay admission benchmark: ${availableParallelism()} cpus (${cpu}), node ${process.version}, ${platform()} ${arch()}, load average ${loadavg().map((n) => n.toFixed(2)).join(' ')} at start`);
  console.log(`paths ${[...paths].join(',')}; dialects ${dialects.join(',')}`);
  const loadStart = Date.now();
  const { users, events, file, signedMs } = await loadWorkload(EVENTS, progress);
  const expected = events.filter((e) => e.accept).length;
  console.log(
    `${int(EVENTS)} events (${int(expected)} owed an accept), ${int(USERS)} users with a Nostr key (${int(PREMIUM_USERS)} premium, ${LAPSED_USERS} lapsed) + ${int(USERS / 2)} without, ${int(OUTSIDERS)} outsider keys; ` +
      (signedMs === null ? `signed set read from ${file} in ${((Date.now() - loadStart) / 1000).toFixed(1)} s` : `signed in ${(signedMs / 1000).toFixed(0)} s, cached at ${file}`),
  );
  const needsPlugin = paths.has('pipe') || paths.has('ceiling') || paths.has('stall');
  const command = needsPlugin ? pluginCommand() : null;
  if (command !== null) {
    console.log(`strfry plugin: ${command.label} --database-url <url> strfry; pipelined = up to ${WINDOW} requests in flight`);
    console.log(`database-timeout option: ${command.dbTimeout === null ? 'none in this build' : `${command.dbTimeout.flag} (stall runs with ${DB_TIMEOUT_MS} ms)`}`);
  }
  // The mixes: premium authors; registered authors' free kinds; NIP-17 wraps from brand-new keys to registered users.
  const premiumPool = events.filter((e) => e.kind === 'premium-any').map((e) => e.event);
  const registeredPool = events.filter((e) => e.kind === 'registered-free').map((e) => e.event);
  // DMs go to the relay's active users (those who post in the workload), in turn, so every MIX_EVENTS wraps in a row name them all.
  const activeUsers = [...new Set([...premiumPool, ...registeredPool].map((event) => event.pubkey))].sort().slice(0, MIX_EVENTS);
  const warmCount = Math.min(2_000, Math.max(100, Math.floor(MIX_EVENTS / 10)));
  const stallWraps = 300;
  let fresh: Event[] = [];
  if (paths.has('ceiling') || paths.has('stall')) {
    const wanted = (paths.has('ceiling') ? warmCount + MIX_EVENTS * (ROUNDS + 1) : 0) + (paths.has('stall') ? stallWraps : 0);
    const loaded = await loadFreshWraps(wanted, activeUsers, progress);
    fresh = loaded.events;
    console.log(`${int(wanted)} fresh-author gift wraps to registered users (one new key each): ${loaded.signedMs === null ? `read from ${loaded.file}` : `signed in ${(loaded.signedMs / 1000).toFixed(0)} s, cached at ${loaded.file}`}`);
  }
  console.log(`default cache: ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s; every answer checked against the policy (WRONG ANSWERS would be printed)\n`);
  const premiumRound = cycle(premiumPool, MIX_EVENTS, warmCount);
  const registeredRound = cycle(registeredPool, MIX_EVENTS, warmCount);
  // Wraps: [JIT warm-up | first pass | round 1 | … | stall]; each slice of MIX_EVENTS names every recipient.
  const wraps = (slice: number) => fresh.slice(warmCount + slice * MIX_EVENTS, warmCount + (slice + 1) * MIX_EVENTS);
  const mixes: Mix[] = [
    { name: 'premium authors', warm: cycle(premiumPool, warmCount), firstSight: premiumRound, rounds: Array.from({ length: ROUNDS }, () => premiumRound) },
    { name: 'registered, free kinds', warm: cycle(registeredPool, warmCount), firstSight: registeredRound, rounds: Array.from({ length: ROUNDS }, () => registeredRound) },
    { name: 'fresh-author wraps to users', warm: fresh.slice(0, warmCount), firstSight: wraps(0), rounds: Array.from({ length: ROUNDS }, (_, r) => wraps(r + 1)) },
  ];
  // The stall's authors: cached premium ones, registered ones never sent before (and a reserve for after the release).
  const distinctAuthors = (pool: Event[]) => [...new Map(pool.map((event) => [event.pubkey, event])).values()];
  const registeredAuthors = distinctAuthors(registeredPool);
  const reserveCount = Math.min(200, Math.floor(registeredAuthors.length / 2));
  const stallPools: StallPools = {
    // Not gift wraps: their recipients would be read too, so the decision would not rest on the cache alone.
    premium: distinctAuthors(premiumPool.filter((event) => event.kind !== 1059)).slice(0, 50),
    registered: registeredAuthors.slice(0, registeredAuthors.length - reserveCount),
    reserve: registeredAuthors.slice(registeredAuthors.length - reserveCount),
    wraps: fresh.slice(fresh.length - stallWraps),
  };

  const mixResults: MixResult[] = [];
  const stallResults: StallResult[] = [];
  const ceiling = paths.has('verify') ? (progress('timing bare verifyEvent …'), bareVerify(events.slice(0, VERIFY_EVENTS))) : null;
  for (const dialect of dialects) {
    progress(`seeding ${dialect} …`);
    const databaseUrl = await seed(dialect, users);
    if (paths.has('hook') || paths.has('verify') || paths.has('pipe')) console.log(HEADER);
    if (paths.has('hook')) {
      progress(`${dialect}: in-process, no verification, default cache …`);
      row(dialect, `in-process, no verify, cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s`, await inProcess(databaseUrl, events, { verifySignatures: false, cacheTtlMs: ADMISSION_DEFAULTS.cacheTtlMs }), TARGET_IN_PROCESS);
      progress(`${dialect}: in-process, no verification, no cache …`);
      row(dialect, 'in-process, no verify, cache 0 (db every event)', await inProcess(databaseUrl, events, { verifySignatures: false, cacheTtlMs: 0 }), TARGET_IN_PROCESS);
    }
    if (ceiling !== null) {
      progress(`${dialect}: in-process, verification on (${VERIFY_EVENTS} events) …`);
      row(dialect, `in-process, verify, cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s (${int(VERIFY_EVENTS)} ev)`, await inProcess(databaseUrl, events.slice(0, VERIFY_EVENTS), { verifySignatures: true, cacheTtlMs: ADMISSION_DEFAULTS.cacheTtlMs }));
      row('-', `bare nostr-tools verifyEvent (${int(VERIFY_EVENTS)} ev, ceiling)`, ceiling);
    }
    if (paths.has('pipe')) {
      const lines = requestLines(events);
      progress(`${dialect}: strfry pipe, one at a time …`);
      row(dialect, 'strfry pipe, one at a time (mixed)', await throughPipe(pluginArgv(command!, databaseUrl), events, lines, 1), TARGET_PIPE);
      progress(`${dialect}: strfry pipe, pipelined …`);
      row(dialect, `strfry pipe, pipelined (${WINDOW} in flight)`, await throughPipe(pluginArgv(command!, databaseUrl), events, lines, WINDOW), TARGET_PIPE);
    }
    if (paths.has('ceiling')) {
      // Once a run: the accept-all plugin in ours' place, on the premium mix, shows how far from 1.00 identical plugins land here.
      const runs = [...(dialect === dialects[0] ? [{ mix: mixes[0]!, argv: [ACCEPT_ALL], calibration: true }] : []), ...mixes.map((mix) => ({ mix, argv: pluginArgv(command!, databaseUrl), calibration: false }))];
      for (const { mix, argv, calibration } of runs) {
        progress(`${dialect}: one at a time, ${mix.name}, ${calibration ? 'accept-all vs accept-all (calibration)' : 'ours vs accept-all'}, ${ROUNDS} × ${int(MIX_EVENTS)} …`);
        const result = await againstCeiling(dialect, argv, calibration ? { ...mix, name: CALIBRATION } : mix, calibration);
        mixResults.push(result);
        console.log(
          `${dialect.padEnd(9)}one at a time, ${result.mix.padEnd(28)} ours ${int(result.ours).padStart(7)}/s (rounds ${result.oursRounds.map(int).join(', ')}; p99 ${result.p99.toFixed(3)} ms)  ` +
            `accept-all ${int(result.ceiling).padStart(7)}/s (rounds ${result.ceilingRounds.map(int).join(', ')})  CPU/decision ours ${result.oursCpuUs.toFixed(1)} µs, accept-all ${result.ceilingCpuUs.toFixed(1)} µs  ratio by round ${result.oursRounds.map((rate, r) => (rate / result.ceilingRounds[r]!).toFixed(2)).join(', ')}: median ${result.ratio.toFixed(2)} (overall ${(result.ours / result.ceiling).toFixed(2)})${result.wrong > 0 ? `  ${result.wrong} WRONG ANSWERS` : ''}`,
        );
      }
    }
    if (paths.has('stall')) {
      progress(`${dialect}: stall (users locked) …`);
      const result = await stall(dialect, command!, databaseUrl, stallPools);
      stallResults.push(result);
      printStall(result);
    }
    console.log('');
  }

  if (mixResults.length > 0) {
    console.log(`Summary: one line at a time, ours / accept-all ceiling (${ROUNDS} interleaved rounds × ${int(MIX_EVENTS)} events per mix, ${RESTART ? 'a fresh pair of processes each round' : 'one pair of processes for all rounds'}), target: median of the rounds' ratios >= ${TARGET_RATIO}`);
    console.log('(the calibration row runs the accept-all plugin as ours: its distance from 1.00 is what this machine does to two identical plugins)');
    console.log('(standings cached: every pubkey a round reads was read by its processes before it, in a "first pass", which has no target; CPU per decision from /proc)');
    console.log(`${'dialect'.padEnd(9)}${'mix'.padEnd(30)}${'ours/s'.padStart(9)}${'ceiling/s'.padStart(11)}${'overall'.padStart(9)}${'median'.padStart(8)}  verdict  CPU µs ours/ceiling   first pass: events  ours/s  ratio`);
    for (const r of mixResults) {
      const first = r.firstSight.events === 0 ? 'none' : `${int(r.firstSight.events).padStart(6)} ${int(r.firstSight.ours).padStart(7)} ${(r.firstSight.ours / r.firstSight.ceiling).toFixed(2).padStart(6)}`;
      const verdict = r.calibration ? 'noise' : r.ratio >= TARGET_RATIO && r.wrong === 0 ? 'PASS' : 'FAIL';
      console.log(`${r.dialect.padEnd(9)}${r.mix.padEnd(30)}${int(r.ours).padStart(9)}${int(r.ceiling).padStart(11)}${(r.ours / r.ceiling).toFixed(2).padStart(9)}${r.ratio.toFixed(2).padStart(8)}  ${verdict.padEnd(9)}${`${r.oursCpuUs.toFixed(1)} / ${r.ceilingCpuUs.toFixed(1)}`.padStart(19)}${' '.repeat(15)}${first}${r.wrong > 0 ? ` (${r.wrong} wrong answers)` : ''}`);
    }
    console.log('');
  }
  if (stallResults.length > 0) {
    console.log(`Summary: stall (users locked; target: every answer after the first timeout within ${TARGET_STALL_MS} ms until release, then normal answers, no restart)`);
    console.log(`${'dialect'.padEnd(9)}${'locked'.padStart(8)}${'1st answer'.padStart(12)}${'1st refusal'.padStart(13)}${'answers'.padStart(9)}${'max'.padStart(11)}${'p99'.padStart(11)}${`>${TARGET_STALL_MS}ms`.padStart(7)}${'cached ok'.padStart(11)}${'resumed'.padStart(12)}  verdict`);
    for (const s of stallResults) {
      console.log(
        `${s.dialect.padEnd(9)}${`${(s.heldMs / 1000).toFixed(1)} s`.padStart(8)}${ms(s.firstAnswer).padStart(12)}${ms(s.firstRefusal).padStart(13)}${String(s.after.count).padStart(9)}${ms(s.after.max).padStart(11)}${ms(s.after.p99).padStart(11)}${String(s.after.over).padStart(7)}` +
          `${`${s.cached.accepted}/${s.cached.sent}`.padStart(11)}${(s.resumed === null ? 'never' : `+${ms(s.resumed)}`).padStart(12)}  ${s.pass ? 'PASS' : 'FAIL'}`,
      );
    }
    console.log('');
  }
  const steal = stealPercentSince(cpuTimesAtStart);
  console.log(
    `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')} at the end` +
      (steal === null ? '' : `; ${steal.toFixed(1)} % of the machine's CPU time stolen by its hypervisor during the run`) +
      '; other processes (tests, Stryker) may share these cores: the figures are a floor.',
  );
  console.log(`pipelined p50/p99 include the wait behind the requests in flight. Total ${((Date.now() - runStarted) / 1000).toFixed(0)} s.`);
  if (args.json !== undefined) writeFileSync(args.json, `${JSON.stringify({ restart: RESTART, rounds: ROUNDS, mixEvents: MIX_EVENTS, target: TARGET_RATIO, mixes: mixResults, stalls: stallResults }, null, 2)}\n`);
  removeSqliteFiles();
  await dropRunDatabase();
}

await main();
