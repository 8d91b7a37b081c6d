import type { PluginMigration } from '@wallet/backend-core';
import { TIP_ASSETS, TIP_STATUSES } from './tip.js';

export const TIPS_TABLE = 'social_tips';
/** Who made a successful claim call on which tip: only they may record its sweep. */
export const TIP_CLAIMERS_TABLE = 'social_tip_claimers';

/** The tip kept when several hold one funding output: the oldest, then the lowest id. */
const olderFirst = (a: DuplicateRow, b: DuplicateRow) => String(a.created_at_text).localeCompare(String(b.created_at_text)) || a.id.localeCompare(b.id);
/** Someone claimed it: its claimer may have swept the output already, so it is the tip the output belongs to. */
const claimedOnce = (row: DuplicateRow) => row.status === 'claiming' || row.status === 'claimed';
/** Who keeps a shared output: a claimed holder before any unclaimed one, then the oldest. */
const keeperFirst = (a: DuplicateRow, b: DuplicateRow) => Number(claimedOnce(b)) - Number(claimedOnce(a)) || olderFirst(a, b);

interface DuplicateRow {
  id: string;
  asset: string;
  status: string;
  tip_address: string | null;
  grin_commitment: string | null;
  funding_txid: string;
  created_at_text: unknown;
}

/** The funding output a tip's funding names: Grin's is its commitment alone, the others' the address paid by the txid. */
export function fundingOutputKey(tip: { asset: string; tip_address: string | null; grin_commitment: string | null; funding_txid: string | null }): string {
  return tip.asset === 'grin' ? `grin:${tip.grin_commitment}` : `${tip.asset}:${tip.tip_address}:${tip.funding_txid}`;
}

const quotedList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * Tips. The rules the spec makes database checks are checks here, so no code path can break
 * them: a targeted tip names its recipient (or records that the recipient's account was erased)
 * and carries the ciphertext; a public tip has no recipient and carries its secret hash; only a
 * grin tip has a commitment (66 hex); a funded state has a funding txid. `is_public` is written
 * once at insert from the recipient, and it, the funding txid and the sweep txid are write-once
 * in the database (triggers), so a later update can never re-point them.
 */
export const tipsMigrations: readonly PluginMigration[] = [
  {
    id: '001_social_tips',
    async up(trx, dialect) {
      await trx.schema.createTable(TIPS_TABLE, (t) => {
        t.uuid('id').primary();
        // Null once that account is erased (the erasure hook; the foreign key is the backstop).
        t.uuid('sender_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
        t.uuid('recipient_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
        // Set by the erasure hook before the recipient's account goes: a targeted tip then
        // keeps its ciphertext (the sender can claw back) without a recipient.
        t.boolean('recipient_erased').notNullable().defaultTo(false);
        t.boolean('is_public').notNullable();
        t.string('asset', 4).notNullable();
        // Atomic units (sat, piconero, nanogrin) as decimal text: u64 does not fit a signed bigint.
        t.string('amount', 20).notNullable();
        t.string('status', 24).notNullable();
        t.string('tip_address', 128).nullable();
        t.text('ciphertext').nullable();
        t.string('secret_hash', 64).nullable();
        t.string('grin_commitment', 66).nullable();
        t.string('funding_txid', 66).nullable();
        // Monero/Wownero: the funding transaction's secret key, which proves the payment to the tip address without any spend key.
        t.string('funding_tx_key', 64).nullable();
        t.string('sweep_txid', 66).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('funded_at', { useTz: true }).nullable();
        t.timestamp('settled_at', { useTz: true }).nullable();
        t.index(['sender_user_id', 'created_at']);
        t.index(['recipient_user_id', 'status']);
        t.index(['status', 'updated_at']);
        t.check(`?? in (${quotedList(TIP_ASSETS)})`, ['asset'], 'social_tips_asset_known');
        t.check(`?? in (${quotedList(TIP_STATUSES)})`, ['status'], 'social_tips_status_known');
        t.check('?? or (?? is not null and (?? is not null or ??))', ['is_public', 'ciphertext', 'recipient_user_id', 'recipient_erased'], 'social_tips_targeted_has_recipient_and_ciphertext');
        t.check('not ?? or (?? is null and ?? is not null)', ['is_public', 'recipient_user_id', 'secret_hash'], 'social_tips_public_has_secret_hash');
        t.check(`(?? = 'grin') = (?? is not null) and (?? is null or length(??) = 66)`, ['asset', 'grin_commitment', 'grin_commitment', 'grin_commitment'], 'social_tips_grin_commitment');
        t.check(`?? <> 'draft' or ?? is null`, ['status', 'funding_txid'], 'social_tips_draft_unfunded');
        t.check(`?? not in ('pending_confirmation', 'pending', 'funding_mismatch', 'claiming', 'claimed') or ?? is not null`, ['status', 'funding_txid'], 'social_tips_funded_has_txid');
      });
      for (const column of ['is_public', 'funding_txid', 'sweep_txid']) await dialect.writeOnce(trx, TIPS_TABLE, column);
    },
  },
  {
    // Issue 29 (4): confirm-sweep is for claimers only. Claims made before this migration left no
    // row: such a claimer claims again (allowed while the tip is `claiming`) before recording.
    id: '002_social_tip_claimers',
    async up(trx) {
      await trx.schema.createTable(TIP_CLAIMERS_TABLE, (t) => {
        t.uuid('tip_id').notNullable().references('id').inTable(TIPS_TABLE).onDelete('CASCADE');
        t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
        t.timestamp('claimed_at', { useTz: true }).notNullable();
        t.primary(['tip_id', 'user_id']);
        t.index(['user_id']);
      });
    },
  },
  {
    // Issue 29 (5): the workers read the tips least recently read first and stamp what they read,
    // so a batch of tips the chain never confirms cannot hold the batch for ever. A tip enters
    // the rotation at the back (stamped when it is created or funded).
    id: '003_social_tips_checked_at',
    async up(trx) {
      await trx.schema.alterTable(TIPS_TABLE, (t) => {
        t.timestamp('checked_at', { useTz: true }).nullable();
      });
      await trx(TIPS_TABLE).update({ checked_at: trx.ref('updated_at') });
      await trx.schema.alterTable(TIPS_TABLE, (t) => {
        t.index(['status', 'checked_at']);
      });
    },
  },
  {
    // Issue 29 (6): one funding output backs one tip, decided by unique indexes so concurrent
    // attach-funding calls cannot both win. A database may already hold duplicates: a tip
    // somebody claimed keeps the output (the oldest such), else the oldest tip; every other one
    // is marked `funding_duplicate` (left out of the indexes) and, while nobody has claimed it,
    // becomes `funding_mismatch` (its funding backs another tip: not claimable, the sender can
    // claw it back), so no tip stays claimable on an output another tip's claimer may have
    // swept. Claimed or settled duplicates keep their state: the chain has decided those.
    id: '004_social_tips_one_tip_per_funding_output',
    async up(trx, dialect) {
      await trx.schema.alterTable(TIPS_TABLE, (t) => {
        t.boolean('funding_duplicate').notNullable().defaultTo(false);
      });
      const rows = (await trx(TIPS_TABLE)
        .select('id', 'asset', 'status', 'tip_address', 'grin_commitment', 'funding_txid', { created_at_text: 'created_at' })
        .whereNotNull('funding_txid')) as DuplicateRow[];
      for (const row of rows) row.created_at_text = row.created_at_text instanceof Date ? row.created_at_text.toISOString() : row.created_at_text;
      const byOutput = new Map<string, DuplicateRow[]>();
      for (const row of rows) byOutput.set(fundingOutputKey(row), [...(byOutput.get(fundingOutputKey(row)) ?? []), row]);
      for (const holders of byOutput.values()) {
        for (const later of holders.sort(keeperFirst).slice(1)) {
          const unclaimed = later.status === 'pending_confirmation' || later.status === 'pending';
          await trx(TIPS_TABLE)
            .where({ id: later.id })
            .update({ funding_duplicate: dialect.bool(true), ...(unclaimed ? { status: 'funding_mismatch' } : {}) });
        }
      }
      await trx.raw(
        `CREATE UNIQUE INDEX social_tips_funding_output ON ${TIPS_TABLE} (asset, tip_address, funding_txid) WHERE funding_txid IS NOT NULL AND asset <> 'grin' AND NOT funding_duplicate`,
      );
      await trx.raw(`CREATE UNIQUE INDEX social_tips_grin_funding_output ON ${TIPS_TABLE} (grin_commitment) WHERE funding_txid IS NOT NULL AND asset = 'grin' AND NOT funding_duplicate`);
    },
  },
  {
    // Issue 35 (3): each chain worker reads one index in its order (its equality columns, then
    // checked_at with NULLs first, then id) and stops at its batch, instead of sorting every
    // waiting tip. The windowed reads carry settled_at in the index, so a tip out of the window
    // is passed over in the index entry without reading its row. The (status, checked_at) index is a
    // prefix of social_tips_worker_rotation and goes.
    id: '005_social_tips_worker_indexes',
    async up(trx, dialect) {
      const checked = dialect.ascNullsFirst('checked_at');
      // funding-watch (its funding_duplicate test removes nothing: 004 moved every unclaimed
      // duplicate to funding_mismatch, and no code marks one since) and sweep-reconciler's
      // claiming and clawed-back tips (for the latter, the recorded sweep and the watch window
      // are read off the index entry; a partial index on the sweep is not chosen by SQLite).
      await trx.raw(`CREATE INDEX social_tips_worker_rotation ON ${TIPS_TABLE} (status, ${checked}, id, settled_at, sweep_txid)`);
      // grin-reorg-check: claimed grin tips settled within the watch.
      await trx.raw(`CREATE INDEX social_tips_reorg_watch ON ${TIPS_TABLE} (status, asset, ${checked}, id, settled_at)`);
      await trx.schema.alterTable(TIPS_TABLE, (t) => {
        t.dropIndex(['status', 'checked_at']);
      });
    },
  },
];
