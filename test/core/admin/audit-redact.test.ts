import { expect } from 'chai';
import type { AuditInput, Knex, PluginContext, WalletPlugin } from '@wallet/backend-core';
import { eachDialect, useTestBackend, type TestBackend } from '../../harness/index.js';

/** The plugin context's audit (append and redact), captured at setup. */
function redactProbe(): { plugin: WalletPlugin; audit: () => PluginContext['audit'] } {
  let audit: PluginContext['audit'] | undefined;
  return {
    plugin: {
      name: 'redact-probe',
      setup(ctx) {
        audit = ctx.audit;
      },
    },
    audit: () => audit!,
  };
}

const probe = redactProbe();
const USER_ID = '6f1c2b9e-4a7d-4c1e-9b3a-0d2e5f8a7c61';
const PUBKEY = 'ab'.repeat(32);

interface RawRow {
  seq: number;
  action: string;
  target: string | null;
  details: string | null;
  prev_hash: string;
  row_hash: string;
}

eachDialect('admin: audit.redact (erasure scrub)', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [probe.plugin] });
  const knex = () => t.backend.db.knex;

  async function append(...entries: Array<Omit<AuditInput, 'actorKind'>>): Promise<void> {
    for (const entry of entries) await t.backend.db.transaction((trx) => probe.audit().append(trx, { actorKind: 'system', ...entry }));
  }
  const redact = (userId: string) => t.backend.db.transaction((trx) => probe.audit().redact(trx, userId));
  const rows = async (): Promise<RawRow[]> =>
    ((await knex()('admin_audit').select('seq', 'action', 'target', 'details', 'prev_hash', 'row_hash').orderBy('seq')) as RawRow[]).map((row) => ({ ...row, seq: Number(row.seq) }));
  const head = async () => {
    const row = await knex()('admin_audit_head').select('seq', 'row_hash', 'mac').first();
    return row === undefined ? undefined : { seq: Number(row.seq), row_hash: row.row_hash as string, mac: row.mac as string };
  };

  it('scrubs each entry whose target is exactly user:<id> and re-seals from the first of them; the chain still verifies and grows', async () => {
    await append(
      { action: 'test.before', target: 'thing:1', details: { n: 1 } },
      { action: 'test.target', target: `user:${USER_ID}`, details: { n: 2 } },
      { action: 'test.bare', target: null, details: null },
      { action: 'test.again', target: `user:${USER_ID}`, details: { who: PUBKEY } },
      { action: 'test.after', target: 'thing:5', details: null },
    );
    const before = await rows();
    expect(await redact(USER_ID)).to.deep.equal([
      { seq: 2, row_hash: before[1]!.row_hash },
      { seq: 4, row_hash: before[3]!.row_hash },
    ]);
    const after = await rows();
    expect(after.map(({ seq, action, target, details }) => [seq, action, target, details])).to.deep.equal([
      [1, 'test.before', 'thing:1', '{"n":1}'],
      [2, 'test.target', '[erased]', '{"erased":true}'],
      [3, 'test.bare', null, null],
      [4, 'test.again', '[erased]', '{"erased":true}'],
      [5, 'test.after', 'thing:5', null],
    ]);
    // The entry before the first scrubbed one is untouched; every one from it on is re-sealed and linked.
    expect(after[0]).to.deep.equal(before[0]);
    for (let i = 1; i < 5; i++) {
      expect(after[i]!.row_hash, `seq ${i + 1}`).to.not.equal(before[i]!.row_hash);
      expect(after[i]!.prev_hash, `seq ${i + 1}`).to.equal(after[i - 1]!.row_hash);
    }
    expect(await head()).to.include({ seq: 5, row_hash: after[4]!.row_hash });
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 5 });
    await append({ action: 'test.later', target: 'thing:6' });
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 6 });
    expect((await rows())[5]!.prev_hash).to.equal(after[4]!.row_hash);
  });

  it('text that merely contains the id, or the user’s key or name, is never scrubbed (no substring match a user could aim)', async () => {
    await append(
      { action: 'test.prefix', target: `user:${USER_ID}x` },
      { action: 'test.bare_id', target: USER_ID },
      { action: 'test.details', target: 'thing:3', details: { user: USER_ID, key: PUBKEY } },
      { action: 'test.other', target: `admin_key:${USER_ID}` },
    );
    const before = await rows();
    const headBefore = await head();
    expect(await redact(USER_ID)).to.deep.equal([]);
    expect(await rows()).to.deep.equal(before);
    expect(await head()).to.deep.equal(headBefore);
  });

  it('no entry about the user: nothing read or written, so even a broken chain is not refused', async () => {
    await append({ action: 'test.one', target: 'thing:1' }, { action: 'test.two', target: 'thing:2' });
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.edited' });
    const before = await rows();
    const headBefore = await head();
    expect(await redact(USER_ID)).to.deep.equal([]);
    expect(await rows()).to.deep.equal(before);
    expect(await head()).to.deep.equal(headBefore);
  });

  it('a chain that does not verify is refused with its first break, and nothing is scrubbed', async () => {
    await append({ action: 'test.one', target: `user:${USER_ID}` }, { action: 'test.two', target: 'thing:2' }, { action: 'test.three', target: `user:${USER_ID}` });
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.edited' });
    const before = await rows();
    const headBefore = await head();
    let refused: Error | undefined;
    await redact(USER_ID).catch((err: Error) => {
      refused = err;
    });
    expect(refused?.message).to.equal('the audit chain does not verify (entry 2: the entry was altered after it was written); nothing was scrubbed');
    expect(await rows()).to.deep.equal(before);
    expect(await head()).to.deep.equal(headBefore);
  });

  it('an empty chain: nothing scrubbed and still no head', async () => {
    expect(await redact(USER_ID)).to.deep.equal([]);
    expect(await head()).to.equal(undefined);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 0 });
  });

  // A table lock exists on Postgres only (SQLite has one writer connection, so a second transaction cannot even start): this property is defined there.
  if (dialect === 'postgres')
  it('two scrubs at once queue on the table lock: the second re-reads the first one’s re-sealed chain (Postgres)', async function () {
    const OTHER = 'c0ffee00-1111-4222-8333-444455556666';
    await append({ action: 'test.one', target: 'thing:1' }, { action: 'test.two', target: `user:${USER_ID}` }, { action: 'test.three', target: `user:${OTHER}` }, { action: 'test.four', target: 'thing:4' });
    const first: Knex.Transaction = await knex().transaction();
    let second: Promise<Array<{ seq: number; row_hash: string }>> | undefined;
    try {
      expect(await probe.audit().redact(first, USER_ID)).to.have.length(1);
      second = redact(OTHER);
      second.catch(() => undefined);
      await waitForLockWait(t);
      await first.commit();
    } finally {
      if (!first.isCompleted()) await first.rollback();
    }
    expect(await second).to.have.length(1);
    expect((await rows()).map((row) => [row.seq, row.target])).to.deep.equal([
      [1, 'thing:1'],
      [2, '[erased]'],
      [3, '[erased]'],
      [4, 'thing:4'],
    ]);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 4 });
  });
});

/** Waits (real time, up to 5 s) until some session of the test database waits for a lock. */
async function waitForLockWait(t: TestBackend): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const waiting = (await t.backend.db.knex.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) as { rows: Array<{ n: number }> };
    if (waiting.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no transaction waited for a lock');
}
