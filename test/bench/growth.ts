/**
 * `npm run bench:growth [-- flags]`: what the service's costs do as its data grows (issue 35 item 3).
 * Per dialect, on one fresh database, for each size in `--sizes` (default 1000,100000,1000000),
 * ascending, it grows the data to that size and measures (`--parts`, default all):
 *
 *  - routes: the hot routes (/auth/me, NIP-05, username, user keys, refresh, extension login)
 *    against the reference server (examples/server/dist, a child process) with `size` users in
 *    the database (filler rows written straight to `users` and `user_keys`, each with a unique
 *    username, npub, pubkey hash and key; the measured users registered through the API):
 *    CPU per request of the server process (/proc), p99 and req/s, each a ratio to the smallest size.
 *  - audit: an operator audit chain of `size` entries (sealed by the documented formula and
 *    checked by a full verification, which also seals the checkpoints), then: a verification
 *    one account erasure's scrub (three of the user's entries spread over the chain) with its
 *    completion entry appended onto the intact tail, an audited append issued while that erasure
 *    holds the table (how long an admin call waits), and a verification resumed from the newest
 *    checkpoint over the longest walk one can have (9,999 entries past it, plus the erasure's).
 *    Targets: erasure ≤ 100 ms and the waiting append ≤ 100 ms, resumed verification ≤ 1 s.
 *  - sweep: `size` login events past retention, written while the server runs, then removed by its
 *    own scheduled retention sweep (every 60 s) while /auth/me is loaded in half-second windows:
 *    the p99 of every request answered in the windows in which rows went away against the p99 of
 *    every request in the windows before the sweep started (warm, same process, same data).
 *    Target ≤ 3×. Also printed: the worst single window's p99 against the median window's, a
 *    stricter figure (the slowest half second of the sweep).
 *
 * A figure is printed with PASS/FAIL where the issue sets a target; nothing throws on a miss.
 * Options: `--sizes a,b,c`, `--dialect sqlite|postgres|both`, `--parts routes,audit,sweep`,
 * `--duration S` (measured seconds per route run, default 3), `--connections N` (default 16).
 */
import { createHash, randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { AuditChain } from '../../packages/core/src/admin/index.js';
import { createIntegrity } from '../../packages/core/src/crypto/index.js';
import { createTestBackend, DIALECTS, TEST_SECRETS, type DialectName, type TestBackend } from '../harness/backend.js';
import { dropRunDatabase } from '../harness/postgres.js';
import { removeSqliteFiles } from '../harness/sqlite.js';
import { checkedPort, cpuMs, launchWallet, walletEnv, type ServerChild } from './http/children.js';
import { ENDPOINTS } from './http/endpoints.js';
import { seed, type Seeded } from './http/fixtures.js';
import { load } from './http/load.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    dialect: { type: 'string', default: 'both' },
    parts: { type: 'string', default: 'routes,audit,sweep' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
if (SIZES.length === 0 || !SIZES.every((n) => Number.isSafeInteger(n) && n >= 10) || SIZES.some((n, i) => i > 0 && n <= SIZES[i - 1]!)) throw new Error('--sizes must be ascending whole numbers of at least 10');
const PARTS = new Set(args.parts.split(','));
for (const part of PARTS) if (!['routes', 'audit', 'sweep'].includes(part)) throw new Error('--parts is a comma list of routes, audit, sweep');
if (!['both', ...DIALECTS].includes(args.dialect)) throw new Error('--dialect must be sqlite, postgres or both');
const dialects = args.dialect === 'both' ? DIALECTS : [args.dialect as DialectName];
const DURATION_SEC = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUTES = ['me', 'nip05', 'username', 'user-keys', 'refresh', 'extension'];
const TARGET_ERASURE_MS = 100;
/** The audit chain seals a checkpoint at every multiple of this (core's default). */
const CHECKPOINT_EVERY = 10_000;
const TARGET_RESUMED_VERIFY_MS = 1_000;
const TARGET_SWEEP_P99_RATIO = 3;
/** Rows per insert: SQLite's compound SELECT (how knex writes a multi-row insert there) allows 500 terms. */
const chunkOf = (t: TestBackend) => (t.dialect === 'sqlite' ? 400 : 1_000);
/** examples/server/dist (default, built by the npm script) or its sources through tsx (BENCH_WALLET_ENTRY=source). */
const ENTRY = process.env.BENCH_WALLET_ENTRY === 'source' ? 'source' : 'dist';

const progress = (message: string) => process.stderr.write(`${message}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');


/** Inserts `rows` in chunks, one transaction per 50 chunks. */
async function insertChunked(t: TestBackend, table: string, count: number, row: (i: number) => Record<string, unknown>, from = 0): Promise<void> {
  const knex = t.backend.db.knex;
  const size = chunkOf(t);
  for (let start = from; start < from + count; start += size * 50) {
    await knex.transaction(async (trx: Knex.Transaction) => {
      for (let chunk = start; chunk < Math.min(start + size * 50, from + count); chunk += size) {
        const rows = [];
        for (let i = chunk; i < Math.min(chunk + size, from + count); i++) rows.push(row(i));
        await trx(table).insert(rows);
      }
    });
  }
}

/** Fresh planner statistics after a bulk write, as autovacuum (Postgres) or `ANALYZE` (SQLite) would give. */
async function analyze(t: TestBackend): Promise<void> {
  await t.backend.db.knex.raw('ANALYZE');
}

// ---- routes ----

interface RouteFigure {
  size: number;
  route: string;
  rps: number;
  p99: number;
  cpuUs: number;
}

/** Users `from + 1 … to` with unique username, npub, pubkey hash and a BTC key each, by set-based statements (1M rows in seconds). */
async function growUsers(t: TestBackend, from: number, to: number): Promise<void> {
  const time = t.backend.db.dialect.time(new Date());
  const knex = t.backend.db.knex;
  if (t.dialect === 'postgres') {
    await knex.raw(
      `with added as (
         insert into users (id, pubkey_hash, nostr_pubkey, username, created_at, updated_at)
         select gen_random_uuid(), md5('h' || i) || substr(md5('g' || i), 1, 8), md5('n' || i) || md5('m' || i), 'grow' || i, ?, ? from generate_series(?::int, ?::int) as i
         returning id, username)
       insert into user_keys (id, user_id, asset, key_type, public_key, created_at, updated_at)
       select gen_random_uuid(), id, 'btc', 'primary', '02' || md5('k' || username) || md5('l' || username), ?, ? from added`,
      [time, time, from + 1, to, time, time],
    );
    return;
  }
  const last = ((await knex('users').max({ at: 'rowid' }).first()) as { at: number | null }).at ?? 0;
  await knex.raw(
    `with recursive n(i) as (select ? union all select i + 1 from n where i < ?)
     insert into users (id, pubkey_hash, nostr_pubkey, username, created_at, updated_at)
     select lower(hex(randomblob(16))), lower(hex(randomblob(20))), lower(hex(randomblob(32))), 'grow' || i, ?, ? from n`,
    [from + 1, to, time, time],
  );
  await knex.raw(
    `insert into user_keys (id, user_id, asset, key_type, public_key, created_at, updated_at)
     select lower(hex(randomblob(16))), id, 'btc', 'primary', '02' || lower(hex(randomblob(32))), ?, ? from users where rowid > ?`,
    [time, time, last],
  );
}

async function routesAt(server: ServerChild, seeded: Seeded, size: number): Promise<RouteFigure[]> {
  const out: RouteFigure[] = [];
  for (const id of ROUTES) {
    const endpoint = ENDPOINTS.find((e) => e.id === id)!;
    const warm = await endpoint.spec({ seeded, connections: CONNECTIONS, durationSec: 1, lastRps: undefined });
    const warmFigures = await load(`${id} warm-up`, server.url, warm, CONNECTIONS, 1, { allowEmpty: true });
    const spec = await endpoint.spec({ seeded, connections: CONNECTIONS, durationSec: DURATION_SEC, lastRps: warmFigures.rps || undefined });
    const before = cpuMs(server.pid)!;
    const figures = await load(id, server.url, spec, CONNECTIONS, DURATION_SEC);
    const cpuUs = ((cpuMs(server.pid)! - before) * 1000) / figures.requests;
    out.push({ size, route: id, rps: figures.rps, p99: figures.p99, cpuUs });
    progress(`  ${int(size)} users, ${id}: ${int(figures.rps)}/s, p99 ${figures.p99} ms, ${cpuUs.toFixed(0)} µs CPU/request`);
  }
  return out;
}

async function routesPart(t: TestBackend): Promise<RouteFigure[]> {
  const port = await checkedPort();
  const publicApiUrl = `http://127.0.0.1:${port}`;
  const server = await launchWallet({ entry: ENTRY, port, env: walletEnv(t.databaseUrl, publicApiUrl, `/tmp/wallet-growth-${process.pid}`) });
  const figures: RouteFigure[] = [];
  try {
    const seeded = await seed(server.url, publicApiUrl, t.databaseUrl, 'growthuser');
    let have = (Number((await t.backend.db.knex('users').count({ n: '*' }).first())?.n) || 0);
    for (const size of SIZES) {
      if (size > have) {
        const started = performance.now();
        await growUsers(t, have, size);
        await analyze(t);
        progress(`${t.dialect}: ${int(size)} users (${int(size - have)} written in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
        have = size;
      }
      figures.push(...(await routesAt(server, seeded, size)));
    }
  } finally {
    await server.stop();
  }
  return figures;
}

// ---- audit ----

interface AuditFigure {
  size: number;
  fullVerifyMs: number;
  resumedVerifyMs: number;
  resumedFrom: number;
  erasureMs: number;
  scrubbed: number;
  waitingAppendMs: number;
}

const integrity = createIntegrity(TEST_SECRETS.adminKeyIntegritySecret);

/** Appends entries `from + 1 … to` by the documented formula (docs/admin.md › The audit chain), three of them about `userId`. */
async function growChain(t: TestBackend, from: number, to: number, userId: string): Promise<void> {
  const head = (await t.backend.db.knex('admin_audit').orderBy('seq', 'desc').first('row_hash')) as { row_hash: string } | undefined;
  let prev = head?.row_hash ?? '0'.repeat(64);
  const span = to - from;
  const about = new Set([from + Math.ceil(span * 0.1), from + Math.ceil(span * 0.5), from + Math.ceil(span * 0.9)]);
  const at = new Date();
  const created = at.toISOString();
  const time = t.backend.db.dialect.time(at);
  const rows: Array<Record<string, unknown>> = [];
  for (let i = from; i < to; i++) {
    const seq = i + 1;
    const target = about.has(seq) ? `user:${userId}` : `thing:${seq}`;
    const details = { n: seq };
    const rowHash = integrity.seal('admin_audit', [prev, sha256(JSON.stringify([seq, created, 'bench.entry', 'system', null, target, details, null]))]);
    rows.push({ seq, created_at: time, action: 'bench.entry', actor_kind: 'system', actor_pubkey_prefix: null, target, details: JSON.stringify(details), peer_ip: null, prev_hash: prev, row_hash: rowHash });
    prev = rowHash;
  }
  if (t.dialect === 'postgres') {
    // One statement per 20,000 rows, the columns as arrays: a multi-row VALUES of that size is mostly parse time.
    const columns = ['seq', 'created_at', 'action', 'actor_kind', 'actor_pubkey_prefix', 'target', 'details', 'peer_ip', 'prev_hash', 'row_hash'];
    const types = ['bigint', 'timestamptz', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'];
    for (let start = 0; start < rows.length; start += 20_000) {
      const part = rows.slice(start, start + 20_000);
      await t.backend.db.knex.raw(
        `insert into admin_audit (${columns.join(', ')}) select * from unnest(${types.map((type) => `?::${type}[]`).join(', ')})`,
        columns.map((column) => part.map((row) => (column === 'created_at' ? created : row[column]))) as unknown as Knex.RawBinding[],
      );
    }
  } else {
    await insertChunked(t, 'admin_audit', rows.length, (i) => rows[i]!);
  }
  await t.backend.db.knex('admin_audit_head').insert({ id: 1, seq: to, row_hash: prev, mac: integrity.seal('admin_audit_head', [String(to), prev]) }).onConflict('id').merge();
}

async function auditPart(t: TestBackend): Promise<AuditFigure[]> {
  const chain = new AuditChain(t.backend.db, integrity, { now: () => new Date() });
  const db = t.backend.db;
  const figures: AuditFigure[] = [];
  let have = 0;
  for (const size of SIZES) {
    const userId = randomUUID();
    const started = performance.now();
    // The sizes are the chain's length before the verification's extra entries (a step smaller than those grows by 10).
    const target = Math.max(size, have + 10);
    await growChain(t, have, target, userId);
    await analyze(t);
    progress(`${t.dialect}: ${int(target)} audit entries (${int(target - have)} written in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    have = target;
    let t0 = performance.now();
    const full = await chain.verify({ full: true });
    const fullVerifyMs = performance.now() - t0;
    if (!full.ok) throw new Error(`the bench's chain does not verify: ${full.reason} at ${full.brokenAt}`);
    // The erasure's audit work as the erasure sweep does it, in one transaction; an audited admin
    // call (an append in its own transaction) is issued as soon as the erasure holds the table.
    let waitingAppendMs = 0;
    let scrubbed = 0;
    t0 = performance.now();
    let waiting: Promise<void> | undefined;
    await db.transaction(async (trx: Knex.Transaction) => {
      const done = await chain.redact(trx, userId);
      scrubbed = done.length;
      const w0 = performance.now();
      // On SQLite the single writer connection is held by this transaction: the append queues behind it, as a request would.
      waiting = db.transaction((other: Knex.Transaction) => chain.append(other, { action: 'bench.admin_call', actorKind: 'admin' }).then(() => undefined)).then(() => {
        waitingAppendMs = performance.now() - w0;
      });
      await chain.append(trx, { action: 'account_erasure_completed', actorKind: 'system', target: `erasure:${userId}`, details: { audit_entries_scrubbed: done.length } }, { onlyOntoIntact: true });
    });
    const erasureMs = performance.now() - t0;
    await waiting;
    have += 2;
    // The longest walk a resumed verification can have: the newest checkpoint is at `size`, so
    // 9,999 entries more (the most before the next one is sealed) plus the erasure's two.
    await growChain(t, have, have + CHECKPOINT_EVERY - 1, randomUUID());
    have += CHECKPOINT_EVERY - 1;
    let resumedFrom = 0;
    t0 = performance.now();
    const resumed = await chain.verify({ onStart: (seq) => (resumedFrom = seq) });
    const resumedVerifyMs = performance.now() - t0;
    if (!resumed.ok || resumed.entries !== have) throw new Error(`the resumed verification: ${JSON.stringify(resumed)}`);
    if (scrubbed !== 3) throw new Error(`the erasure scrubbed ${scrubbed} entries, not 3`);
    figures.push({ size, fullVerifyMs, resumedVerifyMs, resumedFrom, erasureMs, scrubbed, waitingAppendMs });
    progress(`  full verify ${fullVerifyMs.toFixed(0)} ms; resumed from ${int(resumedFrom)} over ${int(have - resumedFrom)} entries ${resumedVerifyMs.toFixed(1)} ms; erasure ${erasureMs.toFixed(1)} ms; an audited call waited ${waitingAppendMs.toFixed(1)} ms`);
  }
  return figures;
}

// ---- sweep ----

interface SweepFigure {
  size: number;
  sweepMs: number;
  /** p99 of every request answered while rows went away, and before the sweep began. */
  busyP99: number;
  idleP99: number;
  /** The worst window's p99 while sweeping, and the median window's before. */
  worstWindowP99: number;
  medianWindowP99: number;
  requests: { busy: number; idle: number };
}

/** The q-quantile of `values` (nearest rank). */
const quantile = (values: number[], q: number): number => {
  const sorted = Float64Array.from(values).sort();
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};

async function sweepPart(t: TestBackend): Promise<SweepFigure[]> {
  const figures: SweepFigure[] = [];
  const dataDir = `/tmp/wallet-growth-sweep-${process.pid}`;
  const knex = t.backend.db.knex;
  const cutoff = () => t.backend.db.dialect.time(new Date(Date.now() - 31 * 86_400_000));
  // Only rows past retention: the bench's own logins add fresh ones.
  const count = async () => Number(((await knex('login_events').where('created_at', '<', cutoff()).count({ n: '*' }).first()) as { n: number | string }).n);
  /**
   * Where the sweep has got to, cheaply: on SQLite the first expired row's rowid (the sweep takes
   * them in (created_at, rowid) order; all share one time), null when none is left. A count there
   * reads the whole index in another process every window, and a reader that long keeps the
   * server's checkpoints from resetting the WAL: the bench would measure its own probe. Postgres
   * counts (its readers do not hold back the writer).
   */
  const sweptUpTo = async (): Promise<number | null> => {
    if (t.dialect === 'postgres') {
      const left = await count();
      return left === 0 ? null : -left;
    }
    const row = (await knex('login_events').where('created_at', '<', cutoff()).orderBy([{ column: 'created_at' }, { column: 'rowid' }]).first('rowid')) as { rowid: number } | undefined;
    return row === undefined ? null : row.rowid;
  };
  const port = await checkedPort();
  const publicApiUrl = `http://127.0.0.1:${port}`;
  // The retention sweep runs within 5 s of start, then every RETENTION_SWEEP_INTERVAL_SEC (60 s, the least allowed).
  const server = await launchWallet({ entry: ENTRY, port, env: walletEnv(t.databaseUrl, publicApiUrl, dataDir, { SCHEDULER_ENABLED: 'true', LOGIN_EVENT_RETENTION_DAYS: '30', RETENTION_SWEEP_INTERVAL_SEC: '60' }) });
  try {
    const seeded = await seed(server.url, publicApiUrl, t.databaseUrl, 'sweepuser');
    const meSpec = await ENDPOINTS.find((e) => e.id === 'me')!.spec({ seeded, connections: CONNECTIONS, durationSec: 1, lastRps: undefined });
    // Every answer's latency (ms), taken from autocannon's clients, so a phase's p99 is over all its requests.
    let latencies: number[] = [];
    const me: typeof meSpec = {
      ...meSpec,
      setupClient: (client) => {
        meSpec.setupClient?.(client);
        client.on('response', (_status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
      },
    };
    // Past the first (empty) run before any expired row exists.
    await sleep(6_000);
    for (const size of SIZES) {
      const started = performance.now();
      await insertExpiredLoginEvents(t, size);
      progress(`${t.dialect}: ${int(size)} expired login events (written in ${((performance.now() - started) / 1000).toFixed(1)} s); loading /auth/me until the next scheduled sweep has removed them`);
      // Half-second windows of /auth/me: those before the sweep starts (warm, rows waiting) are the
      // idle figure, those during which rows went away the sweeping one; same process, same data.
      const idle: number[] = [];
      const busy: number[] = [];
      const idleLatencies: number[] = [];
      const busyLatencies: number[] = [];
      let before = await sweptUpTo();
      let sweepStart: number | null = null;
      let sweepEnd = 0;
      for (let window = 0; before !== null && window < 400; window++) {
        latencies = [];
        const figures = await load('me', server.url, me, CONNECTIONS, 0.5);
        const after = await sweptUpTo();
        if (after === null || after > before) {
          sweepStart ??= performance.now();
          sweepEnd = performance.now();
          busy.push(figures.p99);
          busyLatencies.push(...latencies);
        } else if (sweepStart === null) {
          idle.push(figures.p99);
          idleLatencies.push(...latencies);
        }
        before = after;
      }
      if (before !== null) throw new Error(`the retention sweep did not remove ${int(await count())} expired rows within the bench's wait`);
      const figure: SweepFigure = {
        size,
        sweepMs: sweepStart === null ? 0 : sweepEnd - sweepStart,
        busyP99: Math.round(quantile(busyLatencies, 0.99) * 10) / 10,
        idleP99: Math.round(quantile(idleLatencies, 0.99) * 10) / 10,
        worstWindowP99: Math.max(...busy),
        medianWindowP99: quantile(idle, 0.5),
        requests: { busy: busyLatencies.length, idle: idleLatencies.length },
      };
      figures.push(figure);
      progress(
        `  swept within ${busy.length} half-second window(s); /auth/me p99 ${figure.busyP99} ms over ${int(figure.requests.busy)} requests while sweeping, ${figure.idleP99} ms over ${int(figure.requests.idle)} before (${idle.length} windows); worst window ${figure.worstWindowP99} ms, median window before ${figure.medianWindowP99} ms`,
      );
      // The next size's rows go in after this run, and wait for the next scheduled sweep.
    }
  } finally {
    await server.stop();
  }
  return figures;
}

/** `count` login events 400 days old, written by one set-based statement (so 1M rows take seconds, not minutes). */
async function insertExpiredLoginEvents(t: TestBackend, count: number): Promise<void> {
  const createdAt = t.backend.db.dialect.time(new Date(Date.now() - 400 * 86_400_000));
  if (t.dialect === 'postgres') {
    await t.backend.db.knex.raw(
      `insert into login_events (id, user_id, platform, ip_hash, fingerprint, created_at)
       select gen_random_uuid(), null, 'extension', md5(i::text) || md5((i + 1)::text), null, ? from generate_series(1, ?) as i`,
      [createdAt, count],
    );
    return;
  }
  await t.backend.db.knex.raw(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
     insert into login_events (id, user_id, platform, ip_hash, fingerprint, created_at)
     select lower(hex(randomblob(16))), null, 'extension', lower(hex(randomblob(32))), null, ? from n`,
    [count, createdAt],
  );
}

// ---- the run ----

const ratio = (value: number, base: number) => (base > 0 ? (value / base).toFixed(2) : '-');

progress(`Growth benchmark: ${cpus().length} cpus (${cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start`);
progress(`sizes ${SIZES.map(int).join(' / ')}; parts ${[...PARTS].join(', ')}; dialects ${dialects.join(', ')}`);
const lines: string[] = [];
try {
  for (const dialect of dialects) {
    const t = await createTestBackend(dialect, { listen: false, realClock: true });
    try {
      if (PARTS.has('routes')) {
        const figures = await routesPart(t);
        lines.push('', `${dialect}: hot routes, CPU per request (µs) and p99 (ms) by users in the database; ratio to ${int(SIZES[0]!)} users`);
        for (const route of ROUTES) {
          const rows = figures.filter((f) => f.route === route);
          const base = rows[0]!;
          lines.push(`  ${route.padEnd(10)} ${rows.map((r) => `${int(r.size)}: ${r.cpuUs.toFixed(0)} µs ×${ratio(r.cpuUs, base.cpuUs)}, p99 ${r.p99} ms`).join('   ')}`);
        }
      }
      if (PARTS.has('audit')) {
        const figures = await auditPart(t);
        lines.push('', `${dialect}: the audit chain by entries; ratio to ${int(SIZES[0]!)} entries`);
        const base = figures[0]!;
        for (const f of figures) {
          lines.push(
            `  ${int(f.size).padStart(9)} entries: erasure ${f.erasureMs.toFixed(1)} ms ×${ratio(f.erasureMs, base.erasureMs)} (≤ ${TARGET_ERASURE_MS} ms ${verdict(f.erasureMs <= TARGET_ERASURE_MS)}), an audited call waited ${f.waitingAppendMs.toFixed(1)} ms (${verdict(f.waitingAppendMs <= TARGET_ERASURE_MS)}), verify from checkpoint ${int(f.resumedFrom)} ${f.resumedVerifyMs.toFixed(1)} ms ×${ratio(f.resumedVerifyMs, base.resumedVerifyMs)} (≤ ${TARGET_RESUMED_VERIFY_MS} ms ${verdict(f.resumedVerifyMs <= TARGET_RESUMED_VERIFY_MS)}), full verify ${int(f.fullVerifyMs)} ms ×${ratio(f.fullVerifyMs, base.fullVerifyMs)}`,
          );
        }
      }
      if (PARTS.has('sweep')) {
        const figures = await sweepPart(t);
        lines.push('', `${dialect}: the login-event retention sweep by expired rows, /auth/me p99 while it runs vs before it (target ≤ ${TARGET_SWEEP_P99_RATIO}×)`);
        for (const f of figures) {
          const r = f.idleP99 > 0 ? f.busyP99 / f.idleP99 : Infinity;
          const windows = f.medianWindowP99 > 0 ? f.worstWindowP99 / f.medianWindowP99 : Infinity;
          lines.push(
            `  ${int(f.size).padStart(9)} rows: swept in about ${(f.sweepMs / 1000).toFixed(1)} s, p99 ${f.busyP99} ms while sweeping (${int(f.requests.busy)} requests), ${f.idleP99} ms before it (${int(f.requests.idle)}): ×${r.toFixed(1)} ${verdict(r <= TARGET_SWEEP_P99_RATIO)}; worst half second ${f.worstWindowP99} ms against the median one's ${f.medianWindowP99} ms: ×${windows.toFixed(1)} (report)`,
          );
        }
      }
    } finally {
      await t.close();
    }
  }
} finally {
  removeSqliteFiles();
  await dropRunDatabase();
}
console.log(lines.join('\n'));
console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
