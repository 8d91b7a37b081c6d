import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { SetupLatch } from '../../../packages/core/src/admin/index.js';
import { createIntegrity } from '../../../packages/core/src/crypto/index.js';
import { eachDialect, TEST_SECRETS, useTestBackend } from '../../harness/index.js';

/** The documented latch seal, computed here: HMAC(secret, "server_config" ␟ "1" ␟ state ␟ completed-or-empty). */
const seal = (state: string, completed: string) =>
  createHmac('sha256', TEST_SECRETS.adminKeyIntegritySecret).update(['server_config', '1', state, completed].join('\u001f'), 'utf8').digest('hex');

eachDialect('admin: setup latch transitions', (dialect) => {
  const t = useTestBackend(dialect);
  const latch = () => new SetupLatch(t.backend.db, createIntegrity(TEST_SECRETS.adminKeyIntegritySecret), t.clock);
  const stored = async () => (await t.backend.db.knex('server_config').first()) as { setup_state: string; integrity_mac: string; bootstrap_completed_at: unknown };

  it('the adopted row carries the documented seal (known answer), and lock re-seals it with the completion time', async () => {
    expect(await stored()).to.include({ setup_state: 'uninitialized', integrity_mac: seal('uninitialized', '') });
    t.clock.advance(1_000);
    const completed = t.clock.now().toISOString();
    expect(await latch().lock(t.backend.db.knex)).to.equal(true);
    expect(await stored()).to.include({ setup_state: 'locked', integrity_mac: seal('locked', completed) });
  });

  it('lock happens once: a second lock answers false and leaves the row as it was', async () => {
    expect(await latch().lock(t.backend.db.knex)).to.equal(true);
    const before = await stored();
    t.clock.advance(60_000);
    expect(await latch().lock(t.backend.db.knex)).to.equal(false);
    expect(await stored()).to.deep.equal(before);
  });

  it('lock refuses a tampered row', async () => {
    await t.backend.db.knex('server_config').update({ integrity_mac: 'f'.repeat(64) });
    const before = await stored();
    expect(await latch().lock(t.backend.db.knex)).to.equal(false);
    expect(await stored()).to.deep.equal(before);
  });

  it('a state outside the enum is tampered even under a genuine seal', async () => {
    await t.backend.db.knex('server_config').update({ setup_state: 'open', integrity_mac: seal('open', '') });
    expect((await latch().state()).state).to.equal('tampered');
    // The control: the same kind of genuine seal over a real state is accepted.
    await t.backend.db.knex('server_config').update({ setup_state: 'uninitialized', integrity_mac: seal('uninitialized', '') });
    expect((await latch().state()).state).to.equal('uninitialized');
  });

  it('reset from a stale read of "locked" changes nothing when the row is no longer locked', async () => {
    // Simulates another process resetting between reset()'s read and its write: the read sees a
    // locked copy (a table made here), the row itself is already uninitialized again.
    await latch().lock(t.backend.db.knex);
    const locked = await stored();
    const knex = t.backend.db.knex;
    await knex.schema.createTable('server_config_stale', (table) => {
      table.integer('id').primary();
      table.string('setup_state');
      table.string('bootstrap_completed_at');
      table.string('integrity_mac');
    });
    await knex('server_config_stale').insert({ id: 1, ...locked, bootstrap_completed_at: locked.bootstrap_completed_at === null ? null : String(locked.bootstrap_completed_at instanceof Date ? locked.bootstrap_completed_at.toISOString() : locked.bootstrap_completed_at) });
    expect(await latch().reset(knex)).to.equal(true);
    const current = await stored();
    let reads = 0;
    const staleFirst = new Proxy(knex, {
      apply(target, thisArg, args: [string]) {
        reads += 1;
        return Reflect.apply(target, thisArg, reads === 1 ? ['server_config_stale'] : args);
      },
    }) as Knex;
    expect((await latch().state(staleFirst)).state).to.equal('locked');
    reads = 0;
    expect(await latch().reset(staleFirst)).to.equal(false);
    expect(await stored()).to.deep.equal(current);
  });

  it('reset of an uninitialized latch answers false', async () => {
    const before = await stored();
    expect(await latch().reset(t.backend.db.knex)).to.equal(false);
    expect(await stored()).to.deep.equal(before);
  });
});
