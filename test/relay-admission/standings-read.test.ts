import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { epochMsOf, whereAnyOf, type Knex } from '@wallet/backend-core/database';
import { Membership } from '../../packages/relay-admission/src/membership.js';
import { createTestBackend, eachDialect, expectPlan, statementsOf, type TestBackend } from '../harness/index.js';
import { STANDINGS_READ } from './world.js';

const pubkey = () => randomBytes(32).toString('hex');

async function insertUsers(t: TestBackend, rows: Array<{ nostr_pubkey: string; premium_until?: Date; suspended?: boolean }>): Promise<void> {
  const { time } = t.backend.db.dialect;
  const now = time(t.clock.now());
  const records = rows.map((row) => ({
    id: randomUUID(),
    nostr_pubkey: row.nostr_pubkey,
    premium_until: row.premium_until === undefined ? null : time(row.premium_until),
    suspended_at: row.suspended ? now : null,
    created_at: now,
    updated_at: now,
  }));
  await t.backend.db.knex.batchInsert('users', records, 200);
}

eachDialect('relay admission: reading standings from the users table', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect);
  });
  afterEach(async () => t?.close());

  it('reads any number of pubkeys in one statement with one parameter, by the nostr_pubkey index', async function () {
    this.timeout(60_000);
    const knex = t.backend.db.knex;
    const start = t.clock.now().getTime();
    // 20,000 users the read must not touch, and 300 it asks for: 100 premium, 20 suspended (nobody here).
    const others = Array.from({ length: 20_000 }, () => ({ nostr_pubkey: pubkey() }));
    const asked = Array.from({ length: 300 }, (_, i) => ({
      nostr_pubkey: pubkey(),
      ...(i < 100 ? { premium_until: new Date(start + (i + 1) * 60_000) } : {}),
      suspended: i >= 280,
    }));
    await insertUsers(t, [...others, ...asked]);
    if (dialect === 'postgres') await knex.raw('ANALYZE users');
    const strangers = Array.from({ length: 200 }, pubkey);
    const membership = new Membership(knex, () => start, 10_000);

    let standings = new Map<string, { registered: boolean; premiumUntil: number | null }>();
    const statements = await statementsOf(knex, STANDINGS_READ, async () => {
      standings = await membership.fetch([...asked.map((user) => user.nostr_pubkey), ...strangers]);
    });

    expect(statements, 'one statement').to.have.length(1);
    expect(statements[0]!.bindings, 'one parameter for 500 pubkeys').to.have.length(1);
    asked.forEach((user, i) => {
      const expected = user.suspended ? { registered: false, premiumUntil: null } : { registered: true, premiumUntil: i < 100 ? start + (i + 1) * 60_000 : null };
      expect(standings.get(user.nostr_pubkey), `asked user ${i}`).to.include(expected);
    });
    // The plans of a first sight (one pubkey) and of a small re-read. Postgres rightly scans the
    // whole table for a list that is a large share of it (500 of these 20,300 rows, or 25 of 3,300).
    for (const pubkeys of [[asked[0]!.nostr_pubkey], [...asked.slice(0, 20).map((user) => user.nostr_pubkey), ...strangers.slice(0, 5)]]) {
      const [read] = await statementsOf(knex, STANDINGS_READ, () => membership.fetch(pubkeys));
      await expectPlan(dialect, knex, read!, { table: 'users', index: 'users_nostr_pubkey_unique', returns: Math.min(pubkeys.length, 20) });
    }
  });

  it('epochMsOf reads a stored time as its Date’s getTime(), to the millisecond, before 1970 too; NULL as null', async () => {
    const knex: Knex = t.backend.db.knex;
    const times = ['1970-01-01T00:00:00.001Z', '1969-12-31T23:59:59.999Z', '2026-11-28T10:00:00.999Z', '2099-12-31T23:59:59.500Z', '2000-02-29T12:34:56.000Z'];
    const keys = times.map(() => pubkey());
    await insertUsers(t, [...times.map((iso, i) => ({ nostr_pubkey: keys[i]!, premium_until: new Date(iso) })), { nostr_pubkey: 'no premium' }]);
    const rows = (await knex('users').select('nostr_pubkey', epochMsOf(knex, 'premium_until', 'until_ms'))) as Array<{ nostr_pubkey: string; until_ms: unknown }>;
    const read = new Map(rows.map((row) => [row.nostr_pubkey, row.until_ms]));
    expect(keys.map((key) => read.get(key))).to.deep.equal(times.map((iso) => Date.parse(iso)));
    expect(read.get('no premium')).to.equal(null);
    if (dialect === 'postgres') {
      // Microseconds this code never writes, truncated to the millisecond as pg's Date parsing does; before 1970 too.
      await knex.raw("update users set premium_until = (case when nostr_pubkey = ? then '2026-11-28T10:00:00.999999Z' else '1969-12-31T23:59:59.998999Z' end)::timestamptz where nostr_pubkey in (?, ?)", [keys[0]!, keys[0]!, keys[1]!]);
      const [late, early] = (await Promise.all(
        [keys[0]!, keys[1]!].map((key) => knex('users').where({ nostr_pubkey: key }).first(epochMsOf(knex, 'premium_until', 'until_ms'))),
      )) as Array<{ until_ms: number }>;
      expect([late!.until_ms, early!.until_ms]).to.deep.equal([Date.parse('2026-11-28T10:00:00.999Z'), Date.parse('1969-12-31T23:59:59.998Z')]);
    }
  });

  it('whereAnyOf matches each value exactly, whatever characters it holds', async () => {
    const knex: Knex = t.backend.db.knex;
    // Characters that mean something in a Postgres array literal or in JSON, and near misses of them.
    const stored = ['a"b', '{x,y}', 'NULL', 'back\\slash', "it's", 'caf\u00e9', ' spaced ', 'a,b', '[1]'];
    await insertUsers(t, stored.map((value) => ({ nostr_pubkey: value })));
    const asked = ['a"b', '{x,y}', 'NULL', 'back\\slash', "it's", 'caf\u00e9', ' spaced ', 'a', 'b', 'x', 'null', 'spaced', '1'];
    const rows = (await whereAnyOf(knex('users').select('nostr_pubkey'), 'nostr_pubkey', asked)) as Array<{ nostr_pubkey: string }>;
    expect(rows.map((row) => row.nostr_pubkey).sort()).to.deep.equal(['a"b', '{x,y}', 'NULL', 'back\\slash', "it's", 'caf\u00e9', ' spaced '].sort());
    expect(await whereAnyOf(knex('users').select('nostr_pubkey'), 'nostr_pubkey', [])).to.deep.equal([]);
  });
});
