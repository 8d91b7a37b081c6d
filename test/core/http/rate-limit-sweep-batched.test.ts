import { expect } from 'chai';
import { DatabaseRateLimitStore } from '../../../packages/core/src/http/index.js';
import { deletesOf, eachDialect, useTestBackend } from '../../harness/index.js';

/** The database rate-limit store's sweep on more ended windows than one statement deletes (issue 35 item 3). */
eachDialect('rate limit: the database store sweep deletes in batches', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });

  it('deletes every window that ended at or before now over several statements and returns the total; open windows stay', async () => {
    const { knex, dialect: d } = t.backend.db;
    const nowMs = t.clock.now().getTime();
    const size = d.deleteBatchSize;
    const ended = 2 * size + 3;
    const rows = [
      // ended-0 ends exactly now: swept.
      ...Array.from({ length: ended }, (_, i) => ({ limiter_key: `ended-${i}`, window_ends_ms: nowMs - i, hits: 1 })),
      ...Array.from({ length: 2 }, (_, i) => ({ limiter_key: `open-${i}`, window_ends_ms: nowMs + 1 + i, hits: 1 })),
    ];
    for (let i = 0; i < rows.length; i += 200) await knex('rate_limit_windows').insert(rows.slice(i, i + 200));

    let removed = 0;
    const deletes = await deletesOf(knex, 'rate_limit_windows', async () => (removed = await new DatabaseRateLimitStore(t.backend.db).sweep(nowMs)));
    expect(removed).to.equal(ended);
    expect(deletes).to.equal(Math.floor(ended / size) + 1);
    const left = ((await knex('rate_limit_windows').select('limiter_key').orderBy('limiter_key')) as Array<{ limiter_key: string }>).map((row) => row.limiter_key);
    expect(left).to.deep.equal(['open-0', 'open-1']);
  });
});
