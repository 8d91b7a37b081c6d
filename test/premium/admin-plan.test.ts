import { expect } from 'chai';
import type { Knex } from 'knex';
import { adminLogin, bootstrapAdmin, eachDialect, type DialectName } from '../harness/index.js';
import { usePremiumWorld } from './harness.js';

/**
 * The plan of one captured query. SQLite as it plans; Postgres with sequential scans, bitmap
 * scans and sorts priced out, since the tables are tiny: a plan that still sorts or scans the
 * table has no index that serves the query in order.
 */
async function planOf(dialect: DialectName, knex: Knex, query: { sql: string; bindings: readonly Knex.RawBinding[] }): Promise<string> {
  const sql = query.sql.replace(/\$\d+/g, '?');
  return knex.transaction(async (trx) => {
    if (dialect === 'postgres') {
      for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await trx.raw(`SET LOCAL ${setting} = off`);
      const result = (await trx.raw(`EXPLAIN ${sql}`, query.bindings)) as { rows: Array<Record<string, string>> };
      return result.rows.map((row) => row['QUERY PLAN']).join('\n');
    }
    const rows = (await trx.raw(`EXPLAIN QUERY PLAN ${sql}`, query.bindings)) as Array<{ detail: string }>;
    return rows.map((row) => row.detail).join('\n');
  });
}

eachDialect('premium: admin queries read indexes', (dialect) => {
  const w = usePremiumWorld(dialect);

  it('each list reads its index in order (the stuck list its own partial index), the cursor is a range of it, a user page reads the user index', async () => {
    const knex = w.t.backend.db.knex;
    const { nostr } = await bootstrapAdmin(w.t);
    const token = await adminLogin(w.t, nostr);
    const cursor = Buffer.from('1767225600000.abc').toString('base64url');
    const cases: Array<[string, string]> = [
      ['invoices?state=settled_unactivated', 'premium_invoices_stuck'],
      ['invoices?state=pending', 'premium_invoices_unsettled'],
      ['invoices?state=expired', 'premium_invoices_unsettled'],
      [`invoices?state=pending&after=${cursor}`, 'premium_invoices_unsettled'],
      ['invoices?state=activated', 'premium_invoices_created'],
      [`invoices?after=${cursor}`, 'premium_invoices_created'],
      [`users/${w.alice.userId}?after=${cursor}`, 'premium_invoices_user_created'],
    ];
    const captured: Array<{ sql: string; bindings: Knex.RawBinding[] }> = [];
    const listen = (query: { sql: string; bindings: Knex.RawBinding[] }) => void captured.push(query);
    knex.on('query', listen);
    try {
      for (const [path, index] of cases) {
        captured.length = 0;
        const res = await w.t.client.get(`/api/v1/admin/premium/${path}`, { token });
        expect(res.status, res.text).to.equal(200);
        // The page query: the last one that orders by created_at.
        const page = captured.filter((q) => q.sql.includes('premium_invoices') && /order by .created_at. desc/.test(q.sql)).at(-1)!;
        const plan = await planOf(dialect, knex, page);
        expect(plan, `${path}\n${plan}`).to.include(index);
        expect(plan, `${path}: no sort\n${plan}`).to.not.match(/TEMP B-TREE|Sort Key/);
        if (path.includes('after=')) expect(plan, `${path}: a range, not a filter\n${plan}`).to.match(dialect === 'postgres' ? /Index Cond: .*ROW\(created_at, \(?invoice_id\)?(::text)?\) < ROW\(/ : /\(created_at,invoice_id\)<\(\?,\?\)\)$/);
      }
    } finally {
      knex.off('query', listen);
    }
  });
});
