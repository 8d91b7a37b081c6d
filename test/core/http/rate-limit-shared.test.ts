import { expect } from 'chai';
import { DatabaseRateLimitStore } from '../../../packages/core/src/http/index.js';
import { ManualClock } from '@wallet/backend-core/testing';
import { validateSettings } from '@wallet/backend-core';
import { createTestBackend, eachDialect, TEST_PUBLIC_API_URL, TEST_SECRETS, type TestBackend, type TestResponse } from '../../harness/index.js';

const MAX = 5;
const WINDOW_SEC = 60;
/** A JWT-shaped token no session has: logout answers 200 for it and changes nothing. */
const UNKNOWN_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.' + 'A'.repeat(43);

function logout(t: TestBackend): Promise<TestResponse> {
  return t.client.post('/api/v1/auth/logout', { refresh_token: UNKNOWN_TOKEN });
}

/**
 * Two "processes" behind one load balancer: separate backends (pools, stores, schedulers) on one
 * database, with one clock so the window boundaries are the same for both.
 */
async function pair(dialect: 'sqlite' | 'postgres', storage: 'memory' | 'database', clock: ManualClock): Promise<[TestBackend, TestBackend]> {
  const settings = { rateLimitMax: MAX, rateLimitWindowSec: WINDOW_SEC, rateLimitStorage: storage, clock } as const;
  const a = await createTestBackend(dialect, { settings });
  const b = await createTestBackend(dialect, { settings, databaseUrl: a.databaseUrl });
  return [a, b];
}

eachDialect('unauthenticated rate limiter shared through the database (RATE_LIMIT_STORAGE=database)', (dialect) => {
  const open: TestBackend[] = [];
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock('2026-03-01T12:00:00.000Z');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });

  async function backends(storage: 'memory' | 'database'): Promise<[TestBackend, TestBackend]> {
    const both = await pair(dialect, storage, clock);
    open.push(...both);
    return both;
  }

  it('one client spends one budget across two processes: the 6th request, on either, is 429', async () => {
    const [a, b] = await backends('database');
    const sent: number[] = [];
    for (let i = 0; i < MAX + 3; i++) sent.push((await logout(i % 2 === 0 ? a : b)).status);
    expect(sent).to.deep.equal([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = await logout(b);
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('rate_limited');
    expect(refused.headers.get('retry-after')).to.equal(String(WINDOW_SEC));
  });

  it('with the memory store each process counts alone (what the database store is for)', async () => {
    const [a, b] = await backends('memory');
    const sent: number[] = [];
    for (let i = 0; i < 2 * MAX; i++) sent.push((await logout(i % 2 === 0 ? a : b)).status);
    expect(sent).to.deep.equal(new Array(2 * MAX).fill(200));
    expect((await logout(a)).status).to.equal(429);
  });

  it('the window restarts at its end instant for both processes, not a millisecond before', async () => {
    const [a, b] = await backends('database');
    for (let i = 0; i < MAX; i++) expect((await logout(a)).status).to.equal(200);
    clock.advance(WINDOW_SEC * 1000 - 1);
    const late = await logout(b);
    expect(late.status).to.equal(429);
    expect(late.headers.get('retry-after')).to.equal('1');
    clock.advance(1);
    expect((await logout(b)).status).to.equal(200);
    // The new window counts from its own first hit: MAX - 1 more fit, on either process.
    for (let i = 1; i < MAX; i++) expect((await logout(i % 2 === 0 ? a : b)).status).to.equal(200);
    expect((await logout(a)).status).to.equal(429);
  });

  it('concurrent hits from two processes are each counted once (no lost update)', async function () {
    this.timeout(20_000);
    const [a, b] = await backends('database');
    const stores = [new DatabaseRateLimitStore(a.backend.db), new DatabaseRateLimitStore(b.backend.db)];
    const now = clock.now().getTime();
    // Warm both pools so the hits below really run side by side instead of queueing on connects.
    await Promise.all([a.backend.db.knex.raw('select 1'), b.backend.db.knex.raw('select 1')]);
    const spans: Array<{ start: number; end: number }> = [];
    const counts = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const start = performance.now();
        const { count, resetAtMs } = await stores[i % 2]!.hit('ip:race', WINDOW_SEC * 1000, now);
        spans.push({ start, end: performance.now() });
        expect(resetAtMs).to.equal(now + WINDOW_SEC * 1000);
        return count;
      }),
    );
    expect([...counts].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
    // The hits overlapped in time: some hit started before another had finished.
    const overlapping = spans.some((s, i) => spans.some((o, j) => i !== j && s.start < o.end && o.start < s.end));
    expect(overlapping, 'the concurrent hits never overlapped').to.equal(true);
  });

  it('stores only salted IP hashes, and the sweep deletes ended windows only', async () => {
    const [a, b] = await backends('database');
    await logout(a);
    const store = new DatabaseRateLimitStore(a.backend.db);
    await store.hit('ip:later', 2 * WINDOW_SEC * 1000, clock.now().getTime());
    const rows = await a.backend.db.knex('rate_limit_windows').select('limiter_key');
    expect(rows).to.have.length(2);
    for (const { limiter_key: key } of rows as Array<{ limiter_key: string }>) expect(key).to.not.include('127.0.0.1');

    clock.advance(WINDOW_SEC * 1000 - 1);
    expect(await b.backend.scheduler.runNow('core.rate-limit-sweep')).to.equal(true);
    expect(await a.backend.db.knex('rate_limit_windows').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 2);
    clock.advance(1);
    expect(await b.backend.scheduler.runNow('core.rate-limit-sweep')).to.equal(true);
    const left = (await a.backend.db.knex('rate_limit_windows').select('limiter_key')) as Array<{ limiter_key: string }>;
    expect(left.map((r) => r.limiter_key)).to.deep.equal(['ip:later']);
  });
});

describe('RATE_LIMIT_STORAGE setting', () => {
  const base = { publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: 'sqlite::memory:', ...TEST_SECRETS };

  it('defaults to memory and accepts database', () => {
    const byDefault = validateSettings(base);
    expect(byDefault.ok && byDefault.settings.rateLimitStorage).to.equal('memory');
    const shared = validateSettings({ ...base, rateLimitStorage: 'database' });
    expect(shared.ok && shared.settings.rateLimitStorage).to.equal('database');
  });

  it('refuses any other value, naming the environment variable', () => {
    const verdict = validateSettings({ ...base, rateLimitStorage: 'redis' as never });
    expect(verdict.ok).to.equal(false);
    expect(JSON.stringify(verdict)).to.include('RATE_LIMIT_STORAGE').and.to.include('must be memory or database');
  });
});
