import { expect } from 'chai';
import type { Knex } from 'knex';
import { erasurePlugin } from '@wallet/erasure';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { cancellingTimeout, STATE_READ_BUDGET_MS } from '../../../packages/core/src/metrics/index.js';
import { premiumActive, UserRepository } from '../../../packages/core/src/users/index.js';
import { eachDialect, seedUser, useTestBackend } from '../../harness/index.js';
import { parseExposition, valueOf } from './exposition.js';

const waitingForLocks = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";

/** Queries of this database still waiting on a lock, polled for up to 2 s until there are none. */
async function queriesWaitingOnLocks(locker: Knex.Transaction): Promise<number> {
  let waiting = -1;
  for (let tries = 0; tries < 40 && waiting !== 0; tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    waiting = ((await locker.raw(waitingForLocks)) as { rows: Array<{ n: number }> }).rows[0]!.n;
  }
  return waiting;
}

eachDialect('metrics: database gauge reads are cancelled, and the premium count is the repository’s', (dialect) => {
  const t = useTestBackend(dialect, {
    // Premium off still registers its gauge.
    plugins: [premiumPlugin({})],
    settings: { metricsListen: '127.0.0.1:0' },
  });

  it('countPremiumActive counts premium_until strictly after now, the rule premiumActive states', async () => {
    const now = t.clock.now();
    const ends = [null, new Date(now.getTime() - 1), now, new Date(now.getTime() + 1), new Date(now.getTime() + 86_400_000)];
    for (const premiumUntil of ends) await seedUser(t.backend, { premiumUntil });
    const repo = new UserRepository(t.backend.db, t.clock);
    expect(await repo.countPremiumActive(now)).to.equal(2);
    expect(await repo.countPremiumActive(now, { timeoutMs: STATE_READ_BUDGET_MS })).to.equal(2);
    expect(ends.filter((until) => premiumActive(until, now))).to.have.length(2);
    const samples = parseExposition(await t.backend.metrics!.render());
    expect(valueOf(samples, 'wallet_premium_active_users')).to.equal(2);
    expect(valueOf(samples, 'wallet_users')).to.equal(ends.length);
  });

  it('cancellingTimeout sets a cancelling timeout where the driver can cancel (Postgres) and leaves SQLite queries alone', () => {
    const query = cancellingTimeout(t.backend.db.knex('users').count({ n: '*' }), 1_234) as unknown as { _timeout?: number; _cancelOnTimeout?: boolean };
    expect([query._timeout, query._cancelOnTimeout]).to.deep.equal(dialect === 'postgres' ? [1_234, true] : [undefined, undefined]);
  });

  if (dialect === 'postgres') {
    it('a count that outlasts the budget is cancelled in Postgres, not left waiting with its connection', async function () {
      this.timeout(20_000);
      await seedUser(t.backend, { premiumUntil: new Date(t.clock.now().getTime() + 86_400_000) });
      const locker = await t.backend.db.knex.transaction();
      try {
        await locker.raw('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        const started = performance.now();
        const samples = parseExposition(await t.backend.metrics!.render());
        expect(performance.now() - started).to.be.lessThan(STATE_READ_BUDGET_MS + 1_500);
        expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_users' })).to.equal(1);
        expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_premium_active_users' })).to.equal(1);
        // The scrape gave up on the count; Postgres has stopped it too (no query still waits on the lock).
        expect(await queriesWaitingOnLocks(locker)).to.equal(0);
      } finally {
        await locker.rollback();
      }
      expect(valueOf(parseExposition(await t.backend.metrics!.render()), 'wallet_premium_active_users')).to.equal(1);
    });
  }
});

// Postgres only: SQLite cannot cancel a statement (the first suite shows it is left alone there).
describe('metrics: the plugins’ database gauges are cancelled too [postgres]', () => {
  // Off, both still register their gauges.
  const t = useTestBackend('postgres', { plugins: [tipsPlugin({}), erasurePlugin({})], settings: { metricsListen: '127.0.0.1:0' } });

  for (const [table, gauges] of [
    ['social_tips', ['wallet_tips']],
    ['erasure_requests', ['wallet_erasure_requests', 'wallet_erasure_requests_stuck']],
  ] as const) {
    it(`a read of ${table} that outlasts the budget is cancelled in Postgres, not left waiting (${gauges.join(', ')})`, async function () {
      this.timeout(20_000);
      const locker = await t.backend.db.knex.transaction();
      try {
        await locker.raw(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        const samples = parseExposition(await t.backend.metrics!.render());
        for (const gauge of gauges) expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge }), gauge).to.be.at.least(1);
        expect(await queriesWaitingOnLocks(locker)).to.equal(0);
      } finally {
        await locker.rollback();
      }
    });
  }
});
