/**
 * `npm run bench:admission [-- --events N --dialect sqlite|postgres --paths hook,verify,pipe --plugin bin.js]`: what a relay
 * admission decision costs (@wallet/relay-admission). On a fresh SQLite file and a fresh Postgres
 * database, each seeded with 10 000 users with a Nostr key (2 000 premium, 500 lapsed), it times
 * the same pre-signed events (default 100 000, mixed: test/bench/admission-events.ts):
 *  - the in-process hook without signature checks (as the strfry and nostr-rs-relay adapters run
 *    it), with the default 10 s standing cache and with `cacheTtlMs: 0`;
 *  - the hook with signature checks, beside a bare nostr-tools `verifyEvent` loop (the ceiling);
 *  - the real `wallet-relay-admission strfry` executable over stdin/stdout, one request at a
 *    time as strfry sends them, and pipelined.
 * Every answer is checked against the decision the policy owes the event. Figures are printed
 * with PASS/FAIL against the targets; nothing throws on a miss (a benchmark, not a test).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg, platform, arch } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { verifyEvent } from 'nostr-tools/pure';
import { createRelayAdmission, ADMISSION_DEFAULTS } from '@wallet/relay-admission';
import { createTestBackend, DIALECTS, type DialectName } from '../harness/backend.js';
import { dropRunDatabase } from '../harness/postgres.js';
import { removeSqliteFiles } from '../harness/sqlite.js';
import { loadWorkload, LAPSED_USERS, OUTSIDERS, PREMIUM_USERS, USERS, type BenchEvent, type BenchUser } from './admission-events.js';

const TARGET_IN_PROCESS = 20_000;
const TARGET_PIPE = 5_000;

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    dialect: { type: 'string', default: 'both' },
    window: { type: 'string', default: '256' },
    paths: { type: 'string', default: 'hook,verify,pipe' },
    plugin: { type: 'string' },
  },
});
const EVENTS = Number(args.events);
const WINDOW = Number(args.window);
if (!Number.isInteger(EVENTS) || EVENTS < 1000) throw new Error('--events must be a whole number of at least 1000');
if (!Number.isInteger(WINDOW) || WINDOW < 1) throw new Error('--window must be a whole number of at least 1');
if (!['both', ...DIALECTS].includes(args.dialect)) throw new Error('--dialect must be sqlite, postgres or both');
const dialects = args.dialect === 'both' ? DIALECTS : [args.dialect as DialectName];
const paths = new Set(args.paths.split(','));
if (![...paths].every((path) => ['hook', 'verify', 'pipe'].includes(path))) throw new Error('--paths is a comma-separated list of hook, verify, pipe');

const progress = (message: string) => process.stderr.write(`${message}\n`);

interface Figures {
  rate: number;
  p50: number;
  p99: number;
  accepted: number;
  wrong: number;
}

function figures(latencies: Float64Array, totalMs: number, accepted: number, wrong: number): Figures {
  const sorted = Float64Array.from(latencies).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return { rate: (latencies.length / totalMs) * 1000, p50: at(50), p99: at(99), accepted, wrong };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
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

/** The executable: the built dist when it is at least as new as every source file, else the sources through tsx. */
function pluginCommand(): { argv: string[]; label: string } {
  if (args.plugin !== undefined) return { argv: [args.plugin, 'strfry'], label: `node ${args.plugin} strfry (--plugin)` };
  const pkg = join(process.cwd(), 'packages/relay-admission');
  const dist = join(pkg, 'dist/bin.js');
  const sources = ['admission', 'bin', 'event', 'membership', 'policy', 'strfry'];
  const fresh = existsSync(dist) && sources.every((name) => existsSync(join(pkg, `dist/${name}.js`)) && statSync(join(pkg, `dist/${name}.js`)).mtimeMs >= statSync(join(pkg, `src/${name}.ts`)).mtimeMs);
  if (fresh) return { argv: [dist, 'strfry'], label: 'node packages/relay-admission/dist/bin.js strfry' };
  return { argv: ['--import', 'tsx', '--conditions=wallet-source', join(pkg, 'src/bin.ts'), 'strfry'], label: 'node --import tsx --conditions=wallet-source packages/relay-admission/src/bin.ts strfry (dist missing or older than src: run npx tsc -b)' };
}

class Plugin {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(line: string) => void> = [];
  private readonly ready: string[] = [];
  private stderr = '';

  constructor(argv: string[], databaseUrl: string) {
    this.child = spawn(process.execPath, argv, { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      const resolve = this.waiting.shift();
      if (resolve) resolve(line);
      else this.ready.push(line);
    });
    this.child.on('exit', (code) => {
      if (this.waiting.length > 0) throw new Error(`the strfry plugin exited (${code}) with answers owed: ${this.stderr}`);
    });
  }

  send(line: string): void {
    this.child.stdin.write(line);
  }

  answer(): Promise<string> {
    const line = this.ready.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    await exited;
  }
}

/** strfry request lines, built before timing (serialising them is strfry's work, not the plugin's). */
function requestLines(events: BenchEvent[]): string[] {
  const receivedAt = Math.floor(Date.now() / 1000);
  return events.map(({ event }) => `${JSON.stringify({ type: 'new', event, receivedAt, sourceType: 'IP4', sourceInfo: '127.0.0.1' })}\n`);
}

async function throughPipe(argv: string[], databaseUrl: string, events: BenchEvent[], lines: string[], window: number): Promise<Figures> {
  const plugin = new Plugin(argv, databaseUrl);
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

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown cpu';
  console.log(`Relay admission benchmark: ${availableParallelism()} cpus (${cpu}), node ${process.version}, ${platform()} ${arch()}, load average ${loadavg().map((n) => n.toFixed(2)).join(' ')} at start`);
  const loadStart = Date.now();
  const { users, events, file, signedMs } = loadWorkload(EVENTS, progress);
  const expected = events.filter((e) => e.accept).length;
  console.log(
    `${int(EVENTS)} events (${int(expected)} owed an accept), ${int(USERS)} users with a Nostr key (${int(PREMIUM_USERS)} premium, ${LAPSED_USERS} lapsed) + ${int(USERS / 2)} without, ${int(OUTSIDERS)} outsider keys; ` +
      (signedMs === null ? `signed set read from ${file} in ${((Date.now() - loadStart) / 1000).toFixed(1)} s` : `signed in ${(signedMs / 1000).toFixed(0)} s, cached at ${file}`),
  );
  const lines = requestLines(events);
  const plugin = pluginCommand();
  console.log(`strfry plugin: ${plugin.label}; pipelined = up to ${WINDOW} requests in flight`);
  console.log(`default cache: ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s; every answer checked against the policy (WRONG ANSWERS would be printed)\n`);
  console.log(HEADER);

  const ceiling = paths.has('verify') ? (progress('timing bare verifyEvent …'), bareVerify(events)) : null;
  for (const dialect of dialects) {
    progress(`seeding ${dialect} …`);
    const databaseUrl = await seed(dialect, users);
    if (paths.has('hook')) {
      progress(`${dialect}: in-process, no verification, default cache …`);
      row(dialect, `in-process, no verify, cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s`, await inProcess(databaseUrl, events, { verifySignatures: false, cacheTtlMs: ADMISSION_DEFAULTS.cacheTtlMs }), TARGET_IN_PROCESS);
      progress(`${dialect}: in-process, no verification, no cache …`);
      row(dialect, 'in-process, no verify, cache 0 (db every event)', await inProcess(databaseUrl, events, { verifySignatures: false, cacheTtlMs: 0 }), TARGET_IN_PROCESS);
    }
    if (ceiling !== null) {
      progress(`${dialect}: in-process, verification on …`);
      row(dialect, `in-process, verify, cache ${ADMISSION_DEFAULTS.cacheTtlMs / 1000} s`, await inProcess(databaseUrl, events, { verifySignatures: true, cacheTtlMs: ADMISSION_DEFAULTS.cacheTtlMs }));
      row('-', 'bare nostr-tools verifyEvent (ceiling)', ceiling);
    }
    if (paths.has('pipe')) {
      progress(`${dialect}: strfry pipe, one at a time …`);
      row(dialect, 'strfry pipe, one at a time', await throughPipe(plugin.argv, databaseUrl, events, lines, 1), TARGET_PIPE);
      progress(`${dialect}: strfry pipe, pipelined …`);
      row(dialect, `strfry pipe, pipelined (${WINDOW} in flight)`, await throughPipe(plugin.argv, databaseUrl, events, lines, WINDOW), TARGET_PIPE);
    }
  }
  console.log(`\nload average ${loadavg().map((n) => n.toFixed(2)).join(' ')} at the end; other processes (tests, Stryker) may share these cores: the figures are a floor.`);
  console.log('pipelined p50/p99 include the wait behind the requests in flight.');
  removeSqliteFiles();
  await dropRunDatabase();
}

await main();
