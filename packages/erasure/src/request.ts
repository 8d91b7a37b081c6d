/** Erasure request states. `requested` and `confirmed` are live (one per user, a database constraint). */
export const ERASURE_STATUS = {
  requested: 'requested',
  confirmed: 'confirmed',
  cancelled: 'cancelled',
  expired: 'expired',
  completed: 'completed',
} as const;
export type ErasureStatus = (typeof ERASURE_STATUS)[keyof typeof ERASURE_STATUS];
export const ERASURE_STATUSES = Object.values(ERASURE_STATUS);
export const LIVE_STATUSES: readonly ErasureStatus[] = [ERASURE_STATUS.requested, ERASURE_STATUS.confirmed];

/** Signed-action purposes (spec › Authentication 4). */
export const PURPOSE = {
  request: 'erasure_request',
  confirm: 'erasure_confirm',
  cancel: 'erasure_cancel',
  export: 'erasure_export',
} as const;
export type ErasurePurpose = (typeof PURPOSE)[keyof typeof PURPOSE];
export const PURPOSES = Object.values(PURPOSE);
