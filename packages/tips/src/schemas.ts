import * as v from 'valibot';
import { nextAfterField, pageQuery } from '@wallet/backend-core';
import { TIP_ASSETS, TIP_STATUSES } from './tip.js';

const hex = (length: number, what: string) => v.pipe(v.string(`${what} must be a string`), v.regex(new RegExp(`^[0-9a-fA-F]{${length}}$`), `${what} must be ${length} hex characters`));

/** A transaction id: non-empty and size-bounded here; its exact form per asset (64 hex, grin's 66-hex kernel excess) is checked by the service. */
const txid = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string`),
    v.minLength(1, `${what} must not be empty`),
    v.maxLength(66, `${what} must be at most 66 characters`),
    v.regex(/^[0-9a-fA-F]+$/, `${what} must be hexadecimal`),
  );

/** Atomic units (sat, piconero, nanogrin) as a JSON integer or a decimal string; answered as a string. Per-asset bounds are the service's. */
const amount = v.pipe(
  v.union([v.pipe(v.number(), v.safeInteger(), v.minValue(1)), v.pipe(v.string(), v.regex(/^[1-9]\d{0,19}$/))], 'amount must be a positive whole number of atomic units (a JSON integer or a decimal string)'),
  v.transform((value) => BigInt(value).toString()),
);

export const createTipRequest = v.pipe(
  v.strictObject({
    asset: v.picklist(TIP_ASSETS, 'asset must be one of btc, ltc, xmr, wow, grin'),
    amount,
    /** The one-time address holding the funds (btc/ltc/xmr/wow); grin tips have none. */
    tip_address: v.optional(v.pipe(v.string('tip_address must be a string'), v.minLength(1), v.maxLength(128, 'tip_address must be at most 128 characters'))),
    /** Two-phase: a draft is funded later with attach-funding. Public tips only. */
    draft: v.optional(v.boolean('draft must be true or false'), false),
    /** A targeted tip's recipient: a username. Absent: a public tip. */
    recipient: v.optional(v.pipe(v.string('recipient must be a username'), v.minLength(1), v.maxLength(64, 'recipient must be at most 64 characters'))),
    /** The claim key, encrypted by the wallet (opaque to the server). Required for a targeted tip. */
    ciphertext: v.optional(v.pipe(v.string('ciphertext must be a string'), v.regex(/^[\x21-\x7e]{1,4096}$/, 'ciphertext must be 1 to 4096 printable ASCII characters (base64 or similar)'))),
    /** SHA-256 of the secret in the share URL's fragment (hex). Required for a public tip. */
    secret_hash: v.optional(hex(64, 'secret_hash')),
    /** The Pedersen commitment of the tip's output; grin tips only. */
    grin_commitment: v.optional(hex(66, 'grin_commitment')),
    /** Required unless `draft`: the transaction paying the tip address (grin: the kernel excess). */
    funding_txid: v.optional(txid('funding_txid')),
    /** xmr/wow: the funding transaction's secret key (64 hex), which proves the payment. */
    funding_tx_key: v.optional(hex(64, 'funding_tx_key')),
  }),
  v.title('CreateSocialTipRequest'),
);

export const attachFundingRequest = v.pipe(
  v.strictObject({ funding_txid: txid('funding_txid'), funding_tx_key: v.optional(hex(64, 'funding_tx_key')) }),
  v.title('AttachFundingRequest'),
);
export const confirmSweepRequest = v.pipe(v.strictObject({ sweep_txid: txid('sweep_txid') }), v.title('ConfirmSweepRequest'));
export const tipIdParams = v.object({ tip_id: v.pipe(v.string(), v.uuid('tip_id must be a UUID')) });

const status = v.picklist(TIP_STATUSES);
const asset = v.picklist(TIP_ASSETS);
const time = v.string();

export const createTipResponse = v.pipe(v.object({ tip_id: v.string(), status, share_url: v.string() }), v.title('CreateSocialTipResponse'));
export const sentTip = v.pipe(
  v.object({
    tip_id: v.string(),
    asset,
    amount: v.string(),
    status,
    is_public: v.boolean(),
    recipient_user_id: v.nullable(v.string()),
    tip_address: v.nullable(v.string()),
    grin_commitment: v.nullable(v.string()),
    funding_txid: v.nullable(v.string()),
    sweep_txid: v.nullable(v.string()),
    share_url: v.string(),
    created_at: time,
    updated_at: time,
    funded_at: v.nullable(time),
    settled_at: v.nullable(time),
  }),
  v.title('SocialTip'),
);
export const sentTipsResponse = v.pipe(v.object({ tips: v.array(sentTip) }), v.title('SocialTipsResponse'));
export const inboxTip = v.pipe(
  v.object({ tip_id: v.string(), asset, amount: v.string(), status, sender_user_id: v.nullable(v.string()), claimable: v.boolean(), created_at: time, funded_at: v.nullable(time) }),
  v.title('InboxTip'),
);
export const inboxResponse = v.pipe(v.object({ tips: v.array(inboxTip) }), v.title('InboxTipsResponse'));
export const cancelTipResponse = v.pipe(v.object({ tip_id: v.string(), status }), v.title('CancelTipResponse'));
export const claimTipResponse = v.pipe(
  v.object({
    tip_id: v.string(),
    asset,
    amount: v.string(),
    status,
    tip_address: v.nullable(v.string()),
    grin_commitment: v.nullable(v.string()),
    ciphertext: v.nullable(v.string()),
    secret_hash: v.nullable(v.string()),
    sweep_txid: v.nullable(v.string()),
  }),
  v.title('ClaimTipResponse'),
);
export const clawbackTipResponse = v.pipe(
  v.object({ tip_id: v.string(), asset, amount: v.string(), status, tip_address: v.nullable(v.string()), grin_commitment: v.nullable(v.string()), funding_txid: v.nullable(v.string()) }),
  v.title('ClawbackTipResponse'),
);
export const confirmSweepResponse = v.pipe(
  v.object({ tip_id: v.string(), status, sweep_txid: v.string(), recorded: v.boolean() }),
  v.title('ConfirmSweepResponse'),
);
export const publicTipResponse = v.pipe(
  v.object({ tip_id: v.string(), asset, amount: v.string(), status, claimable: v.boolean(), created_at: time }),
  v.title('PublicTipInfo'),
);

// The operator's routes (docs/admin.md › Tips).
const statusCounts = v.object(Object.fromEntries(TIP_STATUSES.map((name) => [name, v.number()])) as Record<(typeof TIP_STATUSES)[number], v.NumberSchema<undefined>>);

export const adminTipStatsResponse = v.pipe(v.object({ total: v.number(), by_status: statusCounts }), v.title('AdminTipStats'));
/** Paged as every admin list is (`limit`, `after`; core's http/paging.ts). */
export const adminStuckTipsQuery = v.object(pageQuery);
export const adminStuckTipsResponse = v.pipe(
  v.object({
    threshold_sec: v.number(),
    tips: v.array(v.object({ tip_id: v.string(), status, asset, amount: v.string(), since: time, age_sec: v.number(), sweep_recorded: v.boolean() })),
    next_after: nextAfterField,
  }),
  v.title('AdminStuckTips'),
);
export const adminTipResponse = v.pipe(
  v.object({
    tip_id: v.string(),
    status,
    asset,
    amount: v.string(),
    is_public: v.boolean(),
    sender_user_id: v.nullable(v.string()),
    recipient_user_id: v.nullable(v.string()),
    recipient_erased: v.boolean(),
    tip_address: v.nullable(v.string()),
    grin_commitment: v.nullable(v.string()),
    funding_txid: v.nullable(v.string()),
    funding_duplicate: v.boolean(),
    sweep_txid: v.nullable(v.string()),
    created_at: time,
    updated_at: time,
    funded_at: v.nullable(time),
    settled_at: v.nullable(time),
    checked_at: v.nullable(time),
    claims: v.array(v.object({ user_id: v.string(), claimed_at: time })),
    history: v.array(
      v.object({
        event: v.picklist(['created', 'funded', 'claimed', 'settled']),
        at: time,
        user_id: v.optional(v.string()),
        status: v.optional(status),
      }),
    ),
  }),
  v.title('AdminTip'),
);
