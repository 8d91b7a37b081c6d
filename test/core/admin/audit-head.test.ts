import { createHash, createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { AuditVerdict } from '@wallet/backend-core';
import { AuditChain } from '../../../packages/core/src/admin/index.js';
import { createIntegrity } from '../../../packages/core/src/crypto/index.js';
import { auditProbe, eachDialect, TEST_SECRETS, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * The audit chain's seals as known answers, and the sealed head's last two checks: a head rolled
 * back to an older (genuine) state, and a head sealed over another newest entry.
 */
const probe = auditProbe();

async function appendOne(t: TestBackend, i: number, details?: Record<string, unknown>): Promise<void> {
  await t.backend.db.transaction((trx) =>
    probe.append(trx, { action: `test.step_${i}`, actorKind: 'admin', actorPubkey: 'AB'.repeat(32), target: `thing:${i}`, ...(details ? { details } : {}), peerIp: '203.0.113.7' }),
  );
}

const broken = (verdict: AuditVerdict) => (verdict.ok ? null : { entries: verdict.entries, brokenAt: verdict.brokenAt, reason: verdict.reason });
const hmac = (text: string) => createHmac('sha256', TEST_SECRETS.adminKeyIntegritySecret).update(text, 'utf8').digest('hex');

eachDialect('admin: the audit chain head and seals', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [probe.plugin] });
  const knex = () => t.backend.db.knex;
  const head = async () => (await knex()('admin_audit_head').first()) as { id: number; seq: number | string; row_hash: string; mac: string };

  it('row hashes and the head seal are the documented HMACs (known answers computed with node:crypto)', async () => {
    await appendOne(t, 1, { n: 1 });
    await appendOne(t, 2);
    const rows = (await knex()('admin_audit').orderBy('seq')) as Array<Record<string, unknown>>;
    let prev = '0'.repeat(64);
    for (const [i, row] of rows.entries()) {
      const details = i === 0 ? { n: 1 } : null;
      const canonical = JSON.stringify([i + 1, t.clock.now().toISOString(), `test.step_${i + 1}`, 'admin', 'abababababababab', `thing:${i + 1}`, details, '203.0.113.7']);
      const expected = hmac(['admin_audit', prev, createHash('sha256').update(canonical).digest('hex')].join('\u001f'));
      expect(row.row_hash, `row ${i + 1}`).to.equal(expected);
      expect(row.prev_hash).to.equal(prev);
      prev = expected;
    }
    const sealed = await head();
    expect(Number(sealed.seq)).to.equal(2);
    expect(sealed.row_hash).to.equal(prev);
    expect(sealed.mac).to.equal(hmac(['admin_audit_head', '2', prev].join('\u001f')));
  });

  it('an entry without details stores SQL NULL, not the text "null"', async () => {
    await appendOne(t, 1);
    const row = (await knex()('admin_audit').first()) as { details: unknown };
    expect(row.details).to.equal(null);
    const chain = new AuditChain(t.backend.db, createIntegrity(TEST_SECRETS.adminKeyIntegritySecret), t.clock);
    expect((await chain.list({ afterSeq: 0, limit: 10 }))[0]!.details).to.equal(null);
  });

  it('a head rolled back to an older genuine state: entries after it "were not appended by the server"', async () => {
    for (let i = 1; i <= 3; i++) await appendOne(t, i);
    const old = await head();
    await appendOne(t, 4);
    await appendOne(t, 5);
    await knex()('admin_audit_head').update({ seq: old.seq, row_hash: old.row_hash, mac: old.mac });
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({
      entries: 5,
      brokenAt: 4,
      reason: 'entries after 3 were not appended by the server (the head says the chain ends at 3)',
    });
  });

  it('a head sealed over another newest entry of the same seq is caught at that seq', async () => {
    for (let i = 1; i <= 3; i++) await appendOne(t, i);
    const old = await head();
    // Replace entry 3 by a genuine append of another entry 3: the chain verifies, the head moved on.
    await knex()('admin_audit').where({ seq: 3 }).delete();
    await appendOne(t, 33);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 3 });
    await knex()('admin_audit_head').update({ seq: old.seq, row_hash: old.row_hash, mac: old.mac });
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ entries: 3, brokenAt: 3, reason: 'the newest entry is not the one the head was sealed with' });
  });

  it('an altered head is reported just past the last entry checked', async () => {
    for (let i = 1; i <= 3; i++) await appendOne(t, i);
    await knex()('admin_audit_head').update({ mac: 'f'.repeat(64) });
    expect(broken(await t.backend.setup.verifyAudit())).to.deep.equal({ entries: 3, brokenAt: 4, reason: 'the sealed chain head was altered' });
  });
});
