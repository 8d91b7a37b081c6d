import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { silentLogger } from '@wallet/backend-core';
import { eachDialect, REPO_ROOT, requireTool, seedUser, type DialectName } from '../harness/index.js';
import { DatabaseStalled, DatabaseTimeout, StallWatch } from '../../packages/relay-admission/src/stall.js';
import { accepted, rejected, request, spawnLines, spawnPlugin, UNAVAILABLE, type Plugin } from './plugin-process.js';
import { nostrKey, signed, useAdmissionWorld } from './world.js';

/** The error `promise` rejects with (the test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (err: Error) => err,
  );
}

/** A read that answers when told to. */
function pendingRead<T>() {
  let settle!: { resolve: (value: T) => void; reject: (err: Error) => void };
  const promise = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  return { promise, ...settle };
}

describe('relay admission: the stall watch', () => {
  let now = 0;
  const watch = () => new StallWatch({ timeoutMs: 40, probeWaitMs: 10, probeIntervalMs: 250, probeExpiryMs: 1_000, now: () => now, logger: silentLogger });
  beforeEach(() => {
    now = 0;
  });

  it('after one read outlasts the timeout, refuses at once without reading until that read answers; then reads again', async () => {
    const w = watch();
    const stuck = pendingRead<string>();
    let reads = 0;
    const read = (value: Promise<string>) => () => {
      reads++;
      return value;
    };
    const started = performance.now();
    expect(await rejection(w.run(read(stuck.promise)))).to.be.instanceOf(DatabaseTimeout);
    expect(performance.now() - started).to.be.at.least(35);
    expect(w.isStalled).to.equal(true);
    // While the stuck read is the probe in flight, nothing else is read, however many ask.
    for (let i = 0; i < 5; i++) expect(await rejection(w.run(read(Promise.resolve('never read'))))).to.be.instanceOf(DatabaseStalled);
    expect(reads).to.equal(1);
    stuck.resolve('late');
    await stuck.promise;
    expect(w.isStalled).to.equal(false);
    expect(await w.run(read(Promise.resolve('fresh')))).to.equal('fresh');
    expect(reads).to.equal(2);
  });

  it('after a failed read, probes once per interval; a probe that answers in time ends the stall and is used', async () => {
    const w = watch();
    let reads = 0;
    const failing = () => {
      reads++;
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    };
    expect((await rejection(w.run(failing))).message).to.include('ECONNREFUSED');
    expect(w.isStalled).to.equal(true);
    // The first probe goes at once; its failure is the same outage, not a new one.
    expect(await rejection(w.run(failing))).to.be.instanceOf(DatabaseStalled);
    expect(reads).to.equal(2);
    now = 249;
    expect(await rejection(w.run(failing))).to.be.instanceOf(DatabaseStalled);
    expect(reads, 'no probe before the interval').to.equal(2);
    now = 250;
    expect(await w.run(() => (reads++, Promise.resolve('back')))).to.equal('back');
    expect(reads).to.equal(3);
    expect(w.isStalled).to.equal(false);
  });

  it('a probe slower than its wait refuses the event, keeps running, and its late answer ends the stall', async () => {
    const w = watch();
    expect((await rejection(w.run(() => Promise.reject(new Error('down'))))).message).to.include('down');
    const slow = pendingRead<string>();
    expect(await rejection(w.run(() => slow.promise))).to.be.instanceOf(DatabaseStalled);
    expect(w.isStalled).to.equal(true);
    slow.resolve('ok');
    await slow.promise;
    expect(w.isStalled).to.equal(false);
  });

  it('a probe that never answers stops counting after its expiry, so another may go', async () => {
    const w = watch();
    const stuck = pendingRead<string>();
    expect(await rejection(w.run(() => stuck.promise))).to.be.instanceOf(DatabaseTimeout);
    let reads = 0;
    const again = () => (reads++, new Promise<string>(() => {}));
    now = 999;
    expect(await rejection(w.run(again))).to.be.instanceOf(DatabaseStalled);
    expect(reads).to.equal(0);
    now = 1_000;
    expect(await rejection(w.run(again))).to.be.instanceOf(DatabaseStalled);
    expect(reads).to.equal(1);
  });
});

const BUNDLE = join(REPO_ROOT, 'packages', 'relay-admission', 'dist', 'wallet-relay-admission.mjs');
const SQLITE_READ_LOCK = fileURLToPath(new URL('../harness/sqlite-read-lock.py', import.meta.url));
const hasPython = spawnSync('python3', ['--version']).status === 0;

/**
 * Holds the wallet database against the plugin's reads until released. Postgres: another session
 * holds `users` in ACCESS EXCLUSIVE mode (what a long migration or a VACUUM FULL takes). SQLite:
 * in WAL mode no writer blocks a reader, so another process holds every WAL read mark of the
 * -shm file (test/harness/sqlite-read-lock.py); a reader then waits inside SQLite for about
 * 10 s, blocking the thread it runs on.
 */
async function lockAgainstReaders(dialect: DialectName, databaseUrl: string, knex: Knex): Promise<() => Promise<void>> {
  if (dialect === 'postgres') {
    const holder = knexFactory({ ...knex.client.config, pool: { min: 1, max: 1 } });
    const trx = await holder.transaction();
    await trx.raw('lock table users in access exclusive mode');
    return async () => {
      await trx.rollback();
      await holder.destroy();
    };
  }
  const locker = spawn('python3', [SQLITE_READ_LOCK, databaseUrl.slice('sqlite:'.length)], { stdio: ['pipe', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    locker.stdout.once('data', () => resolve());
    locker.once('exit', (code) => reject(new Error(`sqlite-read-lock.py exited (${code})`)));
  });
  return async () => {
    const exited = new Promise<void>((resolve) => locker.once('exit', () => resolve()));
    locker.stdin.end();
    await exited;
  };
}

/** The executable as strfry runs it, against a database that stops answering its reads. */
eachDialect('relay admission: the strfry plugin while the database is locked against readers', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let plugin: Plugin | undefined;
  let release: (() => Promise<void>) | undefined;
  afterEach(async () => {
    if (plugin && plugin.child.exitCode === null) {
      plugin.child.kill('SIGKILL');
      await plugin.exited;
    }
    await release?.();
    plugin = release = undefined;
  });

  /** The executable from the sources, and the one-file bundle run from a directory without node_modules (better-sqlite3 through NODE_PATH). */
  const executables: Array<[string, (args: string[]) => Plugin]> = [
    ['the sources', (args) => spawnPlugin({ DATABASE_URL: w.t.databaseUrl }, args)],
    [
      'the bundled file',
      (args) => {
        if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: it is built by \`npm ci\` (prepare) or \`npm run bundle -w @wallet/relay-admission\``);
        return spawnLines(process.execPath, [BUNDLE, ...args], tmpdir(), { PATH: process.env.PATH ?? '', NODE_PATH: join(REPO_ROOT, 'node_modules'), DATABASE_URL: w.t.databaseUrl });
      },
    ],
  ];
  for (const [executable, start] of executables) {
    it(`${executable}: refuses the first uncached author at the timeout, then answers every line at once (cached premium still accepted) until the lock goes, then normally, without a restart`, async function () {
      this.timeout(120_000);
      if (dialect === 'sqlite') requireTool(this, hasPython, { skipped: '      (skipped: python3 is needed to hold the WAL read marks)', ciError: 'python3 is needed to lock a SQLite file against readers (.ci/run installs it)' });
      const TIMEOUT_MS = 400;
      const premium = nostrKey();
      await seedUser(w.t.backend, { nostrPubkey: premium.pubkey, premiumUntil: new Date('2100-01-01T00:00:00.000Z') });
      const waiting = [nostrKey(), nostrKey(), nostrKey()];
      for (const key of waiting) await seedUser(w.t.backend, { nostrPubkey: key.pubkey });
      const p = (plugin = start(['--database-timeout-ms', String(TIMEOUT_MS), 'strfry']));
      const ask = async (event: ReturnType<typeof signed>) => {
        const started = performance.now();
        const line = await p.ask(request(event, 'IP4', '127.0.0.1'));
        return { line, ms: performance.now() - started };
      };
      const note = signed(premium, 1);
      expect((await ask(note)).line).to.equal(accepted(note));

      release = await lockAgainstReaders(dialect, w.t.databaseUrl, w.t.backend.db.knex);
      try {
        const first = signed(waiting[0]!, 1059, [['p', nostrKey().pubkey]]);
        const refusedFirst = await ask(first);
        expect(refusedFirst.line).to.equal(rejected(first, UNAVAILABLE));
        expect(refusedFirst.ms, 'the first uncached author waits the timeout').to.be.at.least(TIMEOUT_MS - 50);
        // Without the watch each of these uncached authors would wait the whole timeout again.
        const slowest = { ms: 0 };
        for (let i = 0; i < 10; i++) {
          const uncached = signed(nostrKey(), 1);
          const refused = await ask(uncached);
          expect(refused.line).to.equal(rejected(uncached, UNAVAILABLE));
          const cached = signed(premium, 1, [], `still here ${i}`);
          const kept = await ask(cached);
          expect(kept.line).to.equal(accepted(cached));
          slowest.ms = Math.max(slowest.ms, refused.ms, kept.ms);
        }
        expect(slowest.ms, 'every answer after the first timeout came well inside it').to.be.below(TIMEOUT_MS / 2);
      } finally {
        await release();
        release = undefined;
      }
      // The lock is gone: the stalled read answers, and uncached authors are read again.
      const back = signed(waiting[1]!, 1059, [['p', nostrKey().pubkey]]);
      let answer = '';
      for (let attempt = 0; attempt < 40 && answer !== accepted(back); attempt++) {
        answer = (await ask(back)).line;
        if (answer !== accepted(back)) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(answer, 'a registered author is admitted again without a restart').to.equal(accepted(back));
      expect(p.child.exitCode).to.equal(null);
    });
  }
});
