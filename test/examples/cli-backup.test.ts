import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect } from 'chai';
import type { BackupJson, BackupVerifyJson, RestoreJson } from '@wallet/cli';
import { BtcKey, cli, createTestBackend, eachDialect, extensionBody, freshDatabaseUrl, scratchPostgresDatabase, SECRETS_ENV, spawnEntry, type DialectName, type TestBackend } from '../harness/index.js';

// Issue 30 item 8: `backup`, `backup verify` and `restore`, on both dialects, under write load.
//
// "Every acknowledged registration is present" means: every registration whose 2xx answer the
// client had received BEFORE the backup command was started. The server commits before it
// answers and the backup's snapshot is taken after the command starts, so each of those is in
// the snapshot. Registrations answered while the backup runs may or may not be in it; those
// started after the backup finished must not be (it is a snapshot, not a live copy).

const ADMIN_HEX = 'a'.repeat(64);

/** A restore target of `dialect` that holds nothing yet. */
async function emptyTarget(dialect: DialectName, source: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') return { url: await freshDatabaseUrl('sqlite'), drop: async () => undefined };
  const schema = new URL(source).searchParams.get('schema')!;
  return scratchPostgresDatabase({ schema });
}

interface Registration {
  userId: string;
  started: number;
  acknowledged: number;
}

/** Registers wallets through the HTTP API, `concurrency` at a time, until `stop()`; every 200 is recorded. */
function registrationLoad(t: TestBackend, concurrency: number) {
  const done: Registration[] = [];
  let running = true;
  let failures = 0;
  const worker = async () => {
    while (running) {
      const started = performance.now();
      const res = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()));
      if (res.status === 200) done.push({ userId: res.body.user_id as string, started, acknowledged: performance.now() });
      else failures++;
    }
  };
  const workers = Array.from({ length: concurrency }, () => worker());
  return {
    done,
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return failures;
    },
  };
}

async function userIds(dialect: DialectName, databaseUrl: string): Promise<Set<string>> {
  const t = await createTestBackend(dialect, { databaseUrl, listen: false });
  try {
    return new Set((await t.backend.db.knex('users').select('id')).map((row: { id: string }) => row.id));
  } finally {
    await t.close();
  }
}

async function hasTable(dialect: DialectName, databaseUrl: string, table: string): Promise<boolean> {
  const t = await createTestBackend(dialect, { databaseUrl, listen: false });
  try {
    return await t.backend.db.knex.schema.hasTable(table);
  } finally {
    await t.close();
  }
}

eachDialect('wallet-backend backup / backup verify / restore', (dialect) => {
  let dir: string;
  let env: Record<string, string>;
  let t: TestBackend;
  const drops: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wallet-cli-backup-'));
    t = await createTestBackend(dialect);
    env = { DATA_DIR: dir, DATABASE_URL: t.databaseUrl, PATH: process.env.PATH ?? '', ...SECRETS_ENV };
    const setup = await cli(env, 'setup', ADMIN_HEX);
    expect(setup.code, setup.err).to.equal(0);
  });

  afterEach(async () => {
    await t.close();
    for (const drop of drops.splice(0)) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup taken during registrations restores with every registration acknowledged before it started, and audit verify is clean', async function () {
    this.timeout(120_000);
    // The server's WAL then keeps every registration out of the .db file: a backup that copied the
    // file alone (as `cp` would) misses them.
    if (dialect === 'sqlite') await t.backend.db.knex.raw('PRAGMA wal_autocheckpoint = 0');
    for (let i = 0; i < 20; i++) {
      const res = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()));
      expect(res.status).to.equal(200);
    }
    const load = registrationLoad(t, 4);
    // Let the load get going, so the backup starts in the middle of it.
    while (load.done.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    const file = join(dir, `backup.${dialect === 'sqlite' ? 'db' : 'dump'}`);
    const backupStarted = performance.now();
    // A process of its own, as in production: the server's event loop keeps answering meanwhile.
    const child = spawnEntry('examples/cli/src/main.ts', ['backup', file, '--json'], { cwd: dir, env });
    const code = await child.exited;
    const backupEnded = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const failures = await load.stop();
    expect(code, child.stderr()).to.equal(0);
    expect(failures, 'registrations refused while the backup ran').to.equal(0);
    const written = JSON.parse(child.stdout()) as BackupJson;
    expect(written).to.include({ file, dialect });
    expect(written.bytes).to.equal(statSync(file).size);
    expect(statSync(file).mode & 0o777, 'the backup is private').to.equal(0o600);
    expect(child.stderr()).to.match(/^backing up /m);

    const before = load.done.filter((r) => r.acknowledged < backupStarted);
    const during = load.done.filter((r) => r.acknowledged >= backupStarted && r.acknowledged <= backupEnded);
    const after = load.done.filter((r) => r.started > backupEnded);
    expect(during.length, 'registrations were acknowledged while the backup ran').to.be.greaterThan(0);
    expect(after.length, 'registrations started after the backup').to.be.greaterThan(0);
    console.log(`      ${dialect}: backup ${written.bytes} bytes in ${Math.round(backupEnded - backupStarted)} ms (process included); ${before.length + 20} registrations acknowledged before it, ${during.length} during, ${after.length} started after`);

    const verified = await cli(env, 'backup', 'verify', file, '--json');
    expect(verified.code, verified.err).to.equal(0);
    const verdict = JSON.parse(verified.out) as BackupVerifyJson;
    expect(verdict).to.include({ ok: true, format: dialect === 'sqlite' ? 'sqlite' : 'pg_dump' });
    expect(verdict.migrations).to.be.greaterThan(0);

    const target = await emptyTarget(dialect, t.databaseUrl);
    drops.push(target.drop);
    const targetEnv = { ...env, DATABASE_URL: target.url };
    const restored = await cli(targetEnv, 'restore', file, '--json');
    expect(restored.code, restored.err).to.equal(0);
    const document = JSON.parse(restored.out) as RestoreJson;
    expect(document.dialect).to.equal(dialect);
    expect(document.audit_entries, 'the setup wrote audit entries').to.be.greaterThan(0);

    const present = await userIds(dialect, target.url);
    const missing = before.filter((r) => !present.has(r.userId));
    expect(missing.map((r) => r.userId), 'acknowledged before the backup started, missing from the restore').to.deep.equal([]);
    expect(after.filter((r) => present.has(r.userId)).map((r) => r.userId), 'started after the backup ended, yet in it').to.deep.equal([]);
    expect(present.size).to.be.at.least(20 + before.length);

    const audit = await cli(targetEnv, 'audit', 'verify', '--json');
    expect(audit.code, audit.err).to.equal(0);
    expect(JSON.parse(audit.out)).to.deep.equal({ ok: true, entries: document.audit_entries });
    const status = await cli(targetEnv, 'setup-status', '--json');
    expect(JSON.parse(status.out)).to.deep.equal({ state: 'locked', active_admins: 1 });
  });

  it('restore refuses a database that is not empty unless --force, and replaces it with --force', async function () {
    this.timeout(60_000);
    const file = join(dir, 'backup');
    expect((await cli(env, 'backup', file)).code).to.equal(0);
    const refused = await cli(env, 'restore', file);
    expect(refused.code).to.equal(1);
    expect(refused.err).to.match(/error: the database at DATABASE_URL is not empty \(\d+ tables\): restore into an empty database, or pass --force/);
    const registered = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()));
    expect(registered.status).to.equal(200);
    await t.close();
    const forced = await cli(env, 'restore', file, '--force');
    expect(forced.code, forced.err).to.equal(0);
    expect((await userIds(dialect, t.databaseUrl)).has(registered.body.user_id as string), 'the registration after the backup is gone').to.equal(false);
  });

  it('restore --force replaces the whole database, tables of a newer migration included; a backup that does not verify leaves it untouched', async function () {
    this.timeout(90_000);
    const file = join(dir, 'backup');
    expect((await cli(env, 'backup', file)).code).to.equal(0);
    const registered = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()));
    expect(registered.status).to.equal(200);
    const userId = registered.body.user_id as string;
    // What a newer version's migration would have made: pg_restore --clean would leave it behind.
    await t.backend.db.knex.schema.createTable('newer_migration_table', (table) => table.string('id').primary());
    await t.backend.db.knex('newer_migration_table').insert({ id: 'x' });
    await t.close();

    const wrongSecret = await cli({ ...env, ADMIN_KEY_INTEGRITY_SECRET: 'another-integrity-secret-0123456789abcdef0123' }, 'restore', file, '--force');
    expect(wrongSecret.code).to.equal(1);
    expect(wrongSecret.err).to.match(/audit chain/);
    expect((await userIds(dialect, t.databaseUrl)).has(userId), 'the target is untouched').to.equal(true);
    expect(await hasTable(dialect, t.databaseUrl, 'newer_migration_table'), 'the target is untouched').to.equal(true);

    const forced = await cli(env, 'restore', file, '--force');
    expect(forced.code, forced.err).to.equal(0);
    expect((await userIds(dialect, t.databaseUrl)).has(userId), 'the registration after the backup is gone').to.equal(false);
    expect(await hasTable(dialect, t.databaseUrl, 'newer_migration_table'), 'the newer migration\'s table is gone').to.equal(false);
    const migrate = await cli(env, 'migrate');
    expect(migrate.code, migrate.err).to.equal(0);
    if (dialect === 'postgres') {
      const schema = new URL(t.databaseUrl).searchParams.get('schema')!;
      const probe = await createTestBackend(dialect, { databaseUrl: t.databaseUrl, listen: false });
      let rows: unknown[];
      try {
        ({ rows } = (await probe.backend.db.knex.raw('select nspname from pg_namespace where nspname like ?', ['wallet\\_pre\\_restore\\_%'])) as { rows: unknown[] });
      } finally {
        await probe.close();
      }
      expect(rows, `no schema left aside next to ${schema}`).to.deep.equal([]);
    }
  });

  it('backup and restore refuse what they must: an existing file, a backup from a newer version, the other dialect', async function () {
    this.timeout(60_000);
    const file = join(dir, 'backup');
    writeFileSync(file, 'x');
    const exists = await cli(env, 'backup', file);
    expect(exists.code).to.equal(2);
    expect(exists.err).to.include('exists: pass --force to overwrite it');
    rmSync(file);

    await t.backend.db.knex('wallet_migrations').insert({ id: 'core/999_from_the_future', owner: 'core', applied_at: new Date() });
    expect((await cli(env, 'backup', file)).code).to.equal(0);
    const verified = await cli(env, 'backup', 'verify', file);
    expect(verified.code).to.equal(1);
    expect(verified.err).to.include('migrations this version does not know: core/999_from_the_future');
    const target = await emptyTarget(dialect, t.databaseUrl);
    drops.push(target.drop);
    const restored = await cli({ ...env, DATABASE_URL: target.url }, 'restore', file);
    expect(restored.code).to.equal(1);
    expect(restored.err).to.include('this version does not know').and.include('core/999_from_the_future');
    const status = await cli({ ...env, DATABASE_URL: target.url }, 'migrate', '--status');
    expect(status.out, 'nothing restored').to.include('no migrations applied yet');

    const other = dialect === 'sqlite' ? await emptyTarget('postgres', await freshDatabaseUrl('postgres')) : { url: await freshDatabaseUrl('sqlite'), drop: async () => undefined };
    drops.push(other.drop);
    const crossed = await cli({ ...env, DATABASE_URL: other.url }, 'restore', file);
    expect(crossed.code).to.equal(1);
    expect(crossed.err).to.include('there is no conversion between them');

    const garbage = join(dir, 'garbage');
    writeFileSync(garbage, 'not a backup at all');
    const bad = await cli(env, 'backup', 'verify', garbage);
    expect(bad.code).to.equal(1);
    expect(bad.err).to.include('is neither an SQLite database nor a pg_dump custom-format archive');
  });

  if (dialect === 'sqlite') {
    it('restore refuses an SQLite database another process has open: the running server, or a read transaction', async function () {
      this.timeout(60_000);
      const file = join(dir, 'backup.db');
      expect((await cli(env, 'backup', file)).code).to.equal(0);
      const registered = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()));
      expect(registered.status).to.equal(200);
      const running = await cli(env, 'restore', file, '--force');
      expect(running.code).to.equal(1);
      expect(running.err).to.match(/error: the database at DATABASE_URL \(sqlite:.*\) is in use by another process: stop the server/);
      await t.close();
      const reader = await createTestBackend(dialect, { databaseUrl: t.databaseUrl, listen: false });
      try {
        await reader.backend.db.knex.transaction(async (trx) => {
          await trx('users').count();
          const reading = await cli(env, 'restore', file, '--force');
          expect(reading.code).to.equal(1);
          expect(reading.err).to.include('is in use by another process');
        });
      } finally {
        await reader.close();
      }
      expect((await userIds(dialect, t.databaseUrl)).has(registered.body.user_id as string), 'nothing was restored').to.equal(true);
      const forced = await cli(env, 'restore', file, '--force');
      expect(forced.code, forced.err).to.equal(0);
      expect((await userIds(dialect, t.databaseUrl)).has(registered.body.user_id as string)).to.equal(false);
    });

    it('backup verify finds an audit chain that does not verify (tampered, or another ADMIN_KEY_INTEGRITY_SECRET)', async function () {
      this.timeout(60_000);
      const file = join(dir, 'backup.db');
      expect((await cli(env, 'backup', file)).code).to.equal(0);
      const wrongSecret = await cli({ ...env, ADMIN_KEY_INTEGRITY_SECRET: 'another-integrity-secret-0123456789abcdef0123' }, 'backup', 'verify', file, '--json');
      expect(wrongSecret.code).to.equal(1);
      expect((JSON.parse(wrongSecret.out) as BackupVerifyJson).problems.join('\n')).to.match(/audit chain broken at seq 1/);
      expect(existsSync(file)).to.equal(true);
    });
  } else {
    it('restore reaches a database whose name holds "=" (which libpq would read as a connection string)', async function () {
      this.timeout(60_000);
      const file = join(dir, 'backup');
      expect((await cli(env, 'backup', file)).code).to.equal(0);
      const target = await scratchPostgresDatabase({ schema: new URL(t.databaseUrl).searchParams.get('schema')!, suffix: "_host=x'q" });
      drops.push(target.drop);
      const restored = await cli({ ...env, DATABASE_URL: target.url }, 'restore', file);
      expect(restored.code, restored.err).to.equal(0);
      expect((await userIds(dialect, target.url)).size).to.equal((await userIds(dialect, t.databaseUrl)).size);
    });

    it('without pg_dump on PATH, backup says what to install; the password is never on its command line', async function () {
      this.timeout(30_000);
      const missing = await cli({ ...env, PATH: join(dir, 'nothing-here') }, 'backup', join(dir, 'backup'));
      expect(missing.code).to.equal(1);
      expect(missing.err).to.include('pg_dump is not installed (or not on PATH)').and.include('apt-get install postgresql-client');
      expect(existsSync(join(dir, 'backup'))).to.equal(false);
      // A fake pg_dump records its argv and environment: the password reaches it only through PGPASSFILE.
      const bin = join(dir, 'bin');
      rmSync(bin, { recursive: true, force: true });
      mkdirSync(bin);
      writeFileSync(join(bin, 'pg_dump'), `#!/bin/sh\necho "$@" > ${dir}/argv\nenv > ${dir}/env\ncat "$PGPASSFILE" > ${dir}/passfile\nexit 3\n`);
      chmodSync(join(bin, 'pg_dump'), 0o755);
      // The test server trusts local connections (any password), or it has one of its own.
      const url = new URL(t.databaseUrl);
      if (url.password === '') url.password = 's3cret:pass';
      const password = decodeURIComponent(url.password);
      // One secret from a file: neither the *_FILE variable nor any secret's value reaches pg_dump.
      const jwtFile = join(dir, 'jwt_secret');
      writeFileSync(jwtFile, SECRETS_ENV.JWT_SECRET, { mode: 0o600 });
      const { JWT_SECRET: _jwt, ...otherSecrets } = env;
      const faked = await cli({ ...otherSecrets, JWT_SECRET_FILE: jwtFile, PATH: `${bin}:${process.env.PATH ?? ''}`, DATABASE_URL: url.toString() }, 'backup', join(dir, 'backup'));
      expect(faked.code).to.equal(1);
      expect(faked.err).to.include('pg_dump failed (exit code 3)').and.not.include(password);
      const argv = readFileSync(join(dir, 'argv'), 'utf8');
      expect(argv).to.include('--format=custom');
      expect(argv).to.not.include(password);
      const childEnv = readFileSync(join(dir, 'env'), 'utf8');
      expect(childEnv).to.include(`PGUSER=${decodeURIComponent(url.username)}`);
      expect(childEnv).to.not.include(password);
      expect(childEnv, 'no DATABASE_URL in the child').to.not.match(/^DATABASE_URL/m);
      expect(childEnv, 'no *_FILE setting in the child').to.not.match(/_FILE=/);
      expect(childEnv).to.not.include(jwtFile);
      for (const [what, text] of [['argv', argv], ['environment', childEnv]] as const) {
        for (const secret of [url.password, password, ...Object.values(SECRETS_ENV)]) expect(text, `a secret in pg_dump's ${what}`).to.not.include(secret);
      }
      expect(readFileSync(join(dir, 'passfile'), 'utf8')).to.equal(`*:*:*:*:${password.replace(/[\\:]/g, (c) => `\\${c}`)}\n`);
      expect(existsSync(join(dir, 'backup')), 'no backup file from a failed pg_dump').to.equal(false);
    });
  }
});
