import { expect } from 'chai';
import { eachDialect, useTestBackend, deletesOf } from '../../harness/index.js';

const SWEEP = 'core-challenges.expiry-sweep';


/** The challenge-expiry sweep on more expired challenges than one statement deletes (issue 35 item 3). */
eachDialect('challenges: the expiry sweep deletes in batches', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });

  it('deletes every expired challenge over several statements, keeps the live ones, and logs the total once', async () => {
    const { knex, dialect: d } = t.backend.db;
    const now = t.clock.now().getTime();
    const size = d.deleteBatchSize;
    const expired = 2 * size + 11;
    const challenge = (nonce: string, expiresInMs: number) => ({ nonce, purpose: 'login', subject: null, created_at: d.time(new Date(now - 60_000)), expires_at: d.time(new Date(now + expiresInMs)) });
    const rows = [
      // expired-0 expires exactly now: swept (expiry is exclusive for consume).
      ...Array.from({ length: expired }, (_, i) => challenge(`expired-${i}`, -i)),
      ...Array.from({ length: 6 }, (_, i) => challenge(`live-${i}`, 1 + i)),
    ];
    for (let i = 0; i < rows.length; i += 150) await knex('challenges').insert(rows.slice(i, i + 150));

    const deletes = await deletesOf(knex, 'challenges', () => t.backend.scheduler.runNow(SWEEP));
    expect(deletes).to.equal(Math.floor(expired / size) + 1);
    const left = ((await knex('challenges').select('nonce').orderBy('nonce')) as Array<{ nonce: string }>).map((row) => row.nonce);
    expect(left).to.deep.equal(['live-0', 'live-1', 'live-2', 'live-3', 'live-4', 'live-5']);
    const lines = t.logger.lines.filter((l) => l.msg === 'expired challenges removed');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ task: SWEEP, removed: expired });
  });
});
