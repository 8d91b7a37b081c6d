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

  it('scrubs each entry whose target is exactly user:<id> in place: hashes, links, the head and every other entry unchanged; the chain still verifies and grows', async () => {
    await append(
      { action: 'test.before', target: 'thing:1', details: { n: 1 } },
      { action: 'test.target', target: `user:${USER_ID}`, details: { n: 2 } },
      { action: 'test.bare', target: null, details: null },
      { action: 'test.again', target: `user:${USER_ID}`, details: { who: PUBKEY } },
      { action: 'test.after', target: 'thing:5', details: null },
    );
    const before = await rows();
    const headBefore = await head();
    t.clock.advance(60_000);
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
    // Nothing is re-sealed: every hash and link is the one written, and so is the head.
    expect(after.map(({ seq, prev_hash, row_hash }) => ({ seq, prev_hash, row_hash }))).to.deep.equal(before.map(({ seq, prev_hash, row_hash }) => ({ seq, prev_hash, row_hash })));
    expect(await head()).to.deep.equal(headBefore);
    const marks = (await knex()('admin_audit').select('seq', 'erased_at', 'erasure_mac').orderBy('seq')) as Array<{ seq: number; erased_at: unknown; erasure_mac: string | null }>;
    expect(marks.map((mark) => (mark.erased_at === null ? null : new Date(mark.erased_at as string).toISOString()))).to.deep.equal([null, t.clock.now().toISOString(), null, t.clock.now().toISOString(), null]);
    expect(marks.map((mark) => mark.erasure_mac === null)).to.deep.equal([true, false, true, false, true]);
    expect(await t.backend.setup.verifyAudit({ full: true })).to.deep.equal({ ok: true, entries: 5 });
    await append({ action: 'test.later', target: 'thing:6' });
    expect(await t.backend.setup.verifyAudit({ full: true })).to.deep.equal({ ok: true, entries: 6 });
    expect((await rows())[5]!.prev_hash).to.equal(after[4]!.row_hash);
    // Scrubbed entries no longer name the user: a second erasure of the same id finds nothing.
    expect(await redact(USER_ID)).to.deep.equal([]);
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

  it('an entry of the user’s altered since it was written is refused by name, and nothing is scrubbed', async () => {
    await append({ action: 'test.one', target: `user:${USER_ID}` }, { action: 'test.two', target: 'thing:2' }, { action: 'test.three', target: `user:${USER_ID}` });
    await knex()('admin_audit').where({ seq: 3 }).update({ action: 'test.edited' });
    const before = await rows();
    const headBefore = await head();
    let refused: Error | undefined;
    await redact(USER_ID).catch((err: Error) => {
      refused = err;
    });
    expect(refused?.message).to.equal('the audit entry 3 about this user was altered after it was written; nothing was scrubbed');
    expect(await rows()).to.deep.equal(before);
    expect(await head()).to.deep.equal(headBefore);
  });

  it('reads and writes only the user’s own entries: another entry altered does not stop the scrub, and verify still reports it', async () => {
    await append({ action: 'test.one', target: `user:${USER_ID}` }, { action: 'test.two', target: 'thing:2' });
    await knex()('admin_audit').where({ seq: 2 }).update({ action: 'test.edited' });
    expect(await redact(USER_ID)).to.have.length(1);
    expect(await t.backend.setup.verifyAudit({ full: true })).to.deep.equal({ ok: false, entries: 1, brokenAt: 2, reason: 'the entry was altered after it was written' });
  });

  it('an empty chain: nothing scrubbed and still no head', async () => {
    expect(await redact(USER_ID)).to.deep.equal([]);
    expect(await head()).to.equal(undefined);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 0 });
  });

  // A table lock exists on Postgres only (SQLite has one writer connection, so a second transaction cannot even start): this property is defined there.
  if (dialect === 'postgres')
  it('two scrubs at once queue on the table lock, and each scrubs only its own user’s entries (Postgres)', async function () {
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
    expect(await t.backend.setup.verifyAudit({ full: true })).to.deep.equal({ ok: true, entries: 4 });
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
