import Database from 'better-sqlite3';
import { expect } from 'chai';
import { createTestBackend } from '../../harness/index.js';

/**
 * The settings core gives every SQLite connection (storage/connect.ts). Expected values are
 * SQLite's own encodings (sqlite.org/pragma.html): a negative cache_size is KiB, synchronous 1
 * is NORMAL. Postgres has no per-connection equivalent: its cache lives in its own server.
 */
describe('storage: SQLite connection settings', () => {
  it('better-sqlite3 on its own keeps a 16 MB page cache per connection (why core sets one)', () => {
    const db = new Database(':memory:');
    try {
      expect(db.pragma('cache_size', { simple: true })).to.equal(-16_000);
    } finally {
      db.close();
    }
  });

  it("the backend's connection: WAL, a 5 s busy timeout, foreign keys, synchronous NORMAL and a 2,000 KiB page cache", async () => {
    const t = await createTestBackend('sqlite');
    try {
      const connection = (await t.backend.db.knex.client.acquireConnection()) as Database.Database;
      try {
        const pragma = (name: string) => connection.pragma(name, { simple: true });
        expect({
          journal_mode: pragma('journal_mode'),
          busy_timeout: pragma('busy_timeout'),
          foreign_keys: pragma('foreign_keys'),
          synchronous: pragma('synchronous'),
          cache_size: pragma('cache_size'),
        }).to.deep.equal({ journal_mode: 'wal', busy_timeout: 5_000, foreign_keys: 1, synchronous: 1, cache_size: -2_000 });
      } finally {
        await t.backend.db.knex.client.releaseConnection(connection);
      }
    } finally {
      await t.close();
    }
  });
});
