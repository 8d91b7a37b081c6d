import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, useTestBackend, type TestBackend } from '../../harness/index.js';

async function rows(t: TestBackend, table: string): Promise<Record<string, unknown>[]> {
  return t.backend.db.knex(table).select('*');
}

/** Every SQL statement the backend runs while `work` runs, bindings left out. */
async function statementsDuring(t: TestBackend, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql);
  t.backend.db.knex.on('query', listener);
  try {
    await work();
  } finally {
    t.backend.db.knex.removeListener('query', listener);
  }
  return seen;
}

eachDialect('identity: POST /auth/check-restore', (dialect) => {
  const t = useTestBackend(dialect, { settings: { restoreIpThreshold: 4, restoreFailThreshold: 3, restoreWindowSec: 600 } });
  const check = (body: Record<string, unknown>, headers: Record<string, string> = {}) => t.client.post('/api/v1/auth/check-restore', body, { headers });

  async function registered(seed: string): Promise<BtcKey> {
    const btc = new BtcKey();
    expect((await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: seed }))).status).to.equal(200);
    return btc;
  }

  it('answers exists/valid for known, mismatched and unknown seeds, and records each attempt hashed', async () => {
    const btc = await registered('00112233');
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: btc.pubkeyHash })).body).to.deep.equal({ exists: true, valid: true });
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: new BtcKey().pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
    expect((await check({ seed_fingerprint: '99999999' })).body).to.deep.equal({ exists: false, valid: false });
    const attempts = await rows(t, 'restore_attempts');
    expect(attempts.map((a) => a.outcome)).to.have.members(['valid', 'mismatch', 'unknown']);
    for (const attempt of attempts) {
      expect(attempt.ip_hash).to.match(/^[0-9a-f]{64}$/);
      expect(attempt.fingerprint).to.match(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(attempt)).to.not.match(/127\.0\.0\.1|00112233|99999999/);
    }
  });

  it('the known and unknown branches run the same statements', async () => {
    const btc = await registered('00112233');
    const known = await statementsDuring(t, () => check({ seed_fingerprint: '00112233', pubkey_hash: btc.pubkeyHash }));
    const unknown = await statementsDuring(t, () => check({ seed_fingerprint: '77777777', pubkey_hash: btc.pubkeyHash }));
    expect(known.length).to.be.greaterThan(2);
    expect(unknown).to.deep.equal(known);
  });

  it('the per-fingerprint failure governor trips 429 before any user lookup', async () => {
    await registered('00112233');
    for (let i = 0; i < 3; i++) expect((await check({ seed_fingerprint: '00112233', pubkey_hash: new BtcKey().pubkeyHash })).status).to.equal(200);
    let limited: { status: number; body: { error: { code: string } } } | undefined;
    const statements = await statementsDuring(t, async () => {
      limited = await check({ seed_fingerprint: '00112233' });
    });
    expect(limited!.status).to.equal(429);
    expect(limited!.body.error.code).to.equal('restore_limited');
    expect(statements.some((sql) => /from\s+["`]?users/i.test(sql))).to.equal(false);
    // Another fingerprint from the same IP is still answered (IP budget 4: 3 used + 1 limited).
    t.clock.advance(601_000);
    expect((await check({ seed_fingerprint: '00112233' })).status).to.equal(200);
  });

  it('the per-IP governor counts the real client IP; a forged X-Forwarded-For does not evade it', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await check({ seed_fingerprint: `1000000${i}` }, { 'x-forwarded-for': `203.0.113.${i}` });
      expect(res.status).to.equal(200);
    }
    const res = await check({ seed_fingerprint: '20000000' }, { 'x-forwarded-for': '198.51.100.7' });
    expect(res.status).to.equal(429);
    expect(res.body.error.code).to.equal('restore_limited');
    t.clock.advance(601_000);
    expect((await check({ seed_fingerprint: '20000000' })).status).to.equal(200);
  });

  it('a seed with several accounts: every key the seed really registered is valid, another key is not', async () => {
    // Two registrations on one seed without a rotation proof: two accounts (spec › rule 2).
    const older = await registered('00112233');
    t.clock.advance(1000);
    const newer = await registered('00112233');
    const users = await t.backend.db.knex('users').select('id');
    expect(users).to.have.length(2);
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: older.pubkeyHash })).body).to.deep.equal({ exists: true, valid: true });
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: newer.pubkeyHash.toUpperCase() })).body).to.deep.equal({ exists: true, valid: true });
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: new BtcKey().pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
    // A key registered under ANOTHER seed is not valid for this one (a fresh governor window first).
    t.clock.advance(601_000);
    const elsewhere = await registered('44556677');
    expect((await check({ seed_fingerprint: '00112233', pubkey_hash: elsewhere.pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
    expect((await check({ seed_fingerprint: '00112233' })).body).to.deep.equal({ exists: true, valid: false });
  });

  it('with several accounts on the seed, the known and unknown branches still run the same statements', async () => {
    const older = await registered('00112233');
    t.clock.advance(1000);
    await registered('00112233');
    const known = await statementsDuring(t, () => check({ seed_fingerprint: '00112233', pubkey_hash: older.pubkeyHash }));
    const unknown = await statementsDuring(t, () => check({ seed_fingerprint: '77777777', pubkey_hash: older.pubkeyHash }));
    expect(unknown).to.deep.equal(known);
  });

  it('restore_limited carries Retry-After: seconds until the failure governor lets the fingerprint in again', async () => {
    await registered('00112233');
    for (let i = 0; i < 3; i++) {
      expect((await check({ seed_fingerprint: '00112233', pubkey_hash: new BtcKey().pubkeyHash })).status).to.equal(200);
      t.clock.advance(100_000);
    }
    t.clock.advance(-50_000); // 250 s after the first failure
    const limited = await check({ seed_fingerprint: '00112233' });
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('restore_limited');
    // The oldest of the 3 counted failures leaves the 600 s window 350 s from now.
    expect(limited.headers.get('retry-after')).to.equal('350');
    t.clock.advance(350_000);
    expect((await check({ seed_fingerprint: '00112233' })).status).to.equal(200);
  });

  it('restore_limited carries Retry-After for the IP governor too, and an early retry pushes it out', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await check({ seed_fingerprint: `1000000${i}` })).status).to.equal(200);
      t.clock.advance(10_000);
    }
    const first = await check({ seed_fingerprint: '20000000' });
    expect(first.status).to.equal(429);
    // Attempts at 0, 10, 20, 30 s and this refused one at 40 s: the budget (4) is free again
    // once the attempt at 10 s leaves the 600 s window, 570 s from now.
    expect(first.headers.get('retry-after')).to.equal('570');
    t.clock.advance(569_000);
    const early = await check({ seed_fingerprint: '20000000' });
    expect(early.status).to.equal(429);
    // The refused retry counts too: now the attempt at 20 s is the one to wait for.
    expect(early.headers.get('retry-after')).to.equal('11');
    t.clock.advance(11_000);
    expect((await check({ seed_fingerprint: '20000000' })).status).to.equal(200);
  });

  it('restore attempts are swept after 7 days, login events after their retention', async () => {
    await registered('00112233');
    await check({ seed_fingerprint: '00112233' });
    t.clock.advance(7 * 86_400_000 - 1000);
    await t.backend.scheduler.runNow('core-identity.restore-attempt-retention');
    expect(await rows(t, 'restore_attempts')).to.have.length(1);
    t.clock.advance(2000);
    await t.backend.scheduler.runNow('core-identity.restore-attempt-retention');
    expect(await rows(t, 'restore_attempts')).to.have.length(0);
    expect(await rows(t, 'login_events')).to.have.length(1);
    t.clock.advance(90 * 86_400_000);
    await t.backend.scheduler.runNow('core-identity.login-event-retention');
    expect(await rows(t, 'login_events')).to.have.length(0);
  });
});
