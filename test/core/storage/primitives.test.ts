import { expect } from 'chai';
import { consumeOne, insertOrNull, isUniqueViolation, transitionOne, transitionOneAndInsert, type Database, type Where } from '@wallet/backend-core';
import knexFactory from 'knex';
import { eachDialect, freshPostgresUrl, rejectionOf, useTestBackend, type DialectName } from '../../harness/index.js';

/** A scratch table for the races: `id` is the key, `winner` records which racer changed a row. */
const TABLE = 'race_items';
/**
 * Racers per race, and the pool size of the backend under test: on Postgres every racer holds
 * its own connection at the same time (a race queued behind a small pool is a sequence).
 */
const RACERS = 24;

// A type alias, not an interface, so that a RaceItem is also a `Record<string, unknown>` row.
type RaceItem = {
  id: number;
  status: string;
  version: number;
  winner: number | null;
  label: string | null;
};

/** The conditional primitives, either as exported functions (given the pool) or as bound on `db`. */
interface Primitives {
  consumeOne(where: Where): Promise<RaceItem | null>;
  transitionOne(where: Where, set: Record<string, unknown>): Promise<RaceItem | null>;
  transitionOneAndInsert(where: Where, set: Record<string, unknown>, row: RaceItem): Promise<RaceItem | null>;
  insertOrNull(row: Record<string, unknown>, conflictColumns: string[]): Promise<RaceItem | null>;
}

const FORMS: ReadonlyArray<{ label: string; of: (db: Database) => Primitives }> = [
  {
    label: 'exported',
    of: (db) => ({
      consumeOne: (where) => consumeOne<RaceItem>(db.knex, TABLE, where),
      transitionOne: (where, set) => transitionOne<RaceItem>(db.knex, TABLE, where, set),
      transitionOneAndInsert: (where, set, successor) => transitionOneAndInsert<RaceItem>(db.knex, TABLE, where, set, successor),
      insertOrNull: (row, columns) => insertOrNull<RaceItem>(db.knex, TABLE, row, columns),
    }),
  },
  {
    label: 'bound on backend.db',
    of: (db) => ({
      consumeOne: (where) => db.consumeOne<RaceItem>(TABLE, where),
      transitionOne: (where, set) => db.transitionOne<RaceItem>(TABLE, where, set),
      transitionOneAndInsert: (where, set, successor) => db.transitionOneAndInsert<RaceItem>(TABLE, where, set, successor),
      insertOrNull: (row, columns) => db.insertOrNull<RaceItem>(TABLE, row, columns),
    }),
  },
];

async function rows(db: Database): Promise<RaceItem[]> {
  return (await db.knex(TABLE).select('*').orderBy('id')) as RaceItem[];
}

function row(id: number, fields: Partial<RaceItem> = {}): RaceItem {
  return { id, status: 'pending', version: 1, winner: null, label: null, ...fields };
}

interface Window {
  connection: string;
  start: number;
  end: number;
}

/**
 * Fires `RACERS` calls at once and returns each racer's result, indexed by racer, after proving
 * they overlapped (issue 13 item 4: a cold pool handed out connections one by one while it
 * connected, so the "concurrent" calls mostly ran one after another and a read-then-delete
 * consumeOne passed). The pool is warmed to RACERS open connections first and the racers wait
 * behind one barrier. Then:
 *  - every call was made before any returned (max start < min end), on both dialects;
 *  - on Postgres, every racer ran its transaction (or lone statement) on its own connection and
 *    all of them were open at one instant: the last BEGIN went out before the first COMMIT;
 *  - on SQLite, all ran on the one writer connection: serialised by construction, which is why
 *    the read-then-delete interleaving is tested with a second connection in
 *    consume-interleaving.test.ts.
 */
async function race<T>(db: Database, dialect: DialectName, call: (racer: number) => Promise<T | null>): Promise<Array<T | null>> {
  if (dialect === 'postgres') {
    // Hold RACERS connections at once, then give them back: the pool then has that many open.
    // (Concurrent 50 ms sleeps were not enough where Postgres is slow to start a connection:
    // the sleeps ended on 14 connections while 10 were still being opened.)
    const client = db.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> };
    const held = await Promise.all(Array.from({ length: RACERS }, () => client.acquireConnection()));
    await Promise.all(held.map((connection) => client.releaseConnection(connection)));
  } else {
    await db.knex.raw('select 1');
  }

  // The database side, from knex's query events: one window per transaction (BEGIN … COMMIT
  // sent) or per lone statement (sent … answered), with the connection it ran on.
  const windows = new Map<string, Window>();
  const seen = (event: { __knexUid?: string; __knexTxId?: string; __knexQueryUid?: string }) => {
    const key = event.__knexTxId ?? event.__knexQueryUid;
    if (key === undefined || event.__knexUid === undefined) return;
    const now = performance.now();
    const window = windows.get(key);
    if (window === undefined) windows.set(key, { connection: event.__knexUid, start: now, end: now });
    else window.end = now;
  };
  const onQuery = (event: Parameters<typeof seen>[0]) => seen(event);
  const onAnswer = (_response: unknown, event: Parameters<typeof seen>[0]) => seen(event);
  db.knex.on('query', onQuery).on('query-response', onAnswer).on('query-error', onAnswer);

  let open!: () => void;
  const barrier = new Promise<void>((resolve) => (open = resolve));
  const starts: number[] = [];
  const ends: number[] = [];
  const racers = Array.from({ length: RACERS }, async (_, racer) => {
    await barrier;
    starts[racer] = performance.now();
    try {
      return await call(racer);
    } finally {
      ends[racer] = performance.now();
    }
  });
  open();
  let results: Array<T | null>;
  try {
    results = await Promise.all(racers);
  } finally {
    db.knex.off('query', onQuery).off('query-response', onAnswer).off('query-error', onAnswer);
  }

  expect(Math.max(...starts), 'the last call started before the first one returned').to.be.lessThan(Math.min(...ends));
  const traced = [...windows.values()];
  expect(traced, 'one transaction or statement per racer').to.have.length(RACERS);
  const connections = new Set(traced.map((w) => w.connection)).size;
  if (dialect === 'postgres') {
    expect(connections, 'every racer on its own connection').to.equal(RACERS);
    expect(Math.max(...traced.map((w) => w.start)), 'all racers inside the database at one instant').to.be.lessThan(Math.min(...traced.map((w) => w.end)));
  } else {
    expect(connections, "SQLite's single writer connection").to.equal(1);
  }
  return results;
}

function winnersOf<T>(results: Array<T | null>): number[] {
  return results.flatMap((result, racer) => (result === null ? [] : [racer]));
}

eachDialect('storage: conditional primitives', (dialect) => {
  const t = useTestBackend(dialect, { listen: false, settings: { databasePoolMax: RACERS } });

  beforeEach(async () => {
    await t.backend.db.knex.schema.createTable(TABLE, (table) => {
      table.integer('id').primary();
      table.string('status', 20).notNullable();
      table.integer('version').notNullable();
      table.integer('winner').nullable();
      table.string('label', 50).nullable().unique();
    });
  });

  for (const form of FORMS) {
    describe(`${form.label}`, () => {
      it(`consumeOne: of ${RACERS} concurrent deletes of one row exactly one gets it`, async () => {
        await t.backend.db.knex(TABLE).insert([row(1, { label: 'target' }), row(2, { label: 'bystander' })]);
        const p = form.of(t.backend.db);
        const results = await race(t.backend.db, dialect, () => p.consumeOne((qb) => qb.where({ id: 1 })));
        const winners = winnersOf(results);
        expect(winners).to.have.length(1);
        expect(results.filter((r) => r === null)).to.have.length(RACERS - 1);
        expect(results[winners[0]!]).to.deep.equal(row(1, { label: 'target' }));
        expect(await rows(t.backend.db)).to.deep.equal([row(2, { label: 'bystander' })]);
        // Gone means gone: a later caller gets null too.
        expect(await p.consumeOne((qb) => qb.where({ id: 1 }))).to.equal(null);
      });

      it(`transitionOne: of ${RACERS} concurrent guarded updates of one row exactly one wins`, async () => {
        await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
        const p = form.of(t.backend.db);
        const results = await race(t.backend.db, dialect, (racer) =>
          p.transitionOne((qb) => qb.where({ id: 1, status: 'pending', version: 1 }), { status: 'taken', version: 2, winner: racer }),
        );
        const winners = winnersOf(results);
        expect(winners).to.have.length(1);
        const winner = winners[0]!;
        expect(results.filter((r) => r === null)).to.have.length(RACERS - 1);
        expect(results[winner]).to.deep.equal(row(1, { status: 'taken', version: 2, winner }));
        expect(await rows(t.backend.db)).to.deep.equal([row(1, { status: 'taken', version: 2, winner }), row(2)]);
      });

      it(`transitionOneAndInsert: of ${RACERS} concurrent rotations of one row exactly one wins, and only its successor is stored`, async () => {
        await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
        const p = form.of(t.backend.db);
        // Every racer brings its own successor (its own key), as every refresh signs its own session.
        const results = await race(t.backend.db, dialect, (racer) =>
          p.transitionOneAndInsert((qb) => qb.where({ id: 1, status: 'pending' }), { status: 'retired', winner: racer }, row(100 + racer, { winner: racer })),
        );
        const winners = winnersOf(results);
        expect(winners).to.have.length(1);
        const winner = winners[0]!;
        expect(results[winner]).to.deep.equal(row(1, { status: 'retired', winner }));
        expect(await rows(t.backend.db)).to.deep.equal([row(1, { status: 'retired', winner }), row(2), row(100 + winner, { winner })]);
      });

      it(`insertOrNull: of ${RACERS} concurrent inserts of one key exactly one creates the row`, async () => {
        const p = form.of(t.backend.db);
        const results = await race(t.backend.db, dialect, (racer) => p.insertOrNull(row(7, { version: racer + 1, winner: racer }), ['id']));
        const winners = winnersOf(results);
        expect(winners).to.have.length(1);
        const winner = winners[0]!;
        expect(results.filter((r) => r === null)).to.have.length(RACERS - 1);
        expect(results[winner]).to.deep.equal(row(7, { version: winner + 1, winner }));
        expect(await rows(t.backend.db)).to.deep.equal([row(7, { version: winner + 1, winner })]);
        // An existing key: null, and the stored row is untouched.
        expect(await p.insertOrNull(row(7, { version: 999, winner: 999 }), ['id'])).to.equal(null);
        expect(await rows(t.backend.db)).to.deep.equal([row(7, { version: winner + 1, winner })]);
      });

      it('insertOrNull keyed on a unique non-key column', async () => {
        const p = form.of(t.backend.db);
        expect(await p.insertOrNull(row(1, { label: 'same' }), ['label'])).to.deep.equal(row(1, { label: 'same' }));
        expect(await p.insertOrNull(row(2, { label: 'same' }), ['label'])).to.equal(null);
        expect(await rows(t.backend.db)).to.deep.equal([row(1, { label: 'same' })]);
      });
    });
  }

  it('transitionOne whose guard does not match returns null and changes nothing', async () => {
    await t.backend.db.knex(TABLE).insert([row(1, { status: 'done', version: 3 }), row(2)]);
    const before = await rows(t.backend.db);
    for (const where of [
      (qb: Parameters<Where>[0]) => qb.where({ id: 1, status: 'pending' }),
      (qb: Parameters<Where>[0]) => qb.where({ id: 1, version: 2 }),
      (qb: Parameters<Where>[0]) => qb.where({ id: 99 }),
    ]) {
      expect(await t.backend.db.transitionOne(TABLE, where, { status: 'taken', winner: 1 })).to.equal(null);
      expect(await transitionOne(t.backend.db.knex, TABLE, where, { status: 'taken', winner: 1 })).to.equal(null);
    }
    expect(await rows(t.backend.db)).to.deep.equal(before);
  });

  it('transitionOne whose WHERE matches two rows throws (and a surrounding transaction rolls back)', async () => {
    await t.backend.db.knex(TABLE).insert([row(1), row(2), row(3, { status: 'done' })]);
    const before = await rows(t.backend.db);
    const err = await rejectionOf(
      t.backend.db.transaction((trx) => t.backend.db.transitionOne(TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'taken' }, trx)),
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.include(`${TABLE}: a conditional statement touched 2 rows`);
    expect(await rows(t.backend.db)).to.deep.equal(before);

    // The exported function refuses the same way.
    const direct = await rejectionOf(
      t.backend.db.transaction((trx) => transitionOne(trx, TABLE, (qb) => qb.where('id', '<', 3), { winner: 5 })),
    );
    expect((direct as Error).message).to.include('touched 2 rows');
    expect(await rows(t.backend.db)).to.deep.equal(before);
  });

  it('consumeOne whose WHERE matches two rows throws inside a transaction that then rolls back', async () => {
    await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
    const err = await rejectionOf(t.backend.db.transaction((trx) => t.backend.db.consumeOne(TABLE, (qb) => qb.where({ status: 'pending' }), trx)));
    expect((err as Error).message).to.include('touched 2 rows');
    expect(await rows(t.backend.db)).to.deep.equal([row(1), row(2)]);
  });

  it('a WHERE matching two rows changes nothing outside a transaction either (the primitive brings its own)', async () => {
    await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
    const before = await rows(t.backend.db);
    for (const attempt of [
      () => t.backend.db.transitionOne(TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'taken' }),
      () => transitionOne(t.backend.db.knex, TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'taken' }),
      () => t.backend.db.consumeOne(TABLE, (qb) => qb.where({ status: 'pending' })),
      () => consumeOne(t.backend.db.knex, TABLE, (qb) => qb.where({ status: 'pending' })),
    ]) {
      expect(((await rejectionOf(attempt())) as Error).message).to.include('touched 2 rows');
      expect(await rows(t.backend.db)).to.deep.equal(before);
    }
  });

  it('the primitives run on a given transaction executor and roll back with it', async () => {
    await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
    const err = await rejectionOf(
      t.backend.db.transaction(async (trx) => {
        expect(await t.backend.db.consumeOne(TABLE, (qb) => qb.where({ id: 1 }), trx)).to.deep.equal(row(1));
        expect(await t.backend.db.transitionOne(TABLE, (qb) => qb.where({ id: 2 }), { status: 'taken' }, trx)).to.include({ status: 'taken' });
        expect(await t.backend.db.insertOrNull(TABLE, row(3), ['id'], trx)).to.deep.equal(row(3));
        throw new Error('abort the transaction');
      }),
    );
    expect((err as Error).message).to.equal('abort the transaction');
    expect(await rows(t.backend.db)).to.deep.equal([row(1), row(2)]);
  });

  it('transitionOneAndInsert whose guard does not match returns null, inserts nothing and changes nothing', async () => {
    await t.backend.db.knex(TABLE).insert([row(1, { status: 'done' }), row(2)]);
    const before = await rows(t.backend.db);
    for (const where of [(qb: Parameters<Where>[0]) => qb.where({ id: 1, status: 'pending' }), (qb: Parameters<Where>[0]) => qb.where({ id: 99 })]) {
      expect(await t.backend.db.transitionOneAndInsert(TABLE, where, { status: 'retired' }, row(3))).to.equal(null);
      expect(await transitionOneAndInsert(t.backend.db.knex, TABLE, where, { status: 'retired' }, row(4))).to.equal(null);
    }
    expect(await rows(t.backend.db)).to.deep.equal(before);
  });

  it('transitionOneAndInsert whose WHERE matches two rows fails and changes nothing, alone or in a transaction', async () => {
    await t.backend.db.knex(TABLE).insert([row(1), row(2)]);
    const before = await rows(t.backend.db);
    for (const attempt of [
      () => t.backend.db.transitionOneAndInsert(TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'retired' }, row(3)),
      () => transitionOneAndInsert(t.backend.db.knex, TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'retired' }, row(3)),
      () => t.backend.db.transaction((trx) => t.backend.db.transitionOneAndInsert(TABLE, (qb) => qb.where({ status: 'pending' }), { status: 'retired' }, row(3), trx)),
    ]) {
      const err = await rejectionOf(attempt());
      // Postgres inserts the successor's key twice and the one statement fails on it; SQLite counts first.
      if (dialect === 'postgres') expect(isUniqueViolation(err), String(err)).to.equal(true);
      else expect((err as Error).message).to.include(`${TABLE}: a conditional statement touched 2 rows`);
      expect(await rows(t.backend.db)).to.deep.equal(before);
    }
  });

  it('transitionOneAndInsert runs on a given transaction and rolls back with it', async () => {
    await t.backend.db.knex(TABLE).insert([row(1)]);
    const err = await rejectionOf(
      t.backend.db.transaction(async (trx) => {
        expect(await t.backend.db.transitionOneAndInsert(TABLE, (qb) => qb.where({ id: 1 }), { status: 'retired' }, row(2), trx)).to.include({ status: 'retired' });
        expect(await trx(TABLE).count({ n: '*' })).to.deep.equal([{ n: dialect === 'postgres' ? '2' : 2 }]);
        throw new Error('abort the transaction');
      }),
    );
    expect((err as Error).message).to.equal('abort the transaction');
    expect(await rows(t.backend.db)).to.deep.equal([row(1)]);
  });

  it('transitionOneAndInsert is one statement on Postgres (no transaction round trips), a transaction of two on SQLite', async () => {
    await t.backend.db.knex(TABLE).insert([row(1)]);
    const sent: string[] = [];
    const onQuery = (event: { sql: string }) => sent.push(event.sql.trim().split(/\s+/)[0]!.toLowerCase());
    t.backend.db.knex.on('query', onQuery);
    try {
      expect(await t.backend.db.transitionOneAndInsert(TABLE, (qb) => qb.where({ id: 1 }), { status: 'retired' }, row(2))).to.include({ status: 'retired' });
    } finally {
      t.backend.db.knex.off('query', onQuery);
    }
    expect(sent).to.deep.equal(dialect === 'postgres' ? ['with'] : ['begin;', 'update', 'insert', 'commit;']);
    expect(await rows(t.backend.db)).to.deep.equal([row(1, { status: 'retired' }), row(2)]);
  });

  it('isUniqueViolation is true for a duplicate primary key and a duplicate unique column', async () => {
    await t.backend.db.knex(TABLE).insert(row(1, { label: 'taken' }));
    const duplicateKey = await rejectionOf(t.backend.db.knex(TABLE).insert(row(1)));
    expect(isUniqueViolation(duplicateKey), String(duplicateKey)).to.equal(true);
    const duplicateLabel = await rejectionOf(t.backend.db.knex(TABLE).insert(row(2, { label: 'taken' })));
    expect(isUniqueViolation(duplicateLabel), String(duplicateLabel)).to.equal(true);
    // Inside a transaction too, where the error surfaces through knex's transaction wrapper.
    const inTransaction = await rejectionOf(t.backend.db.transaction((trx) => trx(TABLE).insert(row(1))));
    expect(isUniqueViolation(inTransaction), String(inTransaction)).to.equal(true);
    expect(await rows(t.backend.db)).to.deep.equal([row(1, { label: 'taken' })]);
  });

  it('isUniqueViolation is false for other errors', async () => {
    const notNull = await rejectionOf(t.backend.db.knex(TABLE).insert({ id: 1, status: null, version: 1 }));
    expect(notNull, 'the NOT NULL insert failed').to.be.instanceOf(Error);
    expect(isUniqueViolation(notNull), String(notNull)).to.equal(false);
    const noTable = await rejectionOf(t.backend.db.knex('no_such_table').insert({ id: 1 }));
    expect(isUniqueViolation(noTable), String(noTable)).to.equal(false);
    const noColumn = await rejectionOf(t.backend.db.knex(TABLE).insert({ id: 1, status: 'x', version: 1, nope: 1 }));
    expect(isUniqueViolation(noColumn), String(noColumn)).to.equal(false);
    for (const value of [null, undefined, 'SQLITE_CONSTRAINT_UNIQUE', 23505, new Error('23505'), { code: 23505 }]) {
      expect(isUniqueViolation(value), String(value)).to.equal(false);
    }
    expect(await rows(t.backend.db)).to.deep.equal([]);
  });
});

describe('storage: conditional primitives on a host knex with a Postgres client alias', () => {
  for (const client of ['postgresql', 'postgres'] as const) {
    it(`consumeOne and transitionOne work on a knex built with client '${client}'`, async () => {
      const url = new URL(await freshPostgresUrl());
      const schema = url.searchParams.get('schema')!;
      url.searchParams.delete('schema');
      const knex = knexFactory({ client, connection: url.toString(), searchPath: [schema] });
      try {
        await knex.schema.createTable(TABLE, (table) => {
          table.integer('id').primary();
          table.string('status', 20).notNullable();
        });
        await knex(TABLE).insert([{ id: 1, status: 'pending' }, { id: 2, status: 'pending' }]);
        expect(await transitionOne(knex, TABLE, (qb) => qb.where({ id: 2, status: 'pending' }), { status: 'done' })).to.deep.equal({ id: 2, status: 'done' });
        expect(await consumeOne(knex, TABLE, (qb) => qb.where({ id: 1 }))).to.deep.equal({ id: 1, status: 'pending' });
        expect(await consumeOne(knex, TABLE, (qb) => qb.where({ id: 1 }))).to.equal(null);
      } finally {
        await knex.destroy();
      }
    });
  }
});
