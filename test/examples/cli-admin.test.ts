import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Knex } from '@wallet/backend-core';
import { adminLogin, cli, createTestBackend, eachDialect, freshDatabaseUrl, NostrKey, SECRETS_ENV, spawnEntry, type DialectName } from '../harness/index.js';

/** Runs one CLI command against `env`; its exit code and output. */
/** Writes to the CLI's database behind its back, as an attacker with database access would. */
async function tamper(dialect: DialectName, databaseUrl: string, edit: (knex: Knex) => Promise<unknown>): Promise<void> {
  const db = await createTestBackend(dialect, { databaseUrl, listen: false });
  try {
    await edit(db.backend.db.knex);
  } finally {
    await db.close();
  }
}

async function migratedEnv(dialect: DialectName, dataDir: string): Promise<Record<string, string>> {
  const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV };
  expect((await cli(env, 'migrate')).code).to.equal(0);
  return env;
}

eachDialect('wallet-backend CLI: setup, reset-setup, audit verify, admin keys', (dialect) => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-admin-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to run on an unmigrated database', async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV };
    for (const argv of [['setup', new NostrKey().pubkey], ['audit', 'verify'], ['admin', 'list'], ['reset-setup', '--acknowledge']]) {
      const run = await cli(env, ...argv);
      expect(run.code, argv.join(' ')).to.equal(1);
      expect(run.err).to.include('run `wallet-backend migrate` first');
    }
  });

  it('setup bootstraps the first admin once; the server then lets that key log in', async () => {
    const env = await migratedEnv(dialect, dataDir);
    const nostr = new NostrKey();
    expect(await cli(env, 'setup-status')).to.deep.include({ code: 0, out: 'setup latch: uninitialized; active admin keys: 0' });
    const bad = await cli(env, 'setup', 'npub1notakey');
    expect(bad.code, 'a malformed key is a usage error').to.equal(2);
    expect(bad.err).to.include('64 hex characters or an npub1');
    const setup = await cli(env, 'setup', nostr.npub);
    expect(setup.code, setup.err).to.equal(0);
    expect(setup.out).to.match(new RegExp(`^admin key [0-9a-f-]{36} \\(${nostr.pubkey}, full scope\\) is active; setup is locked\\.$`));
    const again = await cli(env, 'setup', new NostrKey().pubkey);
    expect(again.code).to.equal(1);
    expect(again.err).to.include('(setup_not_uninitialized)');
    expect((await cli(env, 'setup-status')).out).to.equal('setup latch: locked; active admin keys: 1');

    const server = await createTestBackend(dialect, { databaseUrl: env.DATABASE_URL });
    try {
      const token = await adminLogin(server, nostr);
      expect((await server.client.get('/api/v1/admin/me', { token })).body.pubkey).to.equal(nostr.pubkey);
    } finally {
      await server.close();
    }
  });

  it('reset-setup does nothing without --acknowledge, then reopens setup and keeps the keys', async () => {
    const env = await migratedEnv(dialect, dataDir);
    const first = new NostrKey();
    expect((await cli(env, 'setup', first.pubkey)).code).to.equal(0);
    const unacknowledged = await cli(env, 'reset-setup');
    expect(unacknowledged.code, 'the missing confirmation is a usage error').to.equal(2);
    expect(unacknowledged.err).to.include('--acknowledge');
    expect((await cli(env, 'setup-status')).out).to.include('locked');
    const reset = await cli(env, 'reset-setup', '--acknowledge');
    expect(reset.code, reset.err).to.equal(0);
    expect((await cli(env, 'setup-status')).out).to.equal('setup latch: uninitialized; active admin keys: 1');
    expect((await cli(env, 'reset-setup', '--acknowledge')).err).to.include('(setup_not_locked)');
    // The kept admin blocks a second bootstrap until it is revoked from the shell.
    expect((await cli(env, 'setup', new NostrKey().pubkey)).err).to.include('(setup_admin_exists)');
    const revoke = await cli(env, 'admin', 'revoke', first.npub);
    expect(revoke.code, revoke.err).to.equal(0);
    expect(revoke.out).to.include(first.pubkey);
    expect((await cli(env, 'admin', 'revoke', first.pubkey)).code, 'already revoked').to.equal(1);
    expect((await cli(env, 'setup', new NostrKey().pubkey)).code).to.equal(0);
    const list = await cli(env, 'admin', 'list');
    expect(list.code).to.equal(0);
    expect(list.out.split('\n')).to.have.length(2);
    expect(list.out).to.match(/revoked \d{4}-/);
    expect(list.out).to.include('active');
  });

  it('audit verify passes an intact chain and names the first broken seq of a tampered one', async () => {
    const env = await migratedEnv(dialect, dataDir);
    expect((await cli(env, 'setup', new NostrKey().pubkey)).code).to.equal(0);
    expect((await cli(env, 'reset-setup', '--acknowledge')).code).to.equal(0);
    const ok = await cli(env, 'audit', 'verify');
    expect(ok.code, ok.err).to.equal(0);
    expect(ok.out).to.equal('audit chain intact: 2 entries verified.');
    expect(ok.err).to.include('checked 2 entries');
    await tamper(dialect, env.DATABASE_URL!, (knex) => knex('admin_audit').where({ seq: 2 }).update({ action: 'nothing_to_see' }));
    const broken = await cli(env, 'audit', 'verify');
    expect(broken.code).to.equal(1);
    expect(broken.err).to.include('error: audit chain broken at seq 2');
    expect(broken.err).to.include('the entry was altered after it was written');
    expect(broken.err).to.include('verifying from the first entry…');
    // A checkpoint the server did not seal is reported, never trusted; --full ignores checkpoints.
    await tamper(dialect, env.DATABASE_URL!, (knex) => knex('admin_audit_checkpoint').insert({ seq: 1, row_hash: 'a'.repeat(64), created_at: new Date().toISOString(), mac: 'b'.repeat(64) }));
    const forged = await cli(env, 'audit', 'verify');
    expect(forged.code).to.equal(1);
    expect(forged.err).to.include('error: audit chain broken at seq 1');
    expect(forged.err).to.include('the checkpoint at entry 1 was altered (verify with full to walk the chain from its start)');
    const full = await cli(env, 'audit', 'verify', '--full');
    expect(full.code).to.equal(1);
    expect(full.err).to.include('error: audit chain broken at seq 2');
  });

  it('admin list fails when a key row was edited in the database', async () => {
    const env = await migratedEnv(dialect, dataDir);
    expect((await cli(env, 'setup', new NostrKey().pubkey)).code).to.equal(0);
    await tamper(dialect, env.DATABASE_URL!, (knex) => knex('admin_keys').update({ scope: 'read' }));
    const list = await cli(env, 'admin', 'list');
    expect(list.code).to.equal(1);
    expect(list.out).to.include('INTEGRITY CHECK FAILED');
    expect(list.err).to.include('failed their integrity check');
  });
});

describe('wallet-backend CLI binary: setup and audit verify', () => {
  it('exit codes and output of the real process', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'wallet-cli-bin-'));
    const run = async (...args: string[]) => {
      const child = spawnEntry('examples/cli/src/main.ts', args, { cwd, env: { DATA_DIR: join(cwd, 'data'), ...SECRETS_ENV } });
      return { code: await child.exited, out: child.stdout(), err: child.stderr() };
    };
    try {
      expect((await run('migrate')).code).to.equal(0);
      const setup = await run('setup', new NostrKey().pubkey);
      expect(setup.code, setup.err).to.equal(0);
      expect(setup.out).to.include('setup is locked');
      expect((await run('setup', new NostrKey().pubkey)).code).to.equal(1);
      const verify = await run('audit', 'verify');
      expect([verify.code, verify.out.trim()]).to.deep.equal([0, 'audit chain intact: 1 entry verified.']);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
