import { expect } from 'chai';
import { readTime } from '@wallet/backend-core';
import { eachDialect, useTestBackend, type TestBackend } from '../../harness/index.js';

const SWEEP = 'core-challenges.expiry-sweep';

async function stored(t: TestBackend): Promise<string[]> {
  return (await t.backend.db.knex('challenges').select('nonce').orderBy('nonce')).map((row: { nonce: string }) => row.nonce);
}

async function isStored(t: TestBackend, nonce: string): Promise<boolean> {
  return (await stored(t)).includes(nonce);
}

eachDialect('challenges: single-use, purpose- and subject-bound nonces', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });

  it('issues 256-bit hex nonces that expire after the ttl (default from settings)', async () => {
    const now = t.clock.now().getTime();
    const a = await t.backend.challenges.issue('login', { subject: 'user-1', ttlSec: 60 });
    expect(a.nonce).to.match(/^[0-9a-f]{64}$/);
    expect(a).to.include({ purpose: 'login', subject: 'user-1' });
    expect(a.expiresAt.getTime()).to.equal(now + 60_000);

    const b = await t.backend.challenges.issue('login');
    expect(b.nonce).to.match(/^[0-9a-f]{64}$/);
    expect(b.nonce).to.not.equal(a.nonce);
    expect(b.subject).to.equal(null);
    expect(b.expiresAt.getTime()).to.equal(now + t.backend.settings.challengeTtlSec * 1000);

    const row = await t.backend.db.knex('challenges').where({ nonce: a.nonce }).first();
    expect(row).to.include({ purpose: 'login', subject: 'user-1' });
    expect(readTime(row.expires_at).getTime()).to.equal(now + 60_000);
    expect(readTime(row.created_at).getTime()).to.equal(now);
  });

  it('consumes once; a replay gets null', async () => {
    const issued = await t.backend.challenges.issue('login', { subject: 'user-1' });
    const consumed = await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-1' });
    expect(consumed).to.deep.equal(issued);
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-1' })).to.equal(null);
    expect(await isStored(t, issued.nonce)).to.equal(false);
  });

  it('a subject-less nonce is consumed without a subject', async () => {
    const issued = await t.backend.challenges.issue('register');
    expect(await t.backend.challenges.consume(issued.nonce, 'register', { subject: 'someone' })).to.equal(null);
    expect(await t.backend.challenges.consume(issued.nonce, 'register')).to.deep.equal(issued);
    expect(await t.backend.challenges.consume(issued.nonce, 'register')).to.equal(null);
  });

  it('a wrong purpose gets null and does not consume the nonce', async () => {
    const issued = await t.backend.challenges.issue('login', { subject: 'user-1' });
    for (const purpose of ['register', 'LOGIN', 'login ', '']) {
      expect(await t.backend.challenges.consume(issued.nonce, purpose, { subject: 'user-1' }), purpose).to.equal(null);
    }
    expect(await isStored(t, issued.nonce)).to.equal(true);
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-1' })).to.deep.equal(issued);
  });

  it('a wrong or missing subject gets null and does not consume the nonce', async () => {
    const issued = await t.backend.challenges.issue('login', { subject: 'user-1' });
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-2' })).to.equal(null);
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'USER-1' })).to.equal(null);
    expect(await t.backend.challenges.consume(issued.nonce, 'login')).to.equal(null);
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: null })).to.equal(null);
    expect(await isStored(t, issued.nonce)).to.equal(true);
    expect(await t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-1' })).to.deep.equal(issued);
  });

  it('an unknown or malformed nonce gets null', async () => {
    const issued = await t.backend.challenges.issue('login');
    for (const nonce of ['', '0'.repeat(64), issued.nonce.toUpperCase(), issued.nonce.slice(1), `${issued.nonce}' OR '1'='1`]) {
      expect(await t.backend.challenges.consume(nonce, 'login'), nonce).to.equal(null);
    }
    expect(await stored(t)).to.deep.equal([issued.nonce]);
  });

  it('is consumable until its expiry and not at or after it', async () => {
    const early = await t.backend.challenges.issue('login', { ttlSec: 60 });
    const late = await t.backend.challenges.issue('login', { ttlSec: 60 });
    t.clock.advance(59_999);
    expect(await t.backend.challenges.consume(early.nonce, 'login')).to.deep.equal(early);
    t.clock.advance(1);
    expect(await t.backend.challenges.consume(late.nonce, 'login')).to.equal(null);
    t.clock.advance(3_600_000);
    expect(await t.backend.challenges.consume(late.nonce, 'login')).to.equal(null);
    // Expired, not consumed: the row waits for the sweep.
    expect(await stored(t)).to.deep.equal([late.nonce]);
  });

  it(`of 100 concurrent consumes of one nonce exactly one wins`, async () => {
    const issued = await t.backend.challenges.issue('login', { subject: 'user-1' });
    const bystander = await t.backend.challenges.issue('login', { subject: 'user-1' });
    const results = await Promise.all(
      Array.from({ length: 100 }, () => t.backend.challenges.consume(issued.nonce, 'login', { subject: 'user-1' })),
    );
    const winners = results.filter((result) => result !== null);
    expect(winners).to.have.length(1);
    expect(winners[0]).to.deep.equal(issued);
    expect(results.filter((result) => result === null)).to.have.length(99);
    expect(await stored(t)).to.deep.equal([bystander.nonce]);
  });

  it('take burns a nonce of its purpose whatever its subject or expiry, once', async () => {
    const issued = await t.backend.challenges.issue('website-verify', { subject: 'example.com', ttlSec: 30 });
    t.clock.advance(3_600_000);
    expect(await t.backend.challenges.take(issued.nonce, 'login')).to.equal(null);
    expect(await t.backend.challenges.take(issued.nonce, 'website-verify')).to.deep.equal(issued);
    expect(await t.backend.challenges.take(issued.nonce, 'website-verify')).to.equal(null);
    expect(await stored(t)).to.deep.equal([]);

    const racing = await t.backend.challenges.issue('login');
    const results = await Promise.all(Array.from({ length: 50 }, () => t.backend.challenges.take(racing.nonce, 'login')));
    expect(results.filter((result) => result !== null)).to.have.length(1);
  });

  it('the scheduled expiry sweep deletes only expired challenges', async () => {
    const short = await t.backend.challenges.issue('login', { ttlSec: 30 });
    const edge = await t.backend.challenges.issue('login', { ttlSec: 60 });
    const long = await t.backend.challenges.issue('login', { ttlSec: 3_600 });
    t.clock.advance(60_000);

    expect(await t.backend.scheduler.runNow(SWEEP)).to.equal(true);
    // Expiry is exclusive for consume, so a challenge expiring exactly now is swept as well.
    expect(await stored(t)).to.deep.equal([long.nonce]);
    expect(await t.backend.challenges.consume(long.nonce, 'login')).to.deep.equal(long);
    const line = t.logger.lines.find((l) => l.msg === 'expired challenges removed');
    expect(line).to.include({ task: SWEEP, removed: 2 });
    for (const gone of [short, edge]) expect(await t.backend.challenges.take(gone.nonce, 'login')).to.equal(null);
  });

  it('a sweep with nothing expired deletes nothing and logs nothing', async () => {
    const issued = await t.backend.challenges.issue('login', { ttlSec: 60 });
    t.clock.advance(59_999);
    expect(await t.backend.scheduler.runNow(SWEEP)).to.equal(true);
    expect(await t.backend.challenges.sweepExpired(t.clock.now())).to.equal(0);
    expect(await stored(t)).to.deep.equal([issued.nonce]);
    expect(t.logger.lines.filter((l) => l.msg === 'expired challenges removed')).to.deep.equal([]);
    t.clock.advance(1);
    expect(await t.backend.challenges.sweepExpired(t.clock.now())).to.equal(1);
    expect(await stored(t)).to.deep.equal([]);
  });
});
