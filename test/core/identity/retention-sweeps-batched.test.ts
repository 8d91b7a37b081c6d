import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from '@wallet/backend-core';
import { eachDialect, useTestBackend, deletesOf } from '../../harness/index.js';

const DAY_MS = 86_400_000;

/** Inserts `rows` in chunks (SQLite caps the bound parameters of one statement). */
async function insertAll(knex: Knex, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) await knex(table).insert(rows.slice(i, i + 200));
}

/**
 * The identity plugin's retention tasks on more rows than one statement deletes (issue 35 item
 * 3): every expired row goes, in batches of the dialect's size, the fresh ones stay, and the one
 * log line counts them all.
 */
eachDialect('identity: retention sweeps delete in batches', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });
  const count = async (table: string) => Number(((await t.backend.db.knex(table).count({ n: '*' }).first()) as { n: unknown }).n);
  const linesOf = (msg: string) => t.logger.lines.filter((line) => line.msg === msg);
  /** More than two batches, and not a multiple of the batch size. */
  const expiredCount = () => 2 * t.backend.db.dialect.deleteBatchSize + 37;
  const statementsFor = (rows: number) => Math.floor(rows / t.backend.db.dialect.deleteBatchSize) + 1;

  it('login events: every expired event is deleted over several statements, the fresh ones stay, one line counts them all', async () => {
    const { knex, dialect: d } = t.backend.db;
    const now = t.clock.now().getTime();
    const event = (ageMs: number) => ({ id: randomUUID(), user_id: null, platform: 'web', ip_hash: 'a'.repeat(64), fingerprint: null, created_at: d.time(new Date(now - ageMs)) });
    const expired = expiredCount();
    await insertAll(knex, 'login_events', [
      ...Array.from({ length: expired }, (_, i) => event(90 * DAY_MS + 1 + i)),
      ...Array.from({ length: 5 }, (_, i) => event(90 * DAY_MS - i)),
    ]);
    const deletes = await deletesOf(knex, 'login_events', () => t.backend.scheduler.runNow('core-identity.login-event-retention'));
    expect(deletes).to.equal(statementsFor(expired));
    expect(await count('login_events')).to.equal(5);
    expect(linesOf('login events expired')).to.have.length(1);
    expect(linesOf('login events expired')[0]).to.include({ level: 'info', removed: expired });
  });

  it('restore attempts: every attempt older than 7 days is deleted over several statements, one line counts them all', async () => {
    const { knex, dialect: d } = t.backend.db;
    const now = t.clock.now().getTime();
    const attempt = (ageMs: number) => ({ id: randomUUID(), ip_hash: 'b'.repeat(64), fingerprint: 'c'.repeat(64), outcome: 'valid', created_at: d.time(new Date(now - ageMs)) });
    const expired = expiredCount();
    await insertAll(knex, 'restore_attempts', [
      ...Array.from({ length: expired }, (_, i) => attempt(7 * DAY_MS + 1 + i)),
      ...Array.from({ length: 3 }, (_, i) => attempt(7 * DAY_MS - i)),
    ]);
    const deletes = await deletesOf(knex, 'restore_attempts', () => t.backend.scheduler.runNow('core-identity.restore-attempt-retention'));
    expect(deletes).to.equal(statementsFor(expired));
    expect(await count('restore_attempts')).to.equal(3);
    expect(linesOf('restore attempts expired')[0]).to.include({ level: 'info', removed: expired });
  });

  it('spent proofs: every proof expired at or before now is deleted over several statements, the live ones stay', async () => {
    const { knex, dialect: d } = t.backend.db;
    const now = t.clock.now().getTime();
    const proof = (key: string, expiresInMs: number) => ({ proof_key: key, expires_at: d.time(new Date(now + expiresInMs)) });
    const expired = expiredCount();
    await insertAll(knex, 'spent_proofs', [
      // spent-0 expires exactly now: swept with the others.
      ...Array.from({ length: expired }, (_, i) => proof(`spent-${i}`, -i)),
      ...Array.from({ length: 4 }, (_, i) => proof(`live-${i}`, 1 + i)),
    ]);
    const deletes = await deletesOf(knex, 'spent_proofs', () => t.backend.scheduler.runNow('core-identity.spent-proof-sweep'));
    expect(deletes).to.equal(statementsFor(expired));
    expect(((await knex('spent_proofs').select('proof_key').orderBy('proof_key')) as Array<{ proof_key: string }>).map((row) => row.proof_key)).to.deep.equal(['live-0', 'live-1', 'live-2', 'live-3']);
  });
});
