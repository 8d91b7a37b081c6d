import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { cachePreparedStatements } from '../../../packages/core/src/storage/statement-cache.js';
import { createTestBackend } from '../../harness/index.js';

describe('storage: prepared statements reused per SQLite connection', () => {
  const open = () => new Database(join(mkdtempSync(join(tmpdir(), 'stmt-cache-')), 'db.sqlite'));

  it('hands back the same statement for the same SQL, and drops the least recently used past its size', () => {
    const db = cachePreparedStatements(open(), 2);
    const a = db.prepare('SELECT 1 AS a');
    expect(db.prepare('SELECT 1 AS a')).to.equal(a);
    const b = db.prepare('SELECT 2 AS b');
    expect(db.prepare('SELECT 1 AS a')).to.equal(a); // a is now the most recent
    db.prepare('SELECT 3 AS c'); // evicts b
    expect(db.prepare('SELECT 1 AS a')).to.equal(a);
    expect(db.prepare('SELECT 2 AS b')).to.not.equal(b);
    db.close();
  });

  it('a reused statement sees rows and columns added after it was first prepared (schema change)', () => {
    const db = cachePreparedStatements(open());
    db.prepare('CREATE TABLE t (x INTEGER)').run();
    db.prepare('INSERT INTO t (x) VALUES (?)').run(1);
    expect(db.prepare('SELECT * FROM t').all()).to.deep.equal([{ x: 1 }]);
    db.prepare('ALTER TABLE t ADD COLUMN y TEXT').run();
    db.prepare('INSERT INTO t (x, y) VALUES (?, ?)').run(2, 'two');
    expect(db.prepare('SELECT * FROM t').all()).to.deep.equal([
      { x: 1, y: null },
      { x: 2, y: 'two' },
    ]);
    db.close();
  });

  it("is on for the backend's SQLite connection, with bindings kept apart between uses", async () => {
    const t = await createTestBackend('sqlite');
    try {
      await t.backend.db.knex('users').insert([
        { id: '00000000-0000-4000-8000-000000000001', username: 'one', created_at: 1, updated_at: 1 },
        { id: '00000000-0000-4000-8000-000000000002', username: 'two', created_at: 1, updated_at: 1 },
      ]);
      const byName = async (username: string) => (await t.backend.db.knex('users').select('id').where({ username }).first())?.id;
      expect(await byName('one')).to.equal('00000000-0000-4000-8000-000000000001');
      expect(await byName('two')).to.equal('00000000-0000-4000-8000-000000000002');
      expect(await byName('three')).to.equal(undefined);
      const connection = (await t.backend.db.knex.client.acquireConnection()) as { prepare(sql: string): unknown };
      try {
        expect(connection.prepare('SELECT 1')).to.equal(connection.prepare('SELECT 1'));
      } finally {
        await t.backend.db.knex.client.releaseConnection(connection);
      }
    } finally {
      await t.close();
    }
  });
});
