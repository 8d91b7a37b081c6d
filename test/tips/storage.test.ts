import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from '@wallet/backend-core';
import { tipsPlugin } from '@wallet/tips';
import { eachDialect, rejectionOf, seedUser, useTestBackend, type DialectName } from '../harness/index.js';
import { tipAddress } from './harness.js';

/**
 * The database's own rules for `social_tips` (packages/tips/src/migrations.ts), exercised with
 * raw statements that bypass the service: whatever code writes the table, the database refuses
 * a row that breaks them. Every row here is written out literally.
 */

const TABLE = 'social_tips';

const SECRET_HASH = 'a1'.repeat(32);
const CIPHERTEXT = 'c2VhbGVkLWNsYWltLWtleS1mb3ItdGhlLXJlY2lwaWVudA==';
const COMMITMENT = `09${'b2'.repeat(32)}`; // 66 hex
const FUNDING_TXID = 'f0'.repeat(32);
const FUNDING_TXID_2 = 'f1'.repeat(32);
const SWEEP_TXID = 'e0'.repeat(32);
const SWEEP_TXID_2 = 'e1'.repeat(32);
const CREATED = new Date('2026-02-03T04:05:06.789Z');

type Row = Record<string, unknown>;

interface ConstraintError {
  code?: string;
  constraint?: string;
  message?: string;
}

/** A CHECK violation on this dialect, naming the check (Postgres reports it in `constraint`, SQLite in the message). */
function expectCheckViolation(err: unknown, dialect: DialectName, name: string): void {
  const e = err as ConstraintError;
  if (dialect === 'postgres') {
    expect(e.code, e.message).to.equal('23514');
    expect(e.constraint, e.message).to.equal(name);
  } else {
    expect(e.code, e.message).to.equal('SQLITE_CONSTRAINT_CHECK');
    expect(e.message).to.include(`CHECK constraint failed: ${name}`);
  }
}

/** A write-once trigger's refusal on this dialect. */
function expectWriteOnceViolation(err: unknown, dialect: DialectName, column: string): void {
  const e = err as ConstraintError;
  expect(e.code, e.message).to.equal(dialect === 'postgres' ? '23514' : 'SQLITE_CONSTRAINT_TRIGGER');
  expect(e.message).to.include(`social_tips.${column} is write-once`);
}

eachDialect('tips: storage rules', (dialect) => {
  // Migrations run whether or not tips are on; no chain access is needed to touch the table.
  const t = useTestBackend(dialect, { plugins: [tipsPlugin()] });

  let sender: string;
  let recipient: string;
  beforeEach(async () => {
    sender = (await seedUser(t.backend, { username: `sender${randomUUID().slice(0, 6)}` })).id;
    recipient = (await seedUser(t.backend, { username: `recipient${randomUUID().slice(0, 6)}` })).id;
  });

  const knex = () => t.backend.db.knex;
  const bool = (value: boolean) => t.backend.db.dialect.bool(value);
  const time = (date: Date) => t.backend.db.dialect.time(date);

  /** A valid public btc draft; `fields` replace columns. */
  function publicRow(fields: Row = {}): Row {
    return {
      id: randomUUID(),
      sender_user_id: sender,
      recipient_user_id: null,
      recipient_erased: bool(false),
      is_public: bool(true),
      asset: 'btc',
      amount: '50000',
      status: 'draft',
      // One address per row: a funding output (address and txid) may back one tip only.
      tip_address: tipAddress('btc'),
      ciphertext: null,
      secret_hash: SECRET_HASH,
      grin_commitment: null,
      funding_txid: null,
      funding_tx_key: null,
      sweep_txid: null,
      created_at: time(CREATED),
      updated_at: time(CREATED),
      funded_at: null,
      settled_at: null,
      ...fields,
    };
  }

  /** A valid targeted btc tip awaiting confirmation; `fields` replace columns. */
  function targetedRow(fields: Row = {}): Row {
    return publicRow({ is_public: bool(false), recipient_user_id: recipient, ciphertext: CIPHERTEXT, secret_hash: null, status: 'pending_confirmation', funding_txid: FUNDING_TXID, ...fields });
  }

  const insert = (row: Row) => knex()(TABLE).insert(row);
  const stored = async (id: unknown) => (await knex()(TABLE).where({ id }).first()) as Row | undefined;
  const count = async () => Number(((await knex()(TABLE).count({ n: '*' }).first()) as { n: number | string }).n);

  /** The violating row is refused by check `name` and leaves nothing behind; the valid one is stored. */
  async function refusedThenAccepted(name: string, violating: Row, valid: Row) {
    const before = await count();
    expectCheckViolation(await rejectionOf(insert(violating)), dialect, name);
    expect(await count()).to.equal(before);
    await insert(valid);
    expect(await stored(valid.id)).to.not.equal(undefined);
  }

  describe('CHECK constraints', () => {
    it('a plain public draft and a plain targeted tip are stored (the baselines the cases below vary)', async () => {
      const pub = publicRow();
      const tgt = targetedRow();
      await insert(pub);
      await insert(tgt);
      expect(await stored(pub.id)).to.include({ asset: 'btc', status: 'draft', secret_hash: SECRET_HASH });
      expect(await stored(tgt.id)).to.include({ recipient_user_id: recipient, ciphertext: CIPHERTEXT });
    });

    it('social_tips_asset_known: an unknown asset is refused; each of the five assets is stored', async () => {
      await refusedThenAccepted('social_tips_asset_known', publicRow({ asset: 'doge' }), publicRow({ asset: 'ltc' }));
      await refusedThenAccepted('social_tips_asset_known', publicRow({ asset: 'BTC' }), publicRow({ asset: 'btc' }));
      await insert(publicRow({ asset: 'xmr' }));
      await insert(publicRow({ asset: 'wow' }));
      await insert(publicRow({ asset: 'grin', tip_address: null, grin_commitment: COMMITMENT }));
    });

    it('social_tips_status_known: an unknown status is refused; all eight are stored', async () => {
      await refusedThenAccepted('social_tips_status_known', publicRow({ status: 'paid' }), publicRow({ status: 'draft' }));
      await refusedThenAccepted('social_tips_status_known', publicRow({ status: 'Draft' }), publicRow({ status: 'cancelled' }));
      for (const status of ['pending_confirmation', 'pending', 'claiming', 'claimed', 'funding_mismatch', 'clawed_back']) {
        await insert(publicRow({ status, funding_txid: FUNDING_TXID }));
      }
      expect(await count()).to.equal(8);
    });

    it('social_tips_targeted_has_recipient_and_ciphertext: a targeted tip without ciphertext is refused', async () => {
      await refusedThenAccepted('social_tips_targeted_has_recipient_and_ciphertext', targetedRow({ ciphertext: null }), targetedRow({ ciphertext: CIPHERTEXT }));
    });

    it('social_tips_targeted_has_recipient_and_ciphertext: a targeted tip with neither a recipient nor recipient_erased is refused; with recipient_erased true and no recipient it is stored', async () => {
      const erased = targetedRow({ recipient_user_id: null, recipient_erased: bool(true) });
      await refusedThenAccepted('social_tips_targeted_has_recipient_and_ciphertext', targetedRow({ recipient_user_id: null, recipient_erased: bool(false) }), erased);
      expect(await stored(erased.id)).to.include({ recipient_user_id: null, ciphertext: CIPHERTEXT });
      // recipient_erased with no ciphertext is still refused: the ciphertext is what the sender claws back with.
      expectCheckViolation(await rejectionOf(insert(targetedRow({ recipient_user_id: null, recipient_erased: bool(true), ciphertext: null }))), dialect, 'social_tips_targeted_has_recipient_and_ciphertext');
    });

    it('social_tips_public_has_secret_hash: a public tip without secret_hash is refused', async () => {
      await refusedThenAccepted('social_tips_public_has_secret_hash', publicRow({ secret_hash: null }), publicRow({ secret_hash: SECRET_HASH }));
    });

    it('social_tips_public_has_secret_hash: a public tip WITH a recipient is refused', async () => {
      await refusedThenAccepted('social_tips_public_has_secret_hash', publicRow({ recipient_user_id: recipient }), publicRow({ recipient_user_id: null }));
    });

    it('social_tips_grin_commitment: a grin tip without commitment is refused', async () => {
      await refusedThenAccepted(
        'social_tips_grin_commitment',
        publicRow({ asset: 'grin', tip_address: null, grin_commitment: null }),
        publicRow({ asset: 'grin', tip_address: null, grin_commitment: COMMITMENT }),
      );
    });

    it('social_tips_grin_commitment: a commitment on a non-grin tip is refused, in every other asset', async () => {
      for (const asset of ['btc', 'ltc', 'xmr', 'wow']) {
        await refusedThenAccepted('social_tips_grin_commitment', publicRow({ asset, grin_commitment: COMMITMENT }), publicRow({ asset, grin_commitment: null }));
      }
    });

    it('social_tips_grin_commitment: a commitment of 64 or 65 characters is refused, 66 stored', async () => {
      const grin = (grin_commitment: string) => publicRow({ asset: 'grin', tip_address: null, grin_commitment });
      await refusedThenAccepted('social_tips_grin_commitment', grin('b2'.repeat(32)), grin(COMMITMENT));
      await refusedThenAccepted('social_tips_grin_commitment', grin(`0${'b2'.repeat(32)}`), grin(`08${'b3'.repeat(32)}`));
    });

    it('social_tips_draft_unfunded: a draft with a funding txid is refused', async () => {
      await refusedThenAccepted('social_tips_draft_unfunded', publicRow({ status: 'draft', funding_txid: FUNDING_TXID }), publicRow({ status: 'draft', funding_txid: null }));
    });

    for (const status of ['pending_confirmation', 'pending', 'funding_mismatch', 'claiming', 'claimed']) {
      it(`social_tips_funded_has_txid: ${status} without a funding txid is refused`, async () => {
        await refusedThenAccepted('social_tips_funded_has_txid', publicRow({ status, funding_txid: null }), publicRow({ status, funding_txid: FUNDING_TXID }));
      });
    }

    it('social_tips_funded_has_txid: cancelled and clawed_back need no funding txid (a cancelled draft never had one)', async () => {
      await insert(publicRow({ status: 'cancelled', funding_txid: null }));
      await insert(publicRow({ status: 'clawed_back', funding_txid: null }));
      expect(await count()).to.equal(2);
    });

    it('an UPDATE that breaks a check is refused too, and the row keeps its values', async () => {
      const row = publicRow({ status: 'pending', funding_txid: FUNDING_TXID });
      await insert(row);
      expectCheckViolation(await rejectionOf(knex()(TABLE).where({ id: row.id }).update({ status: 'draft' })), dialect, 'social_tips_draft_unfunded');
      expectCheckViolation(await rejectionOf(knex()(TABLE).where({ id: row.id }).update({ secret_hash: null })), dialect, 'social_tips_public_has_secret_hash');
      expect(await stored(row.id)).to.include({ status: 'pending', secret_hash: SECRET_HASH });
    });
  });

  describe('write-once columns (dialect.writeOnce triggers)', () => {
    for (const column of ['funding_txid', 'sweep_txid'] as const) {
      const [first, second] = column === 'funding_txid' ? [FUNDING_TXID, FUNDING_TXID_2] : [SWEEP_TXID, SWEEP_TXID_2];

      it(`${column}: set from NULL once, then neither re-pointed nor cleared; the same value again and other columns still update`, async () => {
        // claiming holds both txids; funding_txid is set from NULL on a cancelled row (no funded-status check applies).
        const row = publicRow({ status: column === 'funding_txid' ? 'cancelled' : 'claiming', funding_txid: column === 'funding_txid' ? null : FUNDING_TXID });
        await insert(row);
        const where = () => knex()(TABLE).where({ id: row.id });
        await where().update({ [column]: first });
        expect((await stored(row.id))![column]).to.equal(first);
        expectWriteOnceViolation(await rejectionOf(where().update({ [column]: second })), dialect, column);
        expectWriteOnceViolation(await rejectionOf(where().update({ [column]: null })), dialect, column);
        // Refused together with other columns: the whole statement is refused.
        expectWriteOnceViolation(await rejectionOf(where().update({ [column]: second, amount: '60000' })), dialect, column);
        expect(await stored(row.id)).to.include({ [column]: first, amount: '50000' });
        await where().update({ [column]: first });
        const later = new Date('2026-02-04T00:00:00.000Z');
        await where().update({ status: 'clawed_back', amount: '70000', updated_at: time(later), settled_at: time(later) });
        const after = await stored(row.id);
        expect(after).to.include({ [column]: first, status: 'clawed_back', amount: '70000' });
      });

      it(`${column}: a row inserted with it set is write-once from the start`, async () => {
        const row = publicRow({ status: 'claiming', funding_txid: FUNDING_TXID, sweep_txid: SWEEP_TXID });
        await insert(row);
        expectWriteOnceViolation(await rejectionOf(knex()(TABLE).where({ id: row.id }).update({ [column]: second })), dialect, column);
        expectWriteOnceViolation(await rejectionOf(knex()(TABLE).where({ id: row.id }).update({ [column]: null })), dialect, column);
        expect(await stored(row.id)).to.include({ funding_txid: FUNDING_TXID, sweep_txid: SWEEP_TXID });
      });
    }

    it('the write-once refusal is per row: updating many rows at once is refused when one of them holds a value', async () => {
      const unset = publicRow({ status: 'claiming', funding_txid: FUNDING_TXID });
      const set = publicRow({ status: 'claiming', funding_txid: FUNDING_TXID, sweep_txid: SWEEP_TXID });
      await insert(unset);
      await insert(set);
      expectWriteOnceViolation(await rejectionOf(knex()(TABLE).whereIn('id', [unset.id as string, set.id as string]).update({ sweep_txid: SWEEP_TXID_2 })), dialect, 'sweep_txid');
      expect((await stored(unset.id))!.sweep_txid).to.equal(null);
    });

    it('is_public never changes after insert, either way, even when the row would otherwise be valid', async () => {
      const pub = publicRow({ status: 'pending', funding_txid: FUNDING_TXID });
      const tgt = targetedRow();
      await insert(pub);
      await insert(tgt);
      // public → a well-formed targeted row: only the trigger stands in the way.
      expectWriteOnceViolation(
        await rejectionOf(knex()(TABLE).where({ id: pub.id }).update({ is_public: bool(false), recipient_user_id: recipient, ciphertext: CIPHERTEXT, secret_hash: null })),
        dialect,
        'is_public',
      );
      // targeted → a well-formed public row.
      expectWriteOnceViolation(
        await rejectionOf(knex()(TABLE).where({ id: tgt.id }).update({ is_public: bool(true), recipient_user_id: null, ciphertext: null, secret_hash: SECRET_HASH })),
        dialect,
        'is_public',
      );
      const [p, g] = [await stored(pub.id), await stored(tgt.id)];
      expect([true, 1]).to.include(p!.is_public);
      expect([false, 0]).to.include(g!.is_public);
      expect(g).to.include({ recipient_user_id: recipient, ciphertext: CIPHERTEXT, secret_hash: null });
      // Writing the same value is no change, and other columns still update.
      await knex()(TABLE).where({ id: pub.id }).update({ is_public: bool(true), status: 'claiming' });
      expect(await stored(pub.id)).to.include({ status: 'claiming' });
    });
  });

  describe('one funding output, one tip (unique indexes, migration 004)', () => {
    const expectUniqueViolation = (err: unknown) => {
      const e = err as ConstraintError;
      expect(e.code, e.message).to.equal(dialect === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_UNIQUE');
    };

    it('a second row on the same address and txid is refused whatever its status or sender; a row marked funding_duplicate, another address or another asset is not', async () => {
      const address = tipAddress('btc');
      await insert(publicRow({ status: 'clawed_back', tip_address: address, funding_txid: FUNDING_TXID }));
      for (const status of ['pending_confirmation', 'pending', 'cancelled', 'claimed']) {
        const before = await count();
        expectUniqueViolation(await rejectionOf(insert(targetedRow({ status, tip_address: address, funding_txid: FUNDING_TXID }))));
        expect(await count(), status).to.equal(before);
      }
      await insert(publicRow({ status: 'funding_mismatch', tip_address: address, funding_txid: FUNDING_TXID, funding_duplicate: bool(true) }));
      await insert(publicRow({ status: 'pending', funding_txid: FUNDING_TXID }));
      await insert(publicRow({ status: 'pending', asset: 'ltc', tip_address: address, funding_txid: FUNDING_TXID }));
    });

    it('grin: the commitment once funded, whatever kernel; drafts (no txid) share a commitment', async () => {
      const grin = (fields: Row) => publicRow({ asset: 'grin', tip_address: null, grin_commitment: COMMITMENT, ...fields });
      await insert(grin({ status: 'draft' }));
      await insert(grin({ status: 'draft' }));
      await insert(grin({ status: 'pending', funding_txid: `08${FUNDING_TXID}` }));
      expectUniqueViolation(await rejectionOf(insert(grin({ status: 'pending', funding_txid: `08${FUNDING_TXID_2}` }))));
      await insert(grin({ status: 'funding_mismatch', funding_txid: `08${FUNDING_TXID_2}`, funding_duplicate: bool(true) }));
    });
  });

  describe('deleting users (the foreign keys are the backstop of the erasure hook)', () => {
    it('a plain DELETE of the RECIPIENT of a targeted tip is refused: SET NULL would leave a targeted tip with neither recipient nor erasure mark', async () => {
      const tgt = targetedRow();
      await insert(tgt);
      expectCheckViolation(await rejectionOf(knex()('users').where({ id: recipient }).delete()), dialect, 'social_tips_targeted_has_recipient_and_ciphertext');
      expect(await knex()('users').where({ id: recipient }).first()).to.not.equal(undefined);
      expect(await stored(tgt.id)).to.include({ recipient_user_id: recipient, ciphertext: CIPHERTEXT });
      // What the erasure hook does first (mark, unlink) makes the delete possible.
      await knex()(TABLE).where({ id: tgt.id }).update({ recipient_erased: bool(true), recipient_user_id: null });
      await knex()('users').where({ id: recipient }).delete();
      expect(await knex()('users').where({ id: recipient }).first()).to.equal(undefined);
      expect(await stored(tgt.id)).to.include({ recipient_user_id: null, ciphertext: CIPHERTEXT, status: 'pending_confirmation' });
    });

    it('a plain DELETE of the SENDER only unlinks the sender (SET NULL), the tip stays', async () => {
      const pub = publicRow({ status: 'pending', funding_txid: FUNDING_TXID });
      const tgt = targetedRow();
      await insert(pub);
      await insert(tgt);
      await knex()('users').where({ id: sender }).delete();
      expect(await stored(pub.id)).to.include({ sender_user_id: null, status: 'pending', funding_txid: FUNDING_TXID });
      expect(await stored(tgt.id)).to.include({ sender_user_id: null, recipient_user_id: recipient });
    });
  });

  describe('dialect.writeOnce', () => {
    const ROLLBACK = new Error('rollback');

    /** A transaction (rolled back after) whose `raw` is recorded, so a refusal can be shown to have run no SQL. */
    async function withRecordedRaw(work: (trx: Knex.Transaction, calls: unknown[][]) => Promise<void>) {
      const outcome = await rejectionOf(
        knex().transaction(async (trx) => {
          const calls: unknown[][] = [];
          const recorded = new Proxy(trx, {
            get(target, prop) {
              if (prop === 'raw') {
                return (...args: unknown[]) => {
                  calls.push(args);
                  return (target.raw as (...a: unknown[]) => unknown)(...args);
                };
              }
              return (target as unknown as Record<PropertyKey, unknown>)[prop];
            },
          });
          await work(recorded, calls);
          // The transaction is still usable: no statement failed inside it (a failed one aborts a Postgres transaction).
          await trx.raw('select 1');
          throw ROLLBACK;
        }),
      );
      if (outcome !== ROLLBACK) throw outcome;
    }

    const BAD_NAMES = ['x; drop', 'x; drop table users; --', 'Users', 'sweep-txid', '1abc', '', 'a'.repeat(64), 'é', 'x"y', "x'y", 'x y'];

    it('refuses a non-plain table or column name before running any SQL', async () => {
      const { writeOnce } = t.backend.db.dialect;
      for (const bad of BAD_NAMES) {
        await withRecordedRaw(async (trx, calls) => {
          const asTable = (await rejectionOf(writeOnce(trx, bad, 'sweep_txid'))) as Error;
          expect(asTable.message, JSON.stringify(bad)).to.equal(`not a plain identifier: ${JSON.stringify(bad)}`);
          const asColumn = (await rejectionOf(writeOnce(trx, 'social_tips', bad))) as Error;
          expect(asColumn.message, JSON.stringify(bad)).to.equal(`not a plain identifier: ${JSON.stringify(bad)}`);
          expect(calls, JSON.stringify(bad)).to.deep.equal([]);
        });
      }
    });

    it('runs its SQL for plain names (the control for the refusals above): the trigger it makes refuses a re-write', async () => {
      const { writeOnce } = t.backend.db.dialect;
      await withRecordedRaw(async (trx, calls) => {
        await trx.schema.createTable('scratch_write_once', (tb) => {
          tb.integer('id').primary();
          tb.string('ref_1', 10).nullable();
        });
        expect(calls).to.deep.equal([]);
        await writeOnce(trx, 'scratch_write_once', 'ref_1');
        expect(calls.length).to.be.greaterThan(0);
        await trx('scratch_write_once').insert({ id: 1, ref_1: null });
        await trx('scratch_write_once').where({ id: 1 }).update({ ref_1: 'x' });
        // In a savepoint, so the refusal leaves the transaction usable.
        const err = (await rejectionOf(trx.transaction((sp) => sp('scratch_write_once').where({ id: 1 }).update({ ref_1: 'y' })))) as ConstraintError;
        expect(err.code).to.equal(dialect === 'postgres' ? '23514' : 'SQLITE_CONSTRAINT_TRIGGER');
        expect(err.message).to.include('scratch_write_once.ref_1 is write-once');
      });
    });
  });
});
