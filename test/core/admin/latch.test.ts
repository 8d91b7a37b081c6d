import { expect } from 'chai';
import type { WalletError } from '@wallet/backend-core';
import { BootError, createWalletBackend } from '@wallet/backend-core';
import { captureLogger } from '@wallet/backend-core/testing';
import { bootstrapAdmin, eachDialect, NostrKey, rejectionOf, seedUser, TEST_PUBLIC_API_URL, TEST_SECRETS, useTestBackend, type TestBackend } from '../../harness/index.js';

const codeOf = (err: unknown) => (err as WalletError).code;

/** A second backend on the same database, started the way a restart would. */
async function restart(t: TestBackend) {
  const backend = await createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: t.databaseUrl, nodeEnv: 'test', logger: captureLogger(), schedulerEnabled: false, ...TEST_SECRETS });
  try {
    await backend.start();
  } finally {
    await backend.close();
  }
}

eachDialect('admin: the first-run setup latch', (dialect) => {
  const t = useTestBackend(dialect);

  it('an empty database is adopted as uninitialized at start-up; bootstrap locks it in one step with its audit entry', async () => {
    expect(await t.backend.setup.status()).to.deep.equal({ state: 'uninitialized', activeAdmins: 0 });
    const { nostr, keyId } = await bootstrapAdmin(t);
    expect(await t.backend.setup.status()).to.deep.equal({ state: 'locked', activeAdmins: 1 });
    const [key] = await t.backend.setup.listKeys();
    expect(key).to.include({ id: keyId, pubkey: nostr.pubkey, scope: 'full', intact: true });
    expect(key!.activatedAt).to.be.instanceOf(Date);
    const audit = await t.backend.db.knex('admin_audit').select('seq', 'action', 'actor_kind', 'target');
    expect(audit).to.deep.equal([{ seq: dialect === 'postgres' ? '1' : 1, action: 'setup_bootstrap', actor_kind: 'cli', target: `admin_key:${keyId}` }]);
    expect(codeOf(await rejectionOf(t.backend.setup.bootstrap(new NostrKey().pubkey)))).to.equal('setup_not_uninitialized');
  });

  it('a database that already has users is adopted as locked: no open bootstrap window', async () => {
    await seedUser(t.backend);
    await t.backend.db.knex('server_config').delete();
    expect((await t.backend.setup.status()).state).to.equal('locked');
    expect(codeOf(await rejectionOf(t.backend.setup.bootstrap(new NostrKey().pubkey)))).to.equal('setup_not_uninitialized');
    expect(await t.backend.db.knex('admin_keys').count({ n: '*' }).first()).to.satisfy((row: { n: unknown }) => Number(row.n) === 0);
  });

  it('concurrent bootstraps have exactly one winner', async () => {
    const contenders = Array.from({ length: 6 }, () => new NostrKey());
    const results = await Promise.allSettled(contenders.map((key) => t.backend.setup.bootstrap(key.pubkey)));
    const winners = results.filter((r) => r.status === 'fulfilled');
    expect(winners).to.have.length(1);
    for (const r of results) if (r.status === 'rejected') expect(['setup_not_uninitialized', 'setup_admin_exists']).to.include(codeOf(r.reason));
    expect(await t.backend.setup.listKeys()).to.have.length(1);
    expect(Number((await t.backend.db.knex('admin_audit').count({ n: '*' }).first())!.n)).to.equal(1);
  });

  it('reset-setup needs the acknowledgement, keeps the keys, ends admin sessions; bootstrap then waits for the active admin to go', async () => {
    const { nostr, keyId } = await bootstrapAdmin(t);
    expect(codeOf(await rejectionOf(t.backend.setup.reset(false)))).to.equal('invalid_request');
    expect((await t.backend.setup.status()).state).to.equal('locked');
    await t.backend.db.knex('admin_sessions').insert({
      id: '00000000-0000-4000-8000-000000000001',
      admin_key_id: keyId,
      token_hash: 'a'.repeat(64),
      peer_ip: '127.0.0.1',
      created_at: t.backend.db.dialect.time(t.clock.now()),
      expires_at: t.backend.db.dialect.time(new Date(t.clock.now().getTime() + 3_600_000)),
      revoked_at: null,
    });
    await t.backend.setup.reset(true);
    expect(await t.backend.setup.status()).to.deep.equal({ state: 'uninitialized', activeAdmins: 1 });
    expect((await t.backend.db.knex('admin_sessions').first()).revoked_at).to.not.equal(null);
    expect((await t.backend.setup.listKeys()).map((key) => key.pubkey)).to.deep.equal([nostr.pubkey]);
    expect(codeOf(await rejectionOf(t.backend.setup.reset(true)))).to.equal('setup_not_locked');
    expect(codeOf(await rejectionOf(t.backend.setup.bootstrap(new NostrKey().pubkey)))).to.equal('setup_admin_exists');
    expect(await t.backend.setup.revokeKey(keyId)).to.include({ id: keyId });
    const next = await bootstrapAdmin(t);
    expect((await t.backend.setup.status()).state).to.equal('locked');
    const actions = (await t.backend.db.knex('admin_audit').orderBy('seq').select('action')).map((row) => row.action);
    expect(actions).to.deep.equal(['setup_bootstrap', 'setup_reset', 'admin_key_revoked', 'setup_bootstrap']);
    expect(next.keyId).to.not.equal(keyId);
  });

  for (const [what, edit] of [
    ['an unlocked latch', { setup_state: 'uninitialized' }],
    ['an edited completion time', { bootstrap_completed_at: '2020-01-01T00:00:00.000Z' }],
    ['an unknown state', { setup_state: 'open' }],
  ] as const) {
    it(`${what} written into server_config is tampered: the next start refuses, setup commands too`, async () => {
      await bootstrapAdmin(t);
      const value = 'bootstrap_completed_at' in edit ? { bootstrap_completed_at: t.backend.db.dialect.time(new Date(edit.bootstrap_completed_at)) } : edit;
      await t.backend.db.knex('server_config').update(value);
      expect((await t.backend.setup.status()).state).to.equal('tampered');
      const err = await rejectionOf(restart(t));
      expect(err).to.be.instanceOf(BootError);
      expect((err as BootError).problems.join('\n')).to.include('server_config failed its integrity check');
      expect(codeOf(await rejectionOf(t.backend.setup.bootstrap(new NostrKey().pubkey)))).to.equal('setup_tampered');
      expect(codeOf(await rejectionOf(t.backend.setup.reset(true)))).to.equal('setup_tampered');
    });
  }

  it('a latch sealed with another integrity secret is tampered too', async () => {
    await bootstrapAdmin(t);
    const other = await createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: t.databaseUrl, nodeEnv: 'test', logger: captureLogger(), schedulerEnabled: false, ...TEST_SECRETS, adminKeyIntegritySecret: 'another-integrity-secret-0123456789abcdef0123' });
    try {
      expect(await rejectionOf(other.start())).to.be.instanceOf(BootError);
    } finally {
      await other.close();
    }
    await restart(t);
  });
});
