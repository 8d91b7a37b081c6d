import { expect } from 'chai';
import { eachDialect, extensionWallet, useTestBackend } from '../../harness/index.js';

const DAY_MS = 86_400_000;

/** The identity plugin's retention tasks: what they delete, and the one log line each writes when it deleted something. */
eachDialect('identity: retention sweeps', (dialect) => {
  const t = useTestBackend(dialect);
  const linesOf = (msg: string) => t.logger.lines.filter((line) => line.msg === msg);
  const count = async (table: string) => Number(((await t.backend.db.knex(table).count({ n: '*' }).first()) as { n: unknown }).n);

  it('login events older than LOGIN_EVENT_RETENTION_DAYS are deleted and counted in one info line; a sweep that deletes nothing logs nothing', async () => {
    await extensionWallet(t);
    await extensionWallet(t);
    expect(await count('login_events')).to.equal(2);
    expect(await t.backend.scheduler.runNow('core-identity.login-event-retention')).to.equal(true);
    expect(linesOf('login events expired')).to.have.length(0);

    // Kept through the whole retention period (90 days by default), gone just after it.
    t.clock.advance(90 * DAY_MS);
    await t.backend.scheduler.runNow('core-identity.login-event-retention');
    expect(await count('login_events')).to.equal(2);
    t.clock.advance(1);
    expect(await t.backend.scheduler.runNow('core-identity.login-event-retention')).to.equal(true);
    expect(await count('login_events')).to.equal(0);
    const lines = linesOf('login events expired');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ level: 'info', removed: 2 });

    await t.backend.scheduler.runNow('core-identity.login-event-retention');
    expect(linesOf('login events expired')).to.have.length(1);
  });

  it('a login event keeps the account\'s peppered seed fingerprint', async () => {
    const { userId } = await extensionWallet(t);
    const user = (await t.backend.db.knex('users').where({ id: userId }).first()) as { seed_fingerprint: string };
    const event = (await t.backend.db.knex('login_events').where({ user_id: userId }).first()) as { fingerprint: string | null };
    expect(user.seed_fingerprint).to.be.a('string');
    expect(event.fingerprint).to.equal(user.seed_fingerprint);
  });

  it('restore attempts older than 7 days are deleted and counted in one info line; a sweep that deletes nothing logs nothing', async () => {
    expect((await t.client.post('/api/v1/auth/check-restore', { seed_fingerprint: 'aabbccdd' })).status).to.equal(200);
    expect(await count('restore_attempts')).to.equal(1);
    expect(await t.backend.scheduler.runNow('core-identity.restore-attempt-retention')).to.equal(true);
    expect(linesOf('restore attempts expired')).to.have.length(0);

    t.clock.advance(7 * DAY_MS + 1);
    expect(await t.backend.scheduler.runNow('core-identity.restore-attempt-retention')).to.equal(true);
    expect(await count('restore_attempts')).to.equal(0);
    const lines = linesOf('restore attempts expired');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ level: 'info', removed: 1 });

    await t.backend.scheduler.runNow('core-identity.restore-attempt-retention');
    expect(linesOf('restore attempts expired')).to.have.length(1);
  });
});
