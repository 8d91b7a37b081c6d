/**
 * `npm run bench:replicas [-- flags]`: the service as several processes on one Postgres (issue 35
 * item 4). Three reference servers (examples/server/dist, each with its scheduler on and the
 * shared database rate limiter) behind a small round-robin proxy (./replicas/proxy.ts, a process
 * of its own), loaded by a closed-loop mix of registrations, logins, refreshes, draft tips and
 * Grin relay entries (./replicas/mixed-load.ts). Phases:
 *
 *  1. one: the proxy sends everything to one replica; req/s and CPU per request (/proc).
 *  2. three: the same load over three replicas; the ratio to one (target ≥ 2×, report only: on a
 *     2-core machine five processes share two cores, so CPU per request is printed beside it).
 *  3. kill: kill -9 one replica a third of the way in, start it again at two thirds. Required:
 *     every 5xx is the proxy's 502 for a request it had handed to the killed replica (in flight,
 *     or written on one of its pooled connections before the proxy saw them closed), failing
 *     within 2 s of the kill, and the restarted replica takes traffic again.
 *  4. sigterm: SIGTERM another replica a third of the way in (it must exit 0 on its own), start
 *     it again at two thirds. Required: no 5xx at all.
 *  After the load: every acknowledged write (registered user, tip, relay entry) is in the
 *  database, and every worker's newest acknowledged session still refreshes.
 *  5. leases: the expired-challenge sweep is due every second on each replica; over a window the
 *     three run it once per second between them (from their metrics), not three times.
 *  6. limiter: the replicas restarted with a budget of 30 unauthenticated requests per window;
 *     90 requests from one client through the proxy get exactly 30 answers that are not 429.
 *
 * Exit 1 when a required property fails; throughput is reported with PASS/FAIL and never fails
 * the run. Options: `--duration S` per load phase (default 20), `--workers N` (default 32),
 * `--lease-window S` (default 10).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestBackend } from '../harness/backend.js';
import { dropRunDatabase } from '../harness/postgres.js';
import { REPO_ROOT, spawnEntry } from '../harness/processes.js';
import { checkedPort, cpuMs, launchWallet, walletEnv, type ServerChild } from './http/children.js';
import { BenchBtcKey, LoginBodies } from './http/fixtures.js';
import { busyShare, machineCpuTimes } from './machine-cpu.js';
import { mixedLoad, send, type Answer, type MixedLoadResult } from './replicas/mixed-load.js';
import type { UpstreamCounts } from './replicas/proxy.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    workers: { type: 'string', default: '32' },
    'lease-window': { type: 'string', default: '10' },
  },
});
const DURATION_MS = Number(args.duration) * 1000;
const WORKERS = Number(args.workers);
const LEASE_WINDOW_MS = Number(args['lease-window']) * 1000;
if (!(DURATION_MS >= 1000) || !Number.isInteger(WORKERS) || WORKERS < 1 || !(LEASE_WINDOW_MS >= 2000)) throw new Error('--duration ≥ 1, --workers ≥ 1, --lease-window ≥ 2');
const REPLICAS = 3;
const TARGET_SCALE = 2;
const LIMIT = 30;
/** How long a stopping replica goes on answering (each answer saying Connection: close) so the proxy takes it out first. */
const SHUTDOWN_DELAY_MS = 1_000;
/** The delay and 2 s more; a drain that waits for the proxy's busy pooled connections to go idle took 6–9 s. */
const DRAIN_LIMIT_MS = SHUTDOWN_DELAY_MS + 2_000;
/** How long after a kill -9 the proxy may still be failing requests it had handed to the dead replica. */
const KILL_SETTLE_MS = 2_000;
const SWEEP_TASK = 'core-challenges.expiry-sweep';
const ENTRY = process.env.BENCH_WALLET_ENTRY === 'source' ? 'source' : 'dist';

const progress = (message: string) => process.stderr.write(`${message}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const failures: string[] = [];
const require = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'PASS' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};
const nowSec = () => Math.floor(Date.now() / 1000);

/** The limiter probe's own client address (the load comes from 127.0.0.1), which the proxy passes on in X-Forwarded-For. */
const PROBE_ADDRESS = '127.0.0.2';

/** CPU spent during one load run, in ms: the replicas', the proxy's and this process's; and the machine's share busy. */
interface Spent {
  cpuMs: number;
  proxyCpuMs: number;
  loadCpuMs: number;
  machineBusy: number;
}

/** Answers an upstream gave (any status): requests it really took, unlike `sent`, which counts refused attempts. */
const answeredBy = (upstream: UpstreamCounts) => Object.values(upstream.answered).reduce((a, b) => a + b, 0);

interface Replica {
  index: number;
  port: number;
  metricsPort: number;
  dataDir: string;
  server: ServerChild | undefined;
}

async function main(): Promise<void> {
  const t = await createTestBackend('postgres', { listen: false, realClock: true });
  const work = mkdtempSync(join(tmpdir(), 'wallet-replicas-'));
  const proxyPort = await checkedPort();
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const closedPort = await checkedPort();
  const replicas: Replica[] = [];
  for (let index = 0; index < REPLICAS; index++) replicas.push({ index, port: await checkedPort(), metricsPort: await checkedPort(), dataDir: join(work, `replica-${index}`), server: undefined });

  let limits: Record<string, string> = {};
  const launch = async (replica: Replica) => {
    replica.server = await launchWallet({
      entry: ENTRY,
      port: replica.port,
      env: walletEnv(t.databaseUrl, proxyUrl, replica.dataDir, {
        SCHEDULER_ENABLED: 'true',
        CHALLENGE_SWEEP_INTERVAL_SEC: '1',
        METRICS_LISTEN: String(replica.metricsPort),
        RATE_LIMIT_STORAGE: 'database',
        TRUSTED_PROXIES: '127.0.0.1',
        SHUTDOWN_DELAY_SEC: String(SHUTDOWN_DELAY_MS / 1000),
        FEATURE_TIPS: 'true',
        TIP_SHARE_BASE: `${proxyUrl}/tip/`,
        // Draft tips never reach the chain; BTC chain access must only be configured for tips to take BTC.
        BTC_ESPLORA_URL: `http://127.0.0.1:${closedPort}`,
        ...limits,
      }),
    });
  };
  const proxy = spawnEntry('test/bench/replicas/proxy-main.ts', [String(proxyPort), ...replicas.map((r) => `http://127.0.0.1:${r.port}`)], { env: {}, cwd: REPO_ROOT });
  try {
    await proxy.waitFor('"proxy ready"');
    progress(`replicas: proxy at ${proxyUrl}; starting ${REPLICAS} reference servers (${ENTRY}) on one Postgres database`);
    await Promise.all(replicas.map(launch));
    const control = (path: string, body?: unknown) =>
      fetch(`${proxyUrl}/__proxy/${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) }).then((res) => res.json() as Promise<{ upstreams: UpstreamCounts[] }>);

    // Sessions (one per worker), a relay recipient, and pre-signed bodies for registrations and logins.
    const logins = new LoginBodies(proxyUrl, proxyUrl);
    const sessions = await logins.sessions(WORKERS);
    const [recipient] = await new LoginBodies(proxyUrl, proxyUrl).sessions(1);
    let opsPerSec = 400;
    /** The previous run, whose newest sessions the next one goes on with (refresh tokens rotate). */
    let result0: MixedLoadResult | undefined;
    const bodies = async () => {
      const count = Math.ceil((opsPerSec * DURATION_MS) / 1000 / 8) + 50;
      progress(`replicas: signing ${count} registrations and ${2 * count} logins`);
      const registrations = Array.from({ length: count }, () => new BenchBtcKey(nowSec()).loginBody(proxyUrl, nowSec())!);
      return { registrations, logins: await logins.pool(2 * count) };
    };
    const run = async (label: string, onTick?: (elapsed: number) => Promise<void> | void): Promise<MixedLoadResult & Spent> => {
      const signed = await bodies();
      const pids = replicas.map((r) => r.server!.pid);
      const cpuBefore = pids.map((pid) => cpuMs(pid) ?? 0);
      const machineBefore = machineCpuTimes();
      const proxyBefore = cpuMs(proxy.child.pid!) ?? 0;
      const loadBefore = process.cpuUsage();
      progress(`replicas: ${label}: ${WORKERS} workers for ${DURATION_MS / 1000} s`);
      const result = await mixedLoad({ url: proxyUrl, workers: WORKERS, durationMs: DURATION_MS, sessions: sessions.map((s, i) => result0?.acknowledged.sessions[i] ?? s), ...signed, recipientId: recipient!.user_id, ...(onTick ? { onTick } : {}) });
      // CPU of the processes that ran throughout (a killed replica's counters die with it).
      const cpu = pids.reduce((sum, pid, i) => sum + Math.max(0, (cpuMs(pid) ?? cpuBefore[i]!) - cpuBefore[i]!), 0);
      const machineAfter = machineCpuTimes();
      const load = process.cpuUsage(loadBefore);
      result0 = result;
      opsPerSec = Math.max(opsPerSec, (result.answers.length / result.elapsedMs) * 1000);
      return {
        ...result,
        cpuMs: cpu,
        proxyCpuMs: (cpuMs(proxy.child.pid!) ?? proxyBefore) - proxyBefore,
        loadCpuMs: (load.user + load.system) / 1000,
        machineBusy: busyShare(machineBefore, machineAfter),
      };
    };
    const ok = (answers: Answer[]) => answers.filter((a) => a.status >= 200 && a.status < 300).length;
    const summary = (label: string, r: MixedLoadResult & Spent) => {
      const rps = (ok(r.answers) / r.elapsedMs) * 1000;
      const statuses = new Map<string, number>();
      for (const a of r.answers) statuses.set(`${a.op} ${a.status}`, (statuses.get(`${a.op} ${a.status}`) ?? 0) + 1);
      const perRequest = (ms: number) => Math.round((ms * 1000) / r.answers.length);
      console.log(
        `${label}: ${Math.round(rps)} req/s answered 2xx, ${r.answers.length} requests; CPU µs per request: servers ${perRequest(r.cpuMs)}, proxy ${perRequest(r.proxyCpuMs)}, load ${perRequest(r.loadCpuMs)}; machine ${Math.round(r.machineBusy * 100)} % busy (${cpus().length} cores)`,
      );
      console.log(`  ${[...statuses].sort().map(([k, v]) => `${k}: ${v}`).join(', ')}${r.unsigned > 0 ? `; ${r.unsigned} without a pre-signed body ran as refreshes` : ''}`);
      return rps;
    };
    const allAcknowledged: MixedLoadResult['acknowledged'] = { users: [], tips: [], relays: [], sessions: [] };
    const keep = (r: MixedLoadResult) => {
      allAcknowledged.users.push(...r.acknowledged.users);
      allAcknowledged.tips.push(...r.acknowledged.tips);
      allAcknowledged.relays.push(...r.acknowledged.relays);
      allAcknowledged.sessions = r.acknowledged.sessions;
    };
    const noServerErrors = (label: string, answers: Answer[]) => {
      const bad = answers.filter((a) => a.status >= 500 || a.status === 0);
      require(bad.length === 0, `${label}: no 5xx and no failed request (${bad.length}${bad[0] ? `; first: ${bad[0].op} ${bad[0].status} ${bad[0].body ?? ''}` : ''})`);
    };

    // 1 and 2: one replica, then three.
    await control('upstreams', { active: [0] });
    const one = await run('one replica');
    keep(one);
    const oneRps = summary('one replica', one);
    noServerErrors('one replica', one.answers);
    await control('upstreams', { active: replicas.map((r) => r.index) });
    const three = await run('three replicas');
    keep(three);
    const threeRps = summary('three replicas', three);
    noServerErrors('three replicas', three.answers);
    const scale = threeRps / oneRps;
    console.log(`  ${scale >= TARGET_SCALE ? 'PASS' : 'FAIL'} three replicas ${scale.toFixed(2)}× one (target ≥ ${TARGET_SCALE}×; report only)`);

    // 3: kill -9 one replica mid-load, start it again.
    const victim = replicas[1]!;
    let killedAt = Infinity;
    let restarted: Promise<void> | undefined;
    const sentBeforeRestart = { count: 0 };
    const kill = await run('kill -9', (elapsed) => {
      if (elapsed >= DURATION_MS / 3 && killedAt === Infinity) {
        killedAt = elapsed;
        victim.server!.child.kill('SIGKILL');
        progress(`replicas: killed replica ${victim.index} (pid ${victim.server!.pid}) at ${Math.round(elapsed)} ms`);
      }
      if (elapsed >= (2 * DURATION_MS) / 3 && restarted === undefined) {
        restarted = (async () => {
          sentBeforeRestart.count = answeredBy((await control('stats')).upstreams[victim.index]!);
          await launch(victim);
          progress(`replicas: replica ${victim.index} started again (pid ${victim.server!.pid})`);
        })();
      }
    });
    await restarted;
    keep(kill);
    summary('kill -9', kill);
    const kill5xx = kill.answers.filter((a) => a.status >= 500 || a.status === 0);
    // The killed replica's requests: those the proxy had written to it when it died, or on one of its
    // pooled connections before the proxy saw them closed; the proxy names it, and they fail at its death.
    const inFlight = kill5xx.filter((a) => a.status === 502 && a.broken === victim.index && a.answeredAt >= killedAt && a.answeredAt <= killedAt + KILL_SETTLE_MS);
    require(kill5xx.length === inFlight.length, `kill -9: every 5xx is a request the proxy had handed to the killed replica (502 naming it, within ${KILL_SETTLE_MS / 1000} s of the kill: ${inFlight.length} of ${kill5xx.length}${kill5xx.find((a) => !inFlight.includes(a)) ? `; other: ${JSON.stringify(kill5xx.find((a) => !inFlight.includes(a)))}` : ''})`);
    require(inFlight.length <= WORKERS, `kill -9: at most one broken request per worker (${inFlight.length} ≤ ${WORKERS})`);
    // Traffic reaches the restarted replica (requests after the restart, from a short extra run).
    await sleep(200);
    const after = await run('after the restart');
    keep(after);
    noServerErrors('after the restart', after.answers);
    const sentAfter = answeredBy((await control('stats')).upstreams[victim.index]!) - sentBeforeRestart.count;
    require(sentAfter > 0, `kill -9: the restarted replica takes traffic again (${sentAfter} requests answered)`);

    // 4: SIGTERM another replica under load; it drains and exits 0.
    const stopped = replicas[2]!;
    let exit: Promise<number | string> | undefined;
    let relaunched: Promise<void> | undefined;
    let drainMs = 0;
    const term = await run('SIGTERM', (elapsed) => {
      if (elapsed >= DURATION_MS / 3 && exit === undefined) {
        const child = stopped.server!.child;
        const began = performance.now();
        exit = new Promise((resolve) => child.once('exit', (code, signal) => {
          drainMs = performance.now() - began;
          resolve(code ?? signal ?? 'unknown');
        }));
        child.kill('SIGTERM');
        progress(`replicas: SIGTERM to replica ${stopped.index} at ${Math.round(elapsed)} ms`);
      }
      if (elapsed >= (2 * DURATION_MS) / 3 && relaunched === undefined && exit !== undefined) {
        relaunched = exit.then(() => launch(stopped));
      }
    });
    const code = await exit;
    await relaunched;
    keep(term);
    summary('SIGTERM', term);
    noServerErrors('SIGTERM', term.answers);
    require(code === 0 && drainMs < DRAIN_LIMIT_MS, `SIGTERM: the replica drained and exited 0 within ${DRAIN_LIMIT_MS / 1000} s, its ${SHUTDOWN_DELAY_MS / 1000} s shutdown delay included (${String(code)}, after ${Math.round(drainMs)} ms)`);

    // Every acknowledged write is there.
    const knex = t.backend.db.knex;
    const present = async (table: string, column: string, ids: string[]) => {
      let found = 0;
      for (let i = 0; i < ids.length; i += 1000) found += Number(((await knex(table).whereIn(column, ids.slice(i, i + 1000)).count({ n: '*' }).first()) as { n: string | number }).n);
      return found;
    };
    const users = await present('users', 'id', allAcknowledged.users);
    const tips = await present('social_tips', 'id', allAcknowledged.tips);
    const relays = await present('grin_relay_entries', 'slate_id', allAcknowledged.relays);
    require(users === allAcknowledged.users.length, `no acknowledged registration lost (${users} of ${allAcknowledged.users.length})`);
    require(tips === allAcknowledged.tips.length, `no acknowledged tip lost (${tips} of ${allAcknowledged.tips.length})`);
    require(relays === allAcknowledged.relays.length, `no acknowledged relay entry lost (${relays} of ${allAcknowledged.relays.length})`);
    let refreshed = 0;
    for (const session of allAcknowledged.sessions) {
      const res = await fetch(`${proxyUrl}/api/v1/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: session.refresh_token }) });
      if (res.status === 200) refreshed++;
    }
    require(refreshed === allAcknowledged.sessions.length, `every worker's newest acknowledged session still refreshes (${refreshed} of ${allAcknowledged.sessions.length})`);

    // 5: the challenge sweep, due every second on each replica, runs once per second between them.
    const sweeps = async () => {
      let total = 0;
      for (const replica of replicas) {
        const text = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith('wallet_scheduler_task_runs_total{') && l.includes(`task="${SWEEP_TASK}"`) && l.includes('outcome="ok"'));
        total += line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return total;
    };
    const from = await sweeps();
    const windowStart = performance.now();
    await sleep(LEASE_WINDOW_MS);
    const runs = (await sweeps()) - from;
    const seconds = (performance.now() - windowStart) / 1000;
    require(runs >= Math.floor(seconds) - 2 && runs <= Math.ceil(seconds) + 1, `leases: ${SWEEP_TASK} (due every 1 s on each of ${REPLICAS} replicas) ran ${runs} times in ${seconds.toFixed(1)} s between them`);

    // 6: one rate-limit budget across the replicas.
    progress(`replicas: restarting all ${REPLICAS} with a budget of ${LIMIT} unauthenticated requests per hour`);
    await Promise.all(replicas.map((r) => r.server!.stop()));
    limits = { RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_SEC: '3600' };
    await Promise.all(replicas.map(launch));
    const before = (await control('stats')).upstreams.map((u) => u.sent);
    let allowed = 0;
    let limited = 0;
    for (let i = 0; i < 3 * LIMIT; i++) {
      // An unknown tip: 404 within the budget, 429 past it; anything else is a failure, never "allowed".
      const { status } = await send(proxyUrl, 'GET', `/api/v1/tips/social/${randomUUID()}/public`, undefined, undefined, PROBE_ADDRESS);
      if (status === 429) limited++;
      else if (status === 404) allowed++;
    }
    const spread = (await control('stats')).upstreams.map((u, i) => u.sent - before[i]!);
    require(allowed === LIMIT && limited === 2 * LIMIT, `limiter: ${3 * LIMIT} requests across ${REPLICAS} replicas (${spread.join('/')}) from one client got ${allowed} answers and ${limited} × 429 (budget ${LIMIT})`);
  } finally {
    await Promise.all(replicas.map((r) => r.server?.stop()));
    proxy.child.kill('SIGTERM');
    await t.close();
    await dropRunDatabase();
    rmSync(work, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.log(`\n${failures.length} required propert${failures.length === 1 ? 'y' : 'ies'} failed`);
    process.exitCode = 1;
  }
}

await main();
