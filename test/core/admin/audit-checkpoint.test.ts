import { createHash, createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { AuditVerdict, Knex } from '@wallet/backend-core';
import { AuditChain } from '../../../packages/core/src/admin/index.js';
import { createIntegrity } from '../../../packages/core/src/crypto/index.js';
import { auditProbe, eachDialect, TEST_SECRETS, useTestBackend } from '../../harness/index.js';

/**
 * Erasure seals and checkpoints of the audit chain (docs/admin.md › The audit chain): an erased
 * entry keeps its hash and is checked against the server's erasure seal; a verification resumes
 * after the newest sealed checkpoint. Known answers are computed here with node:crypto.
 */
const probe = auditProbe();
const USER_ID = '0d4c7a2e-5b1f-4e8a-9c3d-7f6e5a4b3c2d';
const EVERY = 3;

const broken = (verdict: AuditVerdict) => (verdict.ok ? null : { entries: verdict.entries, brokenAt: verdict.brokenAt, reason: verdict.reason });
const hmac = (fields: string[]) => createHmac('sha256', TEST_SECRETS.adminKeyIntegritySecret).update(fields.join('\u001f'), 'utf8').digest('hex');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

eachDialect('admin: audit erasure seals and checkpoints', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [probe.plugin] });
  const knex = () => t.backend.db.knex;
  /** A chain over the test backend's database that seals a checkpoint every EVERY entries. */
  const chain = () => new AuditChain(t.backend.db, createIntegrity(TEST_SECRETS.adminKeyIntegritySecret), t.clock, { checkpointEvery: EVERY });

  async function appendMany(count: number, target: (i: number) => string | null = (i) => `thing:${i}`): Promise<void> {
    for (let i = 1; i <= count; i++) {
      await t.backend.db.transaction((trx: Knex.Transaction) => probe.append(trx, { action: `test.step_${i}`, actorKind: 'admin', actorPubkey: 'cd'.repeat(32), target: target(i), details: { i }, peerIp: '198.51.100.4' }));
    }
  }
  const checkpoints = async () =>
    ((await knex()('admin_audit_checkpoint').orderBy('seq')) as Array<{ seq: number | string; row_hash: string; created_at: unknown; mac: string }>).map((row) => ({
      seq: Number(row.seq),
      row_hash: row.row_hash,
      created_at: new Date(row.created_at as string).toISOString(),
      mac: row.mac,
    }));
  const rowHash = async (seq: number) => ((await knex()('admin_audit').where({ seq }).first('row_hash')) as { row_hash: string }).row_hash;
  const from = async (verify: (onStart: (seq: number) => void) => Promise<AuditVerdict>) => {
    let start = -1;
    const verdict = await verify((seq) => (start = seq));
    return { start, verdict };
  };

  it('the erasure seal is the documented HMAC over the entry’s hash and what the entry holds now (known answer)', async () => {
    await appendMany(2, (i) => (i === 2 ? `user:${USER_ID}` : 'thing:1'));
    t.clock.advance(3_600_000);
    await t.backend.db.transaction((trx: Knex.Transaction) => chain().redact(trx, USER_ID));
    const row = (await knex()('admin_audit').where({ seq: 2 }).first()) as Record<string, unknown>;
    const createdAt = new Date(row.created_at as string).toISOString();
    const erasedAt = t.clock.now().toISOString();
    expect(new Date(row.erased_at as string).toISOString()).to.equal(erasedAt);
    const canonical = JSON.stringify([2, createdAt, 'test.step_2', 'admin', 'cdcdcdcdcdcdcdcd', '[erased]', { erased: true }, '198.51.100.4', erasedAt]);
    expect(row.erasure_mac).to.equal(hmac(['admin_audit_erased', row.row_hash as string, sha256(canonical)]));
  });

  it('an erased entry is still checked: its action, time, actor or erasure time altered, or a mark forged on another entry, breaks the chain there', async () => {
    await appendMany(4, (i) => (i === 2 ? `user:${USER_ID}` : `thing:${i}`));
    await t.backend.db.transaction((trx: Knex.Transaction) => chain().redact(trx, USER_ID));
    expect(await chain().verify({ full: true })).to.deep.equal({ ok: true, entries: 4 });
    const tamper = async (seq: number, change: Record<string, unknown>) => {
      const original = (await knex()('admin_audit').where({ seq }).first()) as Record<string, unknown>;
      await knex()('admin_audit').where({ seq }).update(change);
      const verdict = broken(await chain().verify({ full: true }));
      await knex()('admin_audit').where({ seq }).update(original);
      return verdict;
    };
    const erasedReason = 'the entry was altered after it was erased, or marked erased by someone other than the server';
    expect(await tamper(2, { action: 'test.other' })).to.deep.equal({ entries: 1, brokenAt: 2, reason: erasedReason });
    expect(await tamper(2, { actor_kind: 'cli' })).to.deep.equal({ entries: 1, brokenAt: 2, reason: erasedReason });
    expect(await tamper(2, { target: 'user:someone-else' })).to.deep.equal({ entries: 1, brokenAt: 2, reason: erasedReason });
    expect(await tamper(2, { erased_at: t.backend.db.dialect.time(new Date('2020-01-01T00:00:00Z')) })).to.deep.equal({ entries: 1, brokenAt: 2, reason: erasedReason });
    expect(await tamper(2, { erasure_mac: 'a'.repeat(64) })).to.deep.equal({ entries: 1, brokenAt: 2, reason: erasedReason });
    // Marking another entry erased to hide an edit needs the server's key.
    const seal = ((await knex()('admin_audit').where({ seq: 2 }).first('erasure_mac')) as { erasure_mac: string }).erasure_mac;
    expect(await tamper(3, { target: '[erased]', details: '{"erased":true}', erased_at: t.backend.db.dialect.time(t.clock.now()), erasure_mac: seal })).to.deep.equal({ entries: 2, brokenAt: 3, reason: erasedReason });
    expect(await tamper(3, { erasure_mac: seal })).to.deep.equal({ entries: 2, brokenAt: 3, reason: 'the entry carries an erasure seal but no erasure time' });
    expect(await chain().verify({ full: true })).to.deep.equal({ ok: true, entries: 4 });
  });

  it('a verification seals a checkpoint at each multiple it passes (known answer) and the next one resumes after the newest', async () => {
    await appendMany(7);
    expect(await from((onStart) => chain().verify({ onStart }))).to.deep.equal({ start: 0, verdict: { ok: true, entries: 7 } });
    const sealed = await checkpoints();
    expect(sealed.map((checkpoint) => checkpoint.seq)).to.deep.equal([3, 6]);
    for (const checkpoint of sealed) {
      expect(checkpoint.row_hash).to.equal(await rowHash(checkpoint.seq));
      expect(checkpoint.created_at).to.equal(t.clock.now().toISOString());
      expect(checkpoint.mac).to.equal(hmac(['admin_audit_checkpoint', String(checkpoint.seq), checkpoint.row_hash, checkpoint.created_at]));
    }
    await appendMany(2);
    const progress: number[] = [];
    expect(await from((onStart) => chain().verify({ onStart, onProgress: (n) => progress.push(n) }))).to.deep.equal({ start: 6, verdict: { ok: true, entries: 9 } });
    expect(progress).to.deep.equal([9]);
    expect((await checkpoints()).map((checkpoint) => checkpoint.seq)).to.deep.equal([3, 6, 9]);
    // A second pass over sealed seqs writes nothing new (the first checkpoint stays).
    const before = await checkpoints();
    t.clock.advance(1_000);
    expect(await chain().verify({ full: true })).to.deep.equal({ ok: true, entries: 9 });
    expect(await checkpoints()).to.deep.equal(before);
  });

  it('resuming trusts what the checkpoint sealed: an edit before it is found by a full walk only; an edit after it, or of the entry it names, is found either way', async () => {
    await appendMany(7);
    await chain().verify();
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.edited' });
    expect(await chain().verify()).to.deep.equal({ ok: true, entries: 7 });
    expect(broken(await chain().verify({ full: true }))).to.deep.equal({ entries: 1, brokenAt: 2, reason: 'the entry was altered after it was written' });
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.step_2' });
    await knex()('admin_audit').where({ seq: 7 }).update({ action: 'test.edited' });
    expect(broken(await chain().verify())).to.deep.equal({ entries: 6, brokenAt: 7, reason: 'the entry was altered after it was written' });
    await knex()('admin_audit').where({ seq: 7 }).update({ action: 'test.step_7' });
    await knex()('admin_audit').where({ seq: 6 }).update({ action: 'test.edited' });
    expect(broken(await chain().verify())).to.deep.equal({ entries: 0, brokenAt: 6, reason: 'entry 6 was altered after it was written' });
  });

  it('a checkpoint altered, or whose entry is gone or replaced, breaks an incremental verification; a full one ignores checkpoints', async () => {
    await appendMany(7);
    await chain().verify();
    const [, newest] = await checkpoints();
    await knex()('admin_audit_checkpoint').where({ seq: 6 }).update({ row_hash: await rowHash(5) });
    expect(broken(await chain().verify())).to.deep.equal({ entries: 0, brokenAt: 6, reason: 'the checkpoint at entry 6 was altered (verify with full to walk the chain from its start)' });
    expect(await chain().verify({ full: true })).to.deep.equal({ ok: true, entries: 7 });
    await knex()('admin_audit_checkpoint').where({ seq: 6 }).update({ row_hash: newest!.row_hash });
    // A forged later checkpoint (no key) is refused, not trusted.
    await knex()('admin_audit_checkpoint').insert({ seq: 7, row_hash: await rowHash(7), created_at: t.backend.db.dialect.time(t.clock.now()), mac: newest!.mac });
    expect(broken(await chain().verify())).to.deep.equal({ entries: 0, brokenAt: 7, reason: 'the checkpoint at entry 7 was altered (verify with full to walk the chain from its start)' });
    await knex()('admin_audit_checkpoint').where({ seq: 7 }).delete();
    const entry6 = (await knex()('admin_audit').where({ seq: 6 }).first()) as Record<string, unknown>;
    await knex()('admin_audit').where({ seq: 6 }).update({ row_hash: 'e'.repeat(64) });
    expect(broken(await chain().verify())).to.deep.equal({ entries: 0, brokenAt: 6, reason: 'entry 6 is not the one the checkpoint sealed' });
    await knex()('admin_audit').where({ seq: 6 }).delete();
    expect(broken(await chain().verify())).to.deep.equal({ entries: 0, brokenAt: 6, reason: 'entry 6, which the checkpoint sealed, is missing' });
    await knex()('admin_audit').insert(entry6);
    expect(await chain().verify()).to.deep.equal({ ok: true, entries: 7 });
  });

  it('a walk that breaks seals no checkpoint past the break; an erasure before a checkpoint leaves it valid', async () => {
    await appendMany(7, (i) => (i === 2 ? `user:${USER_ID}` : `thing:${i}`));
    await knex()('admin_audit').where({ seq: 5 }).update({ action: 'test.edited' });
    expect(broken(await chain().verify())?.brokenAt).to.equal(5);
    expect((await checkpoints()).map((checkpoint) => checkpoint.seq)).to.deep.equal([3]);
    await knex()('admin_audit').where({ seq: 5 }).update({ action: 'test.step_5' });
    expect(await chain().verify()).to.deep.equal({ ok: true, entries: 7 });
    await t.backend.db.transaction((trx: Knex.Transaction) => chain().redact(trx, USER_ID));
    expect(await from((onStart) => chain().verify({ onStart }))).to.deep.equal({ start: 6, verdict: { ok: true, entries: 7 } });
    expect(await chain().verify({ full: true })).to.deep.equal({ ok: true, entries: 7 });
  });

});
