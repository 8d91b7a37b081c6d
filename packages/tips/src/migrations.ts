import type { PluginMigration } from '@wallet/backend-core';
import { TIP_ASSETS, TIP_STATUSES } from './tip.js';

export const TIPS_TABLE = 'social_tips';

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
];
