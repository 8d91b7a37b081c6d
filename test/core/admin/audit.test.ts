import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { AuditVerdict } from '@wallet/backend-core';
import { auditProbe, eachDialect, useTestBackend, type TestBackend } from '../../harness/index.js';

const probe = auditProbe();

async function appendMany(t: TestBackend, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      t.backend.db.transaction((trx) =>
        probe.append(trx, { action: `test.step_${i}`, actorKind: 'admin', actorPubkey: 'AB'.repeat(32), target: `thing:${i}`, details: { i, note: 'ünïcode ✓' }, peerIp: '203.0.113.7' }),
      ),
    ),
  );
}

const broken = (verdict: AuditVerdict) => (verdict.ok ? null : { brokenAt: verdict.brokenAt, reason: verdict.reason });

eachDialect('admin: the hash-chained audit', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [probe.plugin] });
  const knex = () => t.backend.db.knex;

  it('twenty concurrent appends leave one gap-free, valid chain', async () => {
    await appendMany(t, 20);
    const rows = await knex()('admin_audit').orderBy('seq').select('seq', 'prev_hash', 'row_hash', 'actor_pubkey_prefix', 'peer_ip');
    expect(rows.map((row) => Number(row.seq))).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(rows[0]!.prev_hash).to.equal('0'.repeat(64));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).to.equal(rows[i - 1]!.row_hash);
    expect(rows[0]!.actor_pubkey_prefix).to.equal('ab'.repeat(8));
    expect(rows[0]!.peer_ip).to.equal('203.0.113.7');
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 20 });
  });

  it('an append rolls back with the work it records', async () => {
    await appendMany(t, 2);
    await t.backend.db
      .transaction(async (trx) => {
        await probe.append(trx, { action: 'test.doomed', actorKind: 'system' });
        throw new Error('the recorded work failed');
      })
      .catch(() => undefined);
    expect(Number((await knex()('admin_audit').count({ n: '*' }).first())!.n)).to.equal(2);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 2 });
    await appendMany(t, 1);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 3 });
  });

  it('an empty chain verifies', async () => {
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 0 });
  });

  it('an edited row is found at its seq, whichever field was edited', async () => {
    await appendMany(t, 6);
    for (const [column, value] of [
      ['details', JSON.stringify({ i: 99 })],
      ['action', 'test.innocent'],
      ['peer_ip', '198.51.100.1'],
      ['actor_pubkey_prefix', null],
    ] as const) {
      const original = (await knex()('admin_audit').where({ seq: 4 }).first())[column];
      await knex()('admin_audit').where({ seq: 4 }).update({ [column]: value });
      expect(broken(await t.backend.setup.verifyAudit()), column).to.deep.equal({ brokenAt: 4, reason: 'the entry was altered after it was written' });
      await knex()('admin_audit').where({ seq: 4 }).update({ [column]: original });
      expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
    }
  });

  it('a row rewritten with a plain sha256 "fix-up" of its hash does not verify: the hash is keyed', async () => {
    await appendMany(t, 4);
    const row = await knex()('admin_audit').where({ seq: 2 }).first();
    const forged = createHash('sha256').update(row.prev_hash + 'test.rewritten').digest('hex');
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.rewritten', row_hash: forged });
    await knex()('admin_audit').where({ seq: 3 }).update({ prev_hash: forged });
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ brokenAt: 2, reason: 'the entry was altered after it was written' });
  });

  it('a deleted middle row is reported by its seq', async () => {
    await appendMany(t, 5);
    await knex()('admin_audit').where({ seq: 3 }).delete();
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ brokenAt: 3, reason: 'entry 3 is missing (next is 4)' });
  });

  it('deleting the first row is reported at seq 1', async () => {
    await appendMany(t, 3);
    await knex()('admin_audit').where({ seq: 1 }).delete();
    expect(broken(await t.backend.setup.verifyAudit())?.brokenAt).to.equal(1);
  });

  it('deleted newest rows are caught by the sealed head', async () => {
    await appendMany(t, 5);
    await knex()('admin_audit').where('seq', '>', 3).delete();
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ brokenAt: 4, reason: 'entries 4..5 were deleted (the head says the chain ends at 5)' });
  });

  it('an edited or removed head is caught', async () => {
    await appendMany(t, 3);
    await knex()('admin_audit_head').update({ seq: 2 });
    expect(broken(await t.backend.setup.verifyAudit())?.reason).to.equal('the sealed chain head was altered');
    await knex()('admin_audit_head').delete();
    expect(broken(await t.backend.setup.verifyAudit())?.reason).to.equal('the sealed chain head is missing');
  });

  it('reordered rows (two seqs swapped) are caught at the first of them', async () => {
    await appendMany(t, 5);
    await t.backend.db.transaction(async (trx) => {
      await trx('admin_audit').where({ seq: 2 }).update({ seq: 1_000 });
      await trx('admin_audit').where({ seq: 4 }).update({ seq: 2 });
      await trx('admin_audit').where({ seq: 1_000 }).update({ seq: 4 });
    });
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ brokenAt: 2, reason: 'prev_hash does not match the previous entry' });
  });

  it('verify walks long chains in pages and reports progress', async () => {
    await t.backend.db.transaction(async (trx) => {
      for (let i = 0; i < 1_205; i++) await probe.append(trx, { action: 'test.bulk', actorKind: 'system', details: { i } });
    });
    const progress: number[] = [];
    expect(await t.backend.setup.verifyAudit({ onProgress: (n) => progress.push(n) })).to.deep.equal({ ok: true, entries: 1_205 });
    expect(progress).to.deep.equal([1_000, 1_205]);
    await knex()('admin_audit').where({ seq: 1_100 }).update({ target: 'edited' });
    expect(broken(await t.backend.setup.verifyAudit())?.brokenAt).to.equal(1_100);
  });
});
