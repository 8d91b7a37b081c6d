import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '@wallet/cli';
import { captureIo, createTestBackend, eachDialect, freshDatabaseUrl, SECRETS_ENV as SECRETS, spawnEntry, TEST_SECRETS } from '../harness/index.js';

eachDialect('wallet-backend CLI', (dialect) => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrate applies core migrations once, then reports up to date; --status lists them', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS };
    const first = captureIo(env);
    expect(await runCli(['migrate'], first)).to.equal(0);
    expect(first.stdout).to.include('applied core/001_core_schema');
    const second = captureIo(env);
    expect(await runCli(['migrate'], second)).to.equal(0);
    expect(second.stdout).to.include('already up to date');
    const status = captureIo(env);
    expect(await runCli(['migrate', '--status'], status)).to.equal(0);
    expect(status.stdout).to.include('  core/001_core_schema');
  });

  it('config check accepts a sound configuration without touching the database', async () => {
    const databaseUrl = dialect === 'sqlite' ? `sqlite:${join(dataDir, 'not-yet', 'wallet.db')}` : await freshDatabaseUrl(dialect);
    const io = captureIo({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...SECRETS });
    expect(await runCli(['config', 'check'], io)).to.equal(0);
    expect(existsSync(join(dataDir, 'not-yet')), 'no SQLite directory or file is created').to.equal(false);
    expect(io.stdout.join('\n')).to.match(/configuration is valid \(environment: development, database: (sqlite|postgres)/);
    expect(io.stderr).to.deep.equal([]);
  });

  it('mint-invite prints each code once and stores only its sha256, with the label', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS };
    const unmigrated = captureIo(env);
    expect(await runCli(['mint-invite', '--count', '2'], unmigrated)).to.equal(1);
    expect(unmigrated.stderr.join('\n')).to.include('wallet-backend migrate');
    expect(await runCli(['migrate'], captureIo(env))).to.equal(0);
    const io = captureIo(env);
    expect(await runCli(['mint-invite', '--count', '3', '--label', 'beta testers', '--expires-days', '30'], io)).to.equal(0);
    expect(io.stdout).to.have.length(3);
    for (const code of io.stdout) expect(code).to.match(/^[1-9A-HJ-NP-Za-km-z]{21,22}$/);
    expect(io.stderr.join('\n')).to.include('3 invite codes minted (label "beta testers")');
    const stored = await createTestBackend(dialect, { databaseUrl: env.DATABASE_URL, listen: false });
    try {
      const rows = await stored.backend.db.knex('invite_codes').select('id', 'code_hash', 'label', 'expires_at');
      const hashes = io.stdout.map((code) => createHash('sha256').update(code).digest('hex'));
      expect(rows.map((row) => row.code_hash).sort()).to.deep.equal(hashes.sort());
      expect(rows.every((row) => row.label === 'beta testers' && row.expires_at !== null)).to.equal(true);
      expect(JSON.stringify(rows)).to.not.include(io.stdout[0]);
      // Minted from the shell, audited as the admin API's mint is: one entry, actor cli, the invites by id only.
      const entries = await stored.backend.db.knex('admin_audit').where({ action: 'invites_minted' }).select('actor_kind', 'actor_pubkey_prefix', 'peer_ip', 'details');
      expect(entries).to.have.length(1);
      expect(entries[0]).to.include({ actor_kind: 'cli', actor_pubkey_prefix: null, peer_ip: null });
      const details = JSON.parse(entries[0].details as string) as { count: number; label: string; ids: string[] };
      expect(details).to.include({ count: 3, label: 'beta testers' });
      expect([...details.ids].sort()).to.deep.equal(rows.map((row) => row.id as string).sort());
      for (const secret of [...io.stdout, ...hashes]) expect(entries[0].details).to.not.include(secret);
      expect((await stored.backend.setup.verifyAudit({ full: true })).ok).to.equal(true);
    } finally {
      await stored.close();
    }
    // Bad option values are usage errors (exit code 2), refused before the database is opened.
    expect(await runCli(['mint-invite', '--count', '0'], captureIo(env))).to.equal(2);
    expect(await runCli(['mint-invite', '--count', 'many'], captureIo(env))).to.equal(2);
    const after = await createTestBackend(dialect, { databaseUrl: env.DATABASE_URL, listen: false });
    try {
      expect(await after.backend.db.knex('invite_codes').count({ n: '*' }).first()).to.satisfy((row: { n: number | string }) => Number(row.n) === 3);
      expect(await after.backend.db.knex('admin_audit').where({ action: 'invites_minted' }).count({ n: '*' }).first()).to.satisfy((row: { n: number | string }) => Number(row.n) === 1);
    } finally {
      await after.close();
    }
  });

  it('mint-invite of more than one batch audits each batch, and the chain verifies', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS };
    expect(await runCli(['migrate'], captureIo(env))).to.equal(0);
    const io = captureIo(env);
    expect(await runCli(['mint-invite', '--count', '501'], io)).to.equal(0);
    expect(io.stdout).to.have.length(501);
    const stored = await createTestBackend(dialect, { databaseUrl: env.DATABASE_URL, listen: false });
    try {
      const entries = await stored.backend.db.knex('admin_audit').where({ action: 'invites_minted', actor_kind: 'cli' }).orderBy('seq').select('details');
      const ids = entries.map((entry) => (JSON.parse(entry.details as string) as { ids: string[] }).ids);
      expect(ids.map((batch) => batch.length)).to.deep.equal([500, 1]);
      const storedIds = (await stored.backend.db.knex('invite_codes').pluck('id')) as string[];
      expect(ids.flat().sort()).to.deep.equal(storedIds.sort());
      expect((await stored.backend.setup.verifyAudit({ full: true })).ok).to.equal(true);
    } finally {
      await stored.close();
    }
  });

});

describe('wallet-backend CLI (no database)', () => {
  it('config check lists every violation at once and exits 1', async () => {
    const io = captureIo({
      PUBLIC_API_URL: 'ftp://wallet',
      JWT_SECRET: 'short',
      PEPPER_SECRET: TEST_SECRETS.pepperSecret,
      IP_HASH_SALT: TEST_SECRETS.pepperSecret,
      RATE_LIMIT_MAX: '0',
      TRUSTED_PROXIES: '10.0.0.0/8, not-an-ip',
      DATABASE_URL: 'mysql://nope',
    });
    expect(await runCli(['config', 'check'], io)).to.equal(1);
    const err = io.stderr.join('\n');
    expect(err).to.match(/configuration is invalid \(\d+ problems\)/);
    for (const name of ['PUBLIC_API_URL', 'JWT_SECRET', 'RATE_LIMIT_MAX', 'DATABASE_URL']) expect(err).to.include(name);
    expect(io.stdout.join('\n')).to.not.include('configuration is valid');
  });

  it('config check in development does not create secrets, and notes that start-up will', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-'));
    try {
      const io = captureIo({ DATA_DIR: dataDir });
      expect(await runCli(['config', 'check'], io)).to.equal(0);
      expect(io.stdout.join('\n')).to.include('will be generated');
      expect(await runCli(['config', 'check'], io)).to.equal(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('an unknown command is a usage error (exit code 2)', async () => {
    const io = captureIo({});
    expect(await runCli(['frobnicate'], io)).to.equal(2);
    expect(io.stderr.join('\n')).to.include('unknown command');
  });

  it('the real binary exits 1 with the problems on stderr', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'wallet-cli-bin-'));
    try {
      const cli = spawnEntry('examples/cli/src/main.ts', ['config', 'check'], { cwd, env: { NODE_ENV: 'production' } });
      expect(await cli.exited).to.equal(1);
      expect(cli.stderr()).to.include('PUBLIC_API_URL');
      expect(cli.stderr()).to.include('JWT_SECRET');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
