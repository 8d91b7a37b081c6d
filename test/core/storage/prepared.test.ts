import { expect } from 'chai';
import { PreparedStatement, PreparedTransitionThenInsert, type Knex } from '@wallet/backend-core';
import { eachDialect, statementsOf, useTestBackend } from '../../harness/index.js';

/** A scratch table: the statements below read and write it. */
const TABLE = 'prepared_items';

interface Item {
  id: number;
  label: string;
  state: string;
}

eachDialect('storage: prepared statements', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });
  const knex = () => t.backend.db.knex;
  let builds = 0;
  /** Items of one state with an id above a bound, in id order, at most 2 (a constant LIMIT). */
  const ITEMS = new PreparedStatement<{ state: string; after: number }>(`test_items_${dialect}`, (k, param) => {
    builds++;
    return k(TABLE).select('id', 'label', 'state').where({ state: param('state') }).where('id', '>', param('after')).orderBy('id').limit(2);
  });

  beforeEach(async () => {
    builds = 0;
    await knex().schema.createTable(TABLE, (table) => {
      table.integer('id').primary();
      table.string('label').notNullable();
      table.string('state').notNullable();
    });
    await knex()(TABLE).insert([
      { id: 1, label: 'a', state: 'open' },
      { id: 2, label: 'b', state: 'done' },
      { id: 3, label: 'c', state: 'open' },
      { id: 4, label: 'd', state: 'open' },
      { id: 5, label: "it's; -- e", state: 'open' },
    ]);
  });

  it('answers as the same knex query with those values, call after call, building its SQL once', async () => {
    for (const [state, after] of [['open', 0], ['open', 3], ['done', 0], ['none', 0], ['open', 5]] as const) {
      const expected = await knex()(TABLE).select('id', 'label', 'state').where({ state }).where('id', '>', after).orderBy('id').limit(2);
      expect(await ITEMS.rows<Item>(knex(), { state, after }), `${state} after ${after}`).to.deep.equal(expected);
    }
    expect(await ITEMS.first<Item>(knex(), { state: 'open', after: 3 })).to.deep.equal({ id: 4, label: 'd', state: 'open' });
    expect(await ITEMS.first<Item>(knex(), { state: 'none', after: 0 })).to.equal(undefined);
    expect(builds, 'built once for this database').to.equal(1);
  });

  it('binds values, never splices them into the SQL: a quote or a marker-like string is data', async () => {
    expect(await ITEMS.rows<Item>(knex(), { state: "open' or '1'='1", after: 0 })).to.deep.equal([]);
    expect(await ITEMS.rows<Item>(knex(), { state: 'wallet-param:state', after: 0 }), 'the marker’s text without its NUL').to.deep.equal([]);
    const statements = await statementsOf(knex(), new RegExp(TABLE), () => ITEMS.rows(knex(), { state: 'open', after: 4 }));
    expect(statements, 'the query event fires as knex would fire it').to.have.length(1);
    expect(statements[0]!.sql).to.not.include('open');
    expect(statements[0]!.bindings).to.deep.equal(['open', 4, 2]);
  });

  it('inside a transaction it runs on the transaction: it sees the transaction’s own writes, and nothing after a rollback', async () => {
    const rollback = new Error('roll back');
    const seen = await knex()
      .transaction(async (trx) => {
        await trx(TABLE).insert({ id: 6, label: 'f', state: 'new' });
        const inside = await ITEMS.rows<Item>(trx, { state: 'new', after: 0 });
        // (SQLite's one connection is the transaction's until it ends: only Postgres can look from outside.)
        if (dialect === 'postgres') expect(await ITEMS.rows<Item>(knex(), { state: 'new', after: 0 }), 'not visible outside before commit').to.deep.equal([]);
        throw Object.assign(rollback, { inside });
      })
      .catch((err: { inside?: Item[] }) => err.inside);
    expect(seen).to.deep.equal([{ id: 6, label: 'f', state: 'new' }]);
    expect(await ITEMS.rows<Item>(knex(), { state: 'new', after: 0 })).to.deep.equal([]);
  });

  it('refuses to prepare a statement where knex did not bind a parameter as a value', async () => {
    const SPLICED = new PreparedStatement<{ state: string }>(`test_spliced_${dialect}`, (k, param) => k(TABLE).select('id').whereRaw(`state = '${param('state')}'`));
    const err = (await SPLICED.rows(knex(), { state: 'open' }).catch((e: unknown) => e)) as Error;
    expect(err.message).to.match(/parameter state is not bound as a value/);
  });

  it('refuses a call without a value for a parameter (knex refuses an undefined binding), touching nothing', async () => {
    const err = (await ITEMS.rows(knex(), { state: 'open' } as unknown as { state: string; after: number }).catch((e: unknown) => e)) as Error;
    expect(err.message).to.match(/no value for after/);
  });

  it('two statements given one name by mistake both work: the server-side name carries the SQL’s digest', async () => {
    const SAME_NAME = new PreparedStatement<{ id: number }>(`test_items_${dialect}`, (k, param) => k(TABLE).select('label').where({ id: param('id') }).first());
    for (let i = 0; i < 3; i++) {
      expect(await SAME_NAME.first(knex(), { id: 2 })).to.deep.equal({ label: 'b' });
      expect(await ITEMS.first<Item>(knex(), { state: 'done', after: 0 })).to.deep.equal({ id: 2, label: 'b', state: 'done' });
    }
  });

  it('a database error is the driver’s error, and the connection goes back to the pool', async () => {
    const BROKEN = new PreparedStatement<{ id: number }>(`test_broken_${dialect}`, (k, param) => k('no_such_table').select('id').where({ id: param('id') }));
    for (let i = 0; i < 12; i++) {
      const err = (await BROKEN.rows(knex(), { id: 1 }).catch((e: unknown) => e)) as Error & { code?: string };
      expect(err).to.be.instanceOf(Error);
      expect(err.code ?? err.message).to.match(dialect === 'postgres' ? /42P01/ : /SQLITE_ERROR|no such table/);
    }
    // More failures than the pool has connections: every one was released.
    expect(await ITEMS.first<Item>(knex(), { state: 'done', after: 0 })).to.deep.equal({ id: 2, label: 'b', state: 'done' });
  });

  if (dialect === 'postgres') {
    it('Postgres: a named prepared statement on the connection, planned once there', async () => {
      const single = t.backend.db.knex.client.config as Knex.Config;
      const { default: knexFactory } = await import('knex');
      const one = knexFactory({ ...single, pool: { min: 1, max: 1 } });
      try {
        await ITEMS.rows(one, { state: 'open', after: 0 });
        await ITEMS.rows(one, { state: 'open', after: 1 });
        const { rows } = (await one.raw('select name, statement from pg_prepared_statements')) as { rows: Array<{ name: string; statement: string }> };
        expect(rows.map((row) => row.name)).to.have.length(1);
        expect(rows[0]!.name).to.match(new RegExp(`^wallet:test_items_${dialect}:[0-9a-f]{12}$`));
        expect(rows[0]!.statement).to.match(/\$1/);
      } finally {
        await one.destroy();
      }
    });
  }

  it('a column added by a later migration (another replica, say) changes no prepared statement’s answer', async () => {
    expect(await ITEMS.first<Item>(knex(), { state: 'done', after: 0 })).to.deep.equal({ id: 2, label: 'b', state: 'done' });
    await knex().schema.alterTable(TABLE, (table) => table.string('added').nullable());
    for (let i = 0; i < 8; i++) expect(await ITEMS.first<Item>(knex(), { state: 'done', after: 0 })).to.deep.equal({ id: 2, label: 'b', state: 'done' });
  });

  describe('transition then insert', () => {
    const ADVANCE = new PreparedTransitionThenInsert<{ id: number; from: string; to: string; newId: number; label: string }>(
      `test_advance_${dialect}`,
      TABLE,
      (qb, param) => qb.where({ id: param('id'), state: param('from') }),
      (param) => ({ state: param('to') }),
      (param) => ({ id: param('newId'), label: param('label'), state: param('from') }),
      ['id', 'label', 'state'],
    );

    it('transitions the row and inserts its successor; a guard that no longer matches changes nothing', async () => {
      const moved = await ADVANCE.run<Item>(knex(), { id: 1, from: 'open', to: 'done', newId: 10, label: 'a2' });
      expect(moved).to.deep.equal({ id: 1, label: 'a', state: 'done' });
      expect(await knex()(TABLE).where({ id: 10 }).first()).to.deep.equal({ id: 10, label: 'a2', state: 'open' });
      expect(await ADVANCE.run<Item>(knex(), { id: 1, from: 'open', to: 'done', newId: 11, label: 'a3' })).to.equal(null);
      expect(await knex()(TABLE).where({ id: 11 }).first()).to.equal(undefined);
    });

    it('of 12 concurrent callers with one guard, exactly one transitions and only its successor exists', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => ADVANCE.run<Item>(knex(), { id: 3, from: 'open', to: 'done', newId: 100 + i, label: `r${i}` })));
      const winners = results.filter((row) => row !== null);
      expect(winners).to.have.length(1);
      const successors = await knex()(TABLE).where('id', '>=', 100);
      expect(successors).to.have.length(1);
    });
  });
});
