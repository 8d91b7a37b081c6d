import { readBool, readTime } from '@wallet/backend-core';

/**
 * The eight tip states (spec › Public tip `status`). `clawed_back` is the eighth, the state a
 * clawback leaves; `claimed` and `clawed_back` are terminal (a Grin reorg may take `claimed`
 * back to `claiming`), `cancelled` is not: a tip cancelled by the lifecycle GC may have been
 * funded late, and its sender can still claw it back.
 */
export const TIP_STATUS = {
  draft: 'draft',
  pendingConfirmation: 'pending_confirmation',
  pending: 'pending',
  claiming: 'claiming',
  claimed: 'claimed',
  fundingMismatch: 'funding_mismatch',
  cancelled: 'cancelled',
  clawedBack: 'clawed_back',
} as const;

export type TipStatus = (typeof TIP_STATUS)[keyof typeof TIP_STATUS];
export const TIP_STATUSES: readonly TipStatus[] = Object.values(TIP_STATUS);

/** Fully funded and not settled: a holder (or the recipient) may claim, again and again, until the sweep confirms. */
export const CLAIMABLE_STATUSES: readonly TipStatus[] = [TIP_STATUS.pending, TIP_STATUS.claiming];
/** The sender may claw back until a sweep has confirmed (spec's clawback row). */
export const CLAWABLE_STATUSES: readonly TipStatus[] = [
  TIP_STATUS.pendingConfirmation,
  TIP_STATUS.pending,
  TIP_STATUS.claiming,
  TIP_STATUS.fundingMismatch,
  TIP_STATUS.cancelled,
];
/** A targeted tip the recipient should see coming: not yet settled either way. */
export const INBOX_STATUSES: readonly TipStatus[] = [TIP_STATUS.pendingConfirmation, TIP_STATUS.pending, TIP_STATUS.claiming];

export const TIP_ASSETS = ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const;
export type TipAsset = (typeof TIP_ASSETS)[number];

/** A row of `social_tips` as either dialect returns it. */
export interface StoredTip {
  id: string;
  sender_user_id: string | null;
  recipient_user_id: string | null;
  recipient_erased: unknown;
  is_public: unknown;
  asset: TipAsset;
  amount: string;
  status: TipStatus;
  tip_address: string | null;
  ciphertext: string | null;
  secret_hash: string | null;
  grin_commitment: string | null;
  funding_txid: string | null;
  funding_tx_key: string | null;
  sweep_txid: string | null;
  created_at: unknown;
  updated_at: unknown;
  funded_at: unknown;
  settled_at: unknown;
}

const iso = (value: unknown) => (value === null || value === undefined ? null : readTime(value).toISOString());

/** What the sender sees of a tip they made. */
export function toSentTip(row: StoredTip, shareUrl: (id: string) => string) {
  return {
    tip_id: row.id,
    asset: row.asset,
    amount: row.amount,
    status: row.status,
    is_public: readBool(row.is_public),
    recipient_user_id: row.recipient_user_id,
    tip_address: row.tip_address,
    grin_commitment: row.grin_commitment,
    funding_txid: row.funding_txid,
    sweep_txid: row.sweep_txid,
    share_url: shareUrl(row.id),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    funded_at: iso(row.funded_at),
    settled_at: iso(row.settled_at),
  };
}

/** What a recipient sees of a tip addressed to them, before claiming it. */
export function toInboxTip(row: StoredTip) {
  return {
    tip_id: row.id,
    asset: row.asset,
    amount: row.amount,
    status: row.status,
    sender_user_id: row.sender_user_id,
    claimable: CLAIMABLE_STATUSES.includes(row.status),
    created_at: iso(row.created_at)!,
    funded_at: iso(row.funded_at),
  };
}

/** What a claim hands over: the encrypted claim key and where the funds are. */
export function toClaimedTip(row: StoredTip) {
  return {
    tip_id: row.id,
    asset: row.asset,
    amount: row.amount,
    status: row.status,
    tip_address: row.tip_address,
    grin_commitment: row.grin_commitment,
    ciphertext: row.ciphertext,
    secret_hash: row.secret_hash,
    sweep_txid: row.sweep_txid,
  };
}

/** What anyone holding the share URL may read without signing in. */
export function toPublicTip(row: StoredTip) {
  return {
    tip_id: row.id,
    asset: row.asset,
    amount: row.amount,
    status: row.status,
    claimable: CLAIMABLE_STATUSES.includes(row.status),
    created_at: iso(row.created_at)!,
  };
}
