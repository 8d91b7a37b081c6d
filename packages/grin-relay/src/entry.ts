import { readTime } from '@wallet/backend-core/database';

/**
 * Relay states on the wire. `pending_sender` is the spec's spelling; the others follow its
 * snake_case (docs/decisions.md): the recipient owes a response, then the sender owes the
 * finalization, and an entry ends finalized, cancelled or expired.
 */
export const RELAY_STATUS = {
  pendingRecipient: 'pending_recipient',
  pendingSender: 'pending_sender',
  finalized: 'finalized',
  cancelled: 'cancelled',
  expired: 'expired',
} as const;
export type RelayStatus = (typeof RELAY_STATUS)[keyof typeof RELAY_STATUS];
/** States in which a party still owes a step: the expiry sweep closes them. */
export const OPEN_STATUSES: readonly RelayStatus[] = [RELAY_STATUS.pendingRecipient, RELAY_STATUS.pendingSender];

export interface StoredRelayEntry {
  id: string;
  slate_id: string;
  sender_user_id: string | null;
  recipient_user_id: string | null;
  slatepack: string;
  response_slatepack: string | null;
  amount_nanogrin: string;
  status: RelayStatus;
  tx_hash: string | null;
  created_at: unknown;
  updated_at: unknown;
  expires_at: unknown;
}

/** RelayEntry as the API returns it. */
export interface RelayEntry {
  slate_id: string;
  sender_user_id: string | null;
  recipient_user_id: string | null;
  amount_nanogrin: string;
  status: RelayStatus;
  slatepack: string;
  response_slatepack: string | null;
  tx_hash: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

export function toRelayEntry(row: StoredRelayEntry): RelayEntry {
  return {
    slate_id: row.slate_id,
    sender_user_id: row.sender_user_id,
    recipient_user_id: row.recipient_user_id,
    amount_nanogrin: row.amount_nanogrin,
    status: row.status,
    slatepack: row.slatepack,
    response_slatepack: row.response_slatepack,
    tx_hash: row.tx_hash,
    created_at: readTime(row.created_at).toISOString(),
    updated_at: readTime(row.updated_at).toISOString(),
    expires_at: readTime(row.expires_at).toISOString(),
  };
}
