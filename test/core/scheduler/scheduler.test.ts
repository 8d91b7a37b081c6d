import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { BootError, readTime, type Task, type WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, eachDialect, rejectionOf, useTestBackend, type TestBackend } from '../../harness/index.js';

const LEASES = 'worker_leases';

/** A plugin registering one task; `name` doubles as the plugin name, so the task is `<name>.<task>`. */
function taskPlugin(name: string, task: string, run: Task, intervalMs = 60_000, options: { firstRunDelayMs?: number; leaseMs?: number } = {}): WalletPlugin {
  return {
    name,
    setup(ctx) {
      ctx.scheduler.every(task, intervalMs, run, options);
    },
  };
}

interface Interval {
  instance: string;
  start: number;
  end: number;
}

async function leaseRow(t: TestBackend, name: string): Promise<{ holder: string; expires_at: unknown; due_at: unknown } | undefined> {
  return t.backend.db.knex(LEASES).where({ name }).first('holder', 'expires_at', 'due_at');
}

function failures(t: TestBackend): Array<Record<string, unknown>> {
  return t.logger.lines.filter((line) => String(line.msg).includes('scheduler task failed'));
}

eachDialect('scheduler: leases across processes', (dialect) => {
  const backends: TestBackend[] = [];

  afterEach(async () => {
    await Promise.all(backends.splice(0).map((b) => b.close()));
  });

  it('two backends on one database never run the same task at the same time, and the second takes over when the first stops', async function () {
    this.timeout(20_000);
    const intervals: Interval[] = [];
    // Each run outlasts the interval, so the other process's timer keeps finding the lease held.
    const probe = (instance: string): WalletPlugin =>
      taskPlugin(
        'lease-probe',
        'probe',
        async () => {
          const start = performance.now();
          await sleep(30);
          intervals.push({ instance, start, end: performance.now() });
        },
        20,
        { firstRunDelayMs: 0 },
      );
    // Two "processes": separate backends, pools and scheduler holders, sharing one database.
    const options = { realClock: true, listen: false, scheduler: true } as const;
    const a = await createTestBackend(dialect, { ...options, plugins: [probe('a')] });
    backends.push(a);
    const b = await createTestBackend(dialect, { ...options, databaseUrl: a.databaseUrl, plugins: [probe('b')] });
    backends.push(b);

    await sleep(300);
    await a.close();
    await sleep(300);
    await b.close();

    expect(intervals.length, 'runs in 600 ms').to.be.at.least(5);
    const sorted = [...intervals].sort((x, y) => x.start - y.start);
    for (let i = 1; i < sorted.length; i++) {
      const [previous, current] = [sorted[i - 1]!, sorted[i]!];
      expect(current.start, `run ${i} (${current.instance}) started before run ${i - 1} (${previous.instance}) ended`).to.be.at.least(previous.end);
    }
    // Both ran: b's timer contended while a held the lease, and took over once a stopped.
    expect([...new Set(intervals.map((run) => run.instance))].sort()).to.deep.equal(['a', 'b']);
    for (const backend of [a, b]) expect(failures(backend)).to.deep.equal([]);
  });
});

eachDialect('scheduler: once per interval across processes', (dialect) => {
  const backends: TestBackend[] = [];

  afterEach(async () => {
    await Promise.all(backends.splice(0).map((b) => b.close()));
  });

  it('three backends on one database run a scheduled task once per interval between them, not once each', async function () {
    this.timeout(20_000);
    const INTERVAL_MS = 100;
    const WINDOW_MS = 1_500;
    const starts: Array<{ instance: string; at: number }> = [];
    const probe = (instance: string): WalletPlugin =>
      taskPlugin('due-probe', 'probe', ({ now }) => void starts.push({ instance, at: now.getTime() }), INTERVAL_MS, { firstRunDelayMs: 0 });
    const options = { realClock: true, listen: false, scheduler: true } as const;
    const first = await createTestBackend(dialect, { ...options, plugins: [probe('a')] });
    backends.push(first);
    for (const instance of ['b', 'c']) backends.push(await createTestBackend(dialect, { ...options, databaseUrl: first.databaseUrl, plugins: [probe(instance)] }));
    // Every backend's timer has fired at least once before the window is counted.
    await sleep(3 * INTERVAL_MS);
    const from = Date.now();
    await sleep(WINDOW_MS);
    const to = Date.now();
    await Promise.all(backends.map((b) => b.close()));

    const counted = starts.filter((run) => run.at >= from && run.at < to);
    // Each of three timers fires every interval: running on every firing would be about 45 runs.
    // At most one per interval; at least half as many (timers run late on a loaded machine).
    expect(counted.length, `runs in ${to - from} ms`).to.be.within(Math.floor((to - from) / INTERVAL_MS / 2), Math.ceil((to - from) / INTERVAL_MS));
    const sorted = starts.map((run) => run.at).sort((x, y) => x - y);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!, `gap before run ${i}`).to.be.at.least(INTERVAL_MS);
    for (const backend of backends) expect(failures(backend)).to.deep.equal([]);
  });
});

eachDialect('scheduler: a refused timer run comes back when the task is due', (dialect) => {
  it('another holder ran the task 1.7 s into a 2 s interval: this process runs it when due (0.3 s), not an interval later', async function () {
    this.timeout(20_000);
    const INTERVAL_MS = 2_000;
    const DUE_IN_MS = 300;
    const first = await createTestBackend(dialect, { listen: false });
    let ranAt: number | undefined;
    let started = 0;
    try {
      const { time } = first.backend.db.dialect;
      await first.backend.db.knex(LEASES).insert({ name: 'due-soon.probe', holder: 'other-process', expires_at: time(new Date()), due_at: time(new Date(Date.now() + DUE_IN_MS)) });
      started = Date.now();
      const second = await createTestBackend(dialect, {
        realClock: true,
        listen: false,
        scheduler: true,
        databaseUrl: first.databaseUrl,
        plugins: [taskPlugin('due-soon', 'probe', () => void (ranAt ??= Date.now()), INTERVAL_MS, { firstRunDelayMs: 0 })],
      });
      try {
        while (ranAt === undefined && Date.now() - started < INTERVAL_MS + 1_000) await sleep(20);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
    // Refused at first (not due), then armed for the recorded due time plus a moment (another holder ran it last).
    expect(ranAt, 'the task ran').to.be.a('number');
    expect(ranAt! - started).to.be.at.least(DUE_IN_MS).and.below(INTERVAL_MS - 500);
  });
});

eachDialect('scheduler: runNow, failures and leases', (dialect) => {
  let calls = 0;
  let gate: Promise<void> | undefined;
  beforeEach(() => {
    calls = 0;
    gate = undefined;
  });

  const t = useTestBackend(dialect, {
    listen: false,
    plugins: [
      taskPlugin('flaky', 'boom', () => {
        calls += 1;
        throw new Error(`kaboom ${calls}`);
      }),
      taskPlugin(
        'leased',
        'tick',
        async () => {
          calls += 1;
          await gate;
        },
        60_000,
        { leaseMs: 60_000 },
      ),
    ],
  });

  it('registers plugin tasks as <plugin>.<name>, next to core', () => {
    expect(t.backend.scheduler.taskNames).to.include.members(['core-challenges.expiry-sweep', 'flaky.boom', 'leased.tick']);
  });

  it('a task that throws is logged and runs again on the next runNow', async () => {
    expect(await t.backend.scheduler.runNow('flaky.boom')).to.equal(true);
    expect(calls).to.equal(1);
    const [first] = failures(t);
    expect(first).to.include({ level: 'error', task: 'flaky.boom', err: 'kaboom 1' });
    expect(String(first!.msg)).to.include('scheduler task failed');

    // The failure released the lease, so the same clock instant is enough for the next run.
    expect(await t.backend.scheduler.runNow('flaky.boom')).to.equal(true);
    expect(calls).to.equal(2);
    expect(failures(t).map((line) => [line.task, line.err])).to.deep.equal([
      ['flaky.boom', 'kaboom 1'],
      ['flaky.boom', 'kaboom 2'],
    ]);
    const lease = await leaseRow(t, 'flaky.boom');
    expect(readTime(lease!.expires_at).getTime()).to.equal(t.clock.now().getTime());
  });

  it('runNow of an unknown task rejects', async () => {
    const err = await rejectionOf(t.backend.scheduler.runNow('flaky.nope'));
    expect((err as Error).message).to.include('no scheduler task "flaky.nope"');
  });

  it('runNow is false while another holder has the lease, and true once the clock passes its expiry', async () => {
    const { time } = t.backend.db.dialect;
    const expiresAt = new Date(t.clock.now().getTime() + 60_000);
    await t.backend.db.knex(LEASES).insert({ name: 'leased.tick', holder: 'other-process', expires_at: time(expiresAt) });

    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(false);
    t.clock.advance(59_999);
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(false);
    expect(calls).to.equal(0);
    expect(await leaseRow(t, 'leased.tick')).to.include({ holder: 'other-process' });

    t.clock.advance(1);
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(true);
    expect(calls).to.equal(1);
    const taken = await leaseRow(t, 'leased.tick');
    expect(taken!.holder).to.not.equal('other-process');
    // Released on completion: expires now, so the next run anywhere need not wait.
    expect(readTime(taken!.expires_at).getTime()).to.equal(t.clock.now().getTime());
  });

  it('runNow while the same task is running in this process is false, and the lease is held meanwhile', async () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const first = t.backend.scheduler.runNow('leased.tick');
    // Wait until the task body is running (it took the lease first).
    while (calls === 0) await sleep(1);
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(false);
    const held = await leaseRow(t, 'leased.tick');
    expect(readTime(held!.expires_at).getTime()).to.equal(t.clock.now().getTime() + 60_000);
    open();
    expect(await first).to.equal(true);
    expect(calls).to.equal(1);
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(true);
    expect(calls).to.equal(2);
  });

  it('a timer run is due one interval after the last run began, wherever it ran; runNow does not wait for that', async () => {
    const began = t.clock.now().getTime();
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(true);
    const lease = await leaseRow(t, 'leased.tick');
    expect(readTime(lease!.due_at).getTime()).to.equal(began + 60_000);
    expect(await t.backend.scheduler.runDue('leased.tick')).to.equal(false);
    t.clock.advance(59_999);
    expect(await t.backend.scheduler.runDue('leased.tick')).to.equal(false);
    expect(calls).to.equal(1);
    t.clock.advance(1);
    expect(await t.backend.scheduler.runDue('leased.tick')).to.equal(true);
    expect(calls).to.equal(2);
    // An explicit run (tests, the CLI) only needs the lease to be free.
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(true);
    expect(calls).to.equal(3);
  });

  it('a row left by another holder with a later due time refuses timer runs until then, on every dialect', async () => {
    const { time } = t.backend.db.dialect;
    const now = t.clock.now().getTime();
    await t.backend.db.knex(LEASES).insert({ name: 'leased.tick', holder: 'other-process', expires_at: time(new Date(now)), due_at: time(new Date(now + 1_000)) });
    expect(await t.backend.scheduler.runDue('leased.tick')).to.equal(false);
    t.clock.advance(1_000);
    expect(await t.backend.scheduler.runDue('leased.tick')).to.equal(true);
    expect(calls).to.equal(1);
  });

  it('a lease that another holder let lapse is taken over; its row is not duplicated', async () => {
    const { time } = t.backend.db.dialect;
    await t.backend.db.knex(LEASES).insert({ name: 'leased.tick', holder: 'crashed', expires_at: time(new Date(t.clock.now().getTime() - 1)) });
    expect(await t.backend.scheduler.runNow('leased.tick')).to.equal(true);
    const rows = await t.backend.db.knex(LEASES).where({ name: 'leased.tick' }).select('holder');
    expect(rows).to.have.length(1);
    expect(rows[0].holder).to.not.equal('crashed');
  });
});

eachDialect('scheduler: registration problems refuse the boot', (dialect) => {
  it('the same task name registered twice is a BootError listing the problem', async () => {
    const twice: WalletPlugin = {
      name: 'dup',
      setup(ctx) {
        ctx.scheduler.every('tick', 1_000, () => {});
        ctx.scheduler.every('tick', 2_000, () => {});
        ctx.scheduler.every('fast', 5, () => {});
      },
    };
    const err = await rejectionOf(createTestBackend(dialect, { listen: false, plugins: [twice] }));
    expect(err).to.be.instanceOf(BootError);
    const problems = (err as BootError).problems;
    expect(problems).to.have.length(2);
    expect(problems[0]).to.equal('dup: scheduler task "dup.tick" is registered twice');
    expect(problems[1]).to.include('dup: scheduler task "dup.fast": interval must be an integer of at least 10 ms');
    for (const problem of problems) expect((err as BootError).message).to.include(problem);
  });

  it('the same short name in two plugins is fine: names are namespaced by plugin', async () => {
    const t = await createTestBackend(dialect, {
      listen: false,
      plugins: [taskPlugin('alpha', 'tick', () => {}), taskPlugin('beta', 'tick', () => {})],
    });
    try {
      expect(t.backend.scheduler.taskNames).to.include.members(['alpha.tick', 'beta.tick']);
      expect(await t.backend.scheduler.runNow('alpha.tick')).to.equal(true);
      expect(await t.backend.scheduler.runNow('beta.tick')).to.equal(true);
    } finally {
      await t.close();
    }
  });
});
