import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, seedUser, useTestBackend, type TestBackend, type TestResponse } from '../../harness/index.js';

/**
 * POST /auth/check-restore beyond the main suite (restore.test.ts): the seed fingerprint is
 * case-insensitive, each governor counts only its own attempts (the IP governor this client IP's,
 * the failure governor this fingerprint's `mismatch` and `unknown` outcomes), the refused attempt is
 * recorded as `limited`, Retry-After comes from the tripped governors alone with exact values,
 * and a count that changed between the governor's read and the Retry-After read (a sweep, a racer)
 * answers a whole window, never a 500.
 *
 * Every expected Retry-After is computed here from the clock moves the test made: a governor with
 * threshold N over a window W lets in again once its N-th newest counted attempt is W old.
 */

const WINDOW_SEC = 3600;
const SEC = 1000;

/** `settings` for a backend behind a trusted proxy on loopback, so X-Forwarded-For names the client. */
function governorSettings(ipThreshold: number, failThreshold: number) {
  return { restoreIpThreshold: ipThreshold, restoreFailThreshold: failThreshold, restoreWindowSec: WINDOW_SEC, trustedProxies: ['127.0.0.1'] };
}

function checker(t: TestBackend) {
  return (body: Record<string, unknown>, clientIp?: string): Promise<TestResponse> =>
    t.client.post('/api/v1/auth/check-restore', body, { headers: clientIp === undefined ? {} : { 'x-forwarded-for': clientIp } });
}

function expectLimited(res: TestResponse, retryAfterSec: number, what: string): void {
  expect(res.status, what).to.equal(429);
  expect(res.body.error.code, what).to.equal('restore_limited');
  expect(res.headers.get('retry-after'), what).to.equal(String(retryAfterSec));
}

async function registered(t: TestBackend, seed: string): Promise<BtcKey> {
  const btc = new BtcKey();
  const res = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: seed }));
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return btc;
}

eachDialect('identity: check-restore fingerprint and accounts', (dialect) => {
  const t = useTestBackend(dialect, { settings: governorSettings(100, 100) });
  const check = (body: Record<string, unknown>) => checker(t)(body);

  it('the seed fingerprint is matched case-insensitively: hex letters in lower and upper case find the account', async () => {
    const lower = await registered(t, 'a1b2c3d4e5f6');
    const mixed = await registered(t, 'ABCDEF0123');
    for (const seed of ['a1b2c3d4e5f6', 'A1B2C3D4E5F6', 'a1B2c3D4e5F6']) {
      expect((await check({ seed_fingerprint: seed, pubkey_hash: lower.pubkeyHash })).body, seed).to.deep.equal({ exists: true, valid: true });
      expect((await check({ seed_fingerprint: seed })).body, seed).to.deep.equal({ exists: true, valid: false });
    }
    for (const seed of ['abcdef0123', 'ABCDEF0123']) {
      expect((await check({ seed_fingerprint: seed, pubkey_hash: mixed.pubkeyHash })).body, seed).to.deep.equal({ exists: true, valid: true });
    }
    // Only the seeds registered: a fingerprint differing in one hex letter is unknown.
    expect((await check({ seed_fingerprint: 'A1B2C3D4E5F7' })).body).to.deep.equal({ exists: false, valid: false });
  });

  it('an account without a pubkey_hash (Nostr-registered) on the seed: exists, never valid', async () => {
    const btc = await registered(t, 'a1b2c3d4');
    const [extension] = await t.backend.db.knex('users').select('seed_fingerprint');
    const nostrOnly = await seedUser(t.backend, { nostrPubkey: 'ab'.repeat(32) });
    await t.backend.db.knex('users').where({ id: nostrOnly.id }).update({ seed_fingerprint: extension!.seed_fingerprint });
    expect(await t.backend.db.knex('users').where({ id: nostrOnly.id }).first('pubkey_hash')).to.deep.equal({ pubkey_hash: null });
    expect((await check({ seed_fingerprint: 'a1b2c3d4' })).body).to.deep.equal({ exists: true, valid: false });
    expect((await check({ seed_fingerprint: 'a1b2c3d4', pubkey_hash: new BtcKey().pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
    expect((await check({ seed_fingerprint: 'a1b2c3d4', pubkey_hash: btc.pubkeyHash })).body).to.deep.equal({ exists: true, valid: true });
    // With the extension account gone only the Nostr one carries the seed: still exists, not valid.
    await t.backend.db.knex('users').whereNot({ id: nostrOnly.id }).update({ seed_fingerprint: null });
    expect((await check({ seed_fingerprint: 'a1b2c3d4' })).body).to.deep.equal({ exists: true, valid: false });
    expect((await check({ seed_fingerprint: 'a1b2c3d4', pubkey_hash: btc.pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
  });
});

eachDialect('identity: check-restore per-IP governor', (dialect) => {
  const t = useTestBackend(dialect, { settings: governorSettings(3, 100) });
  const A = '203.0.113.10';
  const B = '203.0.113.20';

  it("other client IPs' attempts neither count toward this IP's governor nor shift its Retry-After", async () => {
    const check = checker(t);
    const t0 = t.clock.now().getTime();
    const at = (sec: number) => t.clock.set(new Date(t0 + sec * SEC));
    const ok = async (ip: string, seed: string) => expect((await check({ seed_fingerprint: seed }, ip)).status, `${ip} ${seed}`).to.equal(200);

    at(0);
    await ok(A, '10000001');
    at(100);
    await ok(A, '10000002');
    at(150);
    await ok(B, '10000003');
    at(200);
    await ok(B, '10000004');
    // A has 2 attempts in the window (4 in all): still let in.
    at(250);
    await ok(A, '10000005');
    at(300);
    await ok(B, '10000006');
    // A has 3 (0, 100, 250 s): refused, and the refusal at 400 s is recorded for A too. A's
    // 3rd newest attempt is the one at 100 s: free at 100 + 3600 s.
    at(400);
    expectLimited(await check({ seed_fingerprint: '10000007' }, A), 100 + WINDOW_SEC - 400, 'A at 400 s');
    // One second early: A's window (after 99 s) holds 100, 250, 400 s → refused again; this
    // refusal at 3699 s counts too, so the 3rd newest is now the one at 250 s.
    at(100 + WINDOW_SEC - 1);
    expectLimited(await check({ seed_fingerprint: '10000007' }, A), 250 + WINDOW_SEC - (100 + WINDOW_SEC - 1), 'A one second early');
    at(250 + WINDOW_SEC);
    await ok(A, '10000007');
  });
});

eachDialect('identity: check-restore per-fingerprint failure governor', (dialect) => {
  const t = useTestBackend(dialect, { settings: governorSettings(100, 3) });
  const X = 'aaaa0001'; // no account has these two
  const Y = 'bbbb0002';

  it("counts unknown outcomes, records the refusal as limited, and takes Retry-After from this fingerprint's failures alone", async () => {
    const check = checker(t);
    const t0 = t.clock.now().getTime();
    const at = (sec: number) => t.clock.set(new Date(t0 + sec * SEC));
    const unknown = async (seed: string) => expect((await check({ seed_fingerprint: seed })).body, seed).to.deep.equal({ exists: false, valid: false });

    at(0);
    await unknown(X);
    at(100);
    await unknown(X);
    at(250);
    await unknown(X);
    at(300);
    await unknown(Y);
    at(350);
    await unknown(Y);
    // X has 3 unknown outcomes: refused. Only the IP governor (budget 100) could have fired
    // otherwise, and it did not: Retry-After is the failure governor's, X's 3rd newest failure
    // (at 0 s) leaving the window.
    at(400);
    const before = await t.backend.db.knex('restore_attempts').count({ n: '*' }).first();
    expectLimited(await check({ seed_fingerprint: X }), WINDOW_SEC - 400, 'X at 400 s');
    const newest = await t.backend.db.knex('restore_attempts').select('outcome', 'fingerprint').orderBy([{ column: 'created_at', order: 'desc' }]).first();
    expect(newest!.outcome).to.equal('limited');
    const [xRow] = await t.backend.db.knex('restore_attempts').where({ outcome: 'unknown' }).orderBy('created_at').select('fingerprint');
    expect(newest!.fingerprint).to.equal(xRow!.fingerprint);
    expect(Number((await t.backend.db.knex('restore_attempts').count({ n: '*' }).first())!.n)).to.equal(Number(before!.n) + 1);
    // Y (2 failures) is still answered.
    await unknown(Y);
    // Refused attempts do not count for the failure governor: one second early, 1 s to wait.
    at(WINDOW_SEC - 1);
    expectLimited(await check({ seed_fingerprint: X }), 1, 'X one second early');
    at(WINDOW_SEC);
    await unknown(X);
  });

  it('counts mismatch outcomes too, with the same Retry-After', async () => {
    const check = checker(t);
    await registered(t, 'cccc0003');
    const t0 = t.clock.now().getTime();
    const at = (sec: number) => t.clock.set(new Date(t0 + sec * SEC));
    for (const sec of [10, 20, 30]) {
      at(sec);
      expect((await check({ seed_fingerprint: 'cccc0003', pubkey_hash: new BtcKey().pubkeyHash })).body).to.deep.equal({ exists: true, valid: false });
    }
    at(40);
    expectLimited(await check({ seed_fingerprint: 'cccc0003' }), 10 + WINDOW_SEC - 40, 'mismatches');
  });
});

eachDialect('identity: check-restore with both governors tripped', (dialect) => {
  const t = useTestBackend(dialect, { settings: governorSettings(3, 2) });

  it('Retry-After lets both in, and its reads fetch only created_at (never the other attempts\' hashes)', async () => {
    const check = checker(t);
    const t0 = t.clock.now().getTime();
    const at = (sec: number) => t.clock.set(new Date(t0 + sec * SEC));
    at(0);
    expect((await check({ seed_fingerprint: 'eeee0005' })).status).to.equal(200);
    at(50);
    expect((await check({ seed_fingerprint: 'ffff0006' })).status).to.equal(200);
    at(100);
    expect((await check({ seed_fingerprint: 'eeee0005' })).status).to.equal(200);
    // At 200 s: this IP has 3 attempts (0, 50, 100 s) and eeee0005 2 failures (0, 100 s). The IP
    // governor (with the refusal at 200 s) waits for the attempt at 50 s, the failure governor for
    // the one at 0 s: the later of the two.
    at(200);
    const seen: string[] = [];
    const listener = (query: { sql: string }) => seen.push(query.sql);
    t.backend.db.knex.on('query', listener);
    let limited: TestResponse;
    try {
      limited = await check({ seed_fingerprint: 'eeee0005' });
    } finally {
      t.backend.db.knex.removeListener('query', listener);
    }
    expectLimited(limited, Math.max(50, 0) + WINDOW_SEC - 200, 'both tripped');
    const ordered = seen.filter((sql) => /restore_attempts/i.test(sql) && /order by/i.test(sql));
    expect(ordered).to.have.length(2);
    for (const sql of ordered) expect(sql).to.match(/^select\s+["`]created_at["`]\s+from\s+["`]restore_attempts["`]/i);
  });
});

/**
 * Simulates the retention sweep (or a racer) running between the governor's count and the
 * Retry-After read: once the refused attempt is recorded, every other attempt is deleted.
 */
async function installSweepTrigger(t: TestBackend): Promise<() => Promise<void>> {
  const { knex } = t.backend.db;
  if (t.dialect === 'sqlite') {
    await knex.raw(
      "CREATE TRIGGER test_restore_sweep AFTER INSERT ON restore_attempts FOR EACH ROW WHEN NEW.outcome = 'limited' BEGIN DELETE FROM restore_attempts WHERE id <> NEW.id; END",
    );
    return async () => {
      await knex.raw('DROP TRIGGER test_restore_sweep');
    };
  }
  await knex.raw('CREATE FUNCTION test_restore_sweep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM restore_attempts WHERE id <> NEW.id; RETURN NULL; END $$');
  await knex.raw("CREATE TRIGGER test_restore_sweep AFTER INSERT ON restore_attempts FOR EACH ROW WHEN (NEW.outcome = 'limited') EXECUTE FUNCTION test_restore_sweep()");
  return async () => {
    await knex.raw('DROP TRIGGER test_restore_sweep ON restore_attempts');
    await knex.raw('DROP FUNCTION test_restore_sweep()');
  };
}

eachDialect('identity: check-restore when the attempts vanish between the two reads', (dialect) => {
  describe('IP governor', () => {
    const t = useTestBackend(dialect, { settings: governorSettings(3, 100) });

    it('answers 429 with a whole window, never a 500', async () => {
      const check = checker(t);
      for (let i = 0; i < 3; i++) {
        expect((await check({ seed_fingerprint: `1111000${i}` })).status).to.equal(200);
        t.clock.advance(100 * SEC);
      }
      const drop = await installSweepTrigger(t);
      try {
        expectLimited(await check({ seed_fingerprint: '22220000' }), WINDOW_SEC, 'swept');
        expect(await t.backend.db.knex('restore_attempts').select('outcome')).to.deep.equal([{ outcome: 'limited' }]);
      } finally {
        await drop();
      }
    });
  });

  describe('failure governor', () => {
    const t = useTestBackend(dialect, { settings: governorSettings(100, 3) });

    it('answers 429 with a whole window, never a 500', async () => {
      const check = checker(t);
      for (let i = 0; i < 3; i++) {
        expect((await check({ seed_fingerprint: 'dddd0004' })).status).to.equal(200);
        t.clock.advance(100 * SEC);
      }
      const drop = await installSweepTrigger(t);
      try {
        expectLimited(await check({ seed_fingerprint: 'dddd0004' }), WINDOW_SEC, 'swept');
      } finally {
        await drop();
      }
    });
  });
});
