import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { HOST_TAG, SELF, databaseName, databaseOwner, ownerAlive, sqliteDirPrefix } from './leftovers.js';
import { dropDeadRunDatabases, pgAdminUrl } from './postgres.js';
import { spawnEntry, type Spawned } from './processes.js';
import { removeDeadSqliteDirs } from './sqlite.js';

// Issue 29 item 12: a runner killed with SIGKILL (a mutation timeout) left its wallet_test_*
// database behind for good. These tests kill real child processes that made a database and a
// SQLite directory the way any test run does.

async function adminQuery<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: await pgAdminUrl() });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  return (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;
}

async function startChild(args: string[] = []): Promise<{ run: Spawned; database: string; sqliteDir: string }> {
  const env: Record<string, string> = process.env.WALLET_TEST_PG_URL === undefined ? {} : { WALLET_TEST_PG_URL: process.env.WALLET_TEST_PG_URL };
  const run = spawnEntry('test/harness/leftovers-child.ts', args, { env, cwd: process.cwd() });
  await run.waitFor('ready ', 30_000);
  const { database, sqliteDir } = JSON.parse(/ready (.*)/.exec(run.stdout())![1]!) as { database: string; sqliteDir: string };
  return { run, database, sqliteDir };
}

/** A pid that no process has now: a child that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('harness: databases and SQLite directories of dead test runs', function () {
  this.timeout(90_000);
  const made: string[] = [];
  after(async () => {
    for (const name of made) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  it('names the run database for its owner: pid, process start time and host', () => {
    const name = databaseName('0123abcd');
    expect(name).to.equal(`wallet_test_${process.pid}_${SELF.start}_${HOST_TAG}_0123abcd`);
    expect(name.length).to.be.at.most(63);
    expect(databaseOwner(name, false)).to.deep.equal(SELF);
    expect(databaseOwner(`wallet_test_${process.pid}_0123abcd`, true)).to.deep.equal({ pid: process.pid, start: 0, host: HOST_TAG });
    // A legacy name says nothing about a remote server's clients, and foreign names are not ours.
    expect(databaseOwner(`wallet_test_${process.pid}_0123abcd`, false)).to.equal(undefined);
    expect(databaseOwner('wallet_test_production', true)).to.equal(undefined);
  });

  it('judges an owner dead when its pid is gone or now belongs to a process started at another time', async () => {
    expect(ownerAlive(SELF)).to.equal(true);
    expect(ownerAlive({ ...SELF, pid: await deadPid() })).to.equal(false);
    // The pid is live, but it is not the process that made the database (pid reuse).
    expect(ownerAlive({ ...SELF, start: SELF.start + 1 })).to.equal(SELF.start === 0);
    // Another machine's run cannot be judged from here: it is left alone.
    expect(ownerAlive({ ...SELF, pid: await deadPid(), host: HOST_TAG === '000000' ? '111111' : '000000' })).to.equal(true);
  });

  it('a run killed with SIGKILL leaves its database and directory, and the next start drops them; a live run keeps its own', async () => {
    const killed = await startChild();
    const live = await startChild();
    try {
      expect(await databaseExists(killed.database)).to.equal(true);
      expect(existsSync(killed.sqliteDir)).to.equal(true);
      killed.run.child.kill('SIGKILL');
      expect(await killed.run.exited).to.equal('SIGKILL');
      expect(await databaseExists(killed.database), 'a SIGKILL runs no cleanup').to.equal(true);

      // Other test runs on this machine sweep too and may get there first: what counts is that it is gone.
      const dropped = await dropDeadRunDatabases();
      removeDeadSqliteDirs();
      expect(await databaseExists(killed.database)).to.equal(false);
      expect(existsSync(killed.sqliteDir)).to.equal(false);
      expect(dropped).to.not.include(live.database);
      expect(await databaseExists(live.database)).to.equal(true);
      expect(existsSync(live.sqliteDir)).to.equal(true);
    } finally {
      live.run.child.kill('SIGKILL');
      killed.run.child.kill('SIGKILL');
      await live.run.exited;
      made.push(killed.database, live.database);
      rmSync(live.sqliteDir, { recursive: true, force: true });
    }
  });

  it('the sweep drops a name whose pid was reused or is gone, and keeps live owners, other hosts and foreign names', async () => {
    const dead = await deadPid();
    const otherHost = HOST_TAG === '000000' ? '111111' : '000000';
    const names = {
      reused: databaseName('aaaa0001', { ...SELF, start: SELF.start + 7 }),
      gone: databaseName('aaaa0002', { ...SELF, pid: dead }),
      legacyGone: `wallet_test_${dead}_aaaa0003`,
      legacyLive: `wallet_test_${process.pid}_aaaa0004`,
      live: databaseName('aaaa0005'),
      otherHost: databaseName('aaaa0006', { ...SELF, pid: dead, host: otherHost }),
      foreign: 'wallet_test_keep_me',
    };
    made.push(...Object.values(names));
    for (const name of Object.values(names)) await adminQuery(`CREATE DATABASE "${name}"`);
    const local = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(await pgAdminUrl()).hostname);

    await dropDeadRunDatabases();

    const expectedGone = SELF.start === 0 ? [names.gone] : [names.reused, names.gone];
    if (local) expectedGone.push(names.legacyGone);
    for (const [label, name] of Object.entries(names)) expect(await databaseExists(name), label).to.equal(!expectedGone.includes(name));
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a run stopped with ${signal} drops its own database and directory, and still dies of the signal`, async () => {
      const run = await startChild();
      made.push(run.database);
      expect(await databaseExists(run.database)).to.equal(true);
      run.run.child.kill(signal);
      expect(await run.run.exited).to.equal(signal);
      expect(await databaseExists(run.database)).to.equal(false);
      expect(existsSync(run.sqliteDir)).to.equal(false);
    });
  }

  it('a run that calls process.exit() before its hooks drops its database and directory on exit', async () => {
    const run = await startChild(['exit']);
    made.push(run.database);
    expect(await run.run.exited).to.equal(3);
    expect(await databaseExists(run.database)).to.equal(false);
    expect(existsSync(run.sqliteDir)).to.equal(false);
  });

  it('a SQLite directory of a dead owner is removed, one of a live owner or another host is kept', async () => {
    const dead = await deadPid();
    const dirs = {
      dead: join(tmpdir(), `${sqliteDirPrefix({ ...SELF, pid: dead })}abcdef`),
      live: join(tmpdir(), `${sqliteDirPrefix()}abcdeg`),
      otherHost: join(tmpdir(), `${sqliteDirPrefix({ ...SELF, pid: dead, host: HOST_TAG === '000000' ? '111111' : '000000' })}abcdeh`),
    };
    try {
      for (const dir of Object.values(dirs)) mkdirSync(dir);
      removeDeadSqliteDirs();
      expect(existsSync(dirs.dead)).to.equal(false);
      expect(existsSync(dirs.live)).to.equal(true);
      expect(existsSync(dirs.otherHost)).to.equal(true);
    } finally {
      for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
    }
  });
});
