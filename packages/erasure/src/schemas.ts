import * as v from 'valibot';
import { nextAfterField, pageQuery } from '@wallet/backend-core';
import { ERASURE_STATUSES, PURPOSES } from './request.js';

const timestamp = v.pipe(v.string(), v.isoTimestamp());

export const challengeRequest = v.strictObject({
  /** The action the nonce is for: erasure_request, erasure_confirm, erasure_cancel or erasure_export. */
  purpose: v.picklist(PURPOSES, `purpose must be one of ${PURPOSES.join(', ')}`),
});
export const challengeResponse = v.object({ nonce: v.string(), purpose: v.string(), expires_at: timestamp });

/** A signed action: the NIP-98 event (base64) and the nonce it binds. */
export const proofRequest = v.strictObject({
  nostr_token: v.pipe(v.string('nostr_token must be a string'), v.minLength(1, 'nostr_token must not be empty'), v.maxLength(16_384, 'nostr_token is too long')),
  nonce: v.pipe(v.string('nonce must be a string'), v.regex(/^[0-9a-f]{64}$/, 'nonce must be the 64-hex nonce')),
});

export const erasureIdParams = v.object({
  erasure_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'erasure_id must be a lower-case UUID')),
});

export const erasureResponse = v.object({
  erasure_id: v.string(),
  status: v.string(),
  /** An unconfirmed request expires at this time. */
  confirm_by: v.nullable(timestamp),
  /** A confirmed request is carried out at this time; cancel is allowed until then. */
  due_at: v.nullable(timestamp),
});

export const exportResponse = v.object({
  format: v.literal('wallet-backend-export/1'),
  exported_at: timestamp,
  /** One section per owner (`core`, then each plugin), in a stable order. */
  sections: v.record(v.string(), v.record(v.string(), v.unknown())),
});

export const stuckResponse = v.object({
  requests: v.array(
    v.object({
      erasure_id: v.string(),
      due_at: timestamp,
      overdue_sec: v.number(),
      attempts: v.number(),
      last_error: v.nullable(v.string()),
    }),
  ),
});

export const adminRequestsQuery = v.object({
  state: v.picklist(ERASURE_STATUSES, `state must be one of ${ERASURE_STATUSES.join(', ')}`),
  /** `limit` and `after`, as every admin list (core's http/paging.ts). */
  ...pageQuery,
});

const adminRequest = v.pipe(
  v.object({
    erasure_id: v.string(),
    status: v.picklist(ERASURE_STATUSES),
    /** The account's id while it exists; null once the erasure completed (the tombstone names no one). */
    user_id: v.nullable(v.string()),
    requested_at: timestamp,
    confirmed_at: v.nullable(timestamp),
    due_at: v.nullable(timestamp),
    completed_at: v.nullable(timestamp),
    cancelled_at: v.nullable(timestamp),
    expired_at: v.nullable(timestamp),
    /** Failed sweeper attempts (each rolled back). */
    attempts: v.number(),
    last_error: v.nullable(v.string()),
  }),
  v.title('AdminErasureRequest'),
);

export const adminRequestsResponse = v.pipe(
  v.object({
    requests: v.array(adminRequest),
    /** Pass as `after` for the next page; null on the last page. */
    next_after: nextAfterField,
  }),
  v.title('AdminErasureRequests'),
);

export const sweepRunResponse = v.pipe(
  v.object({
    /** The sweeper's last finished run; every run field is null when none has finished on this database. */
    started_at: v.nullable(timestamp),
    finished_at: v.nullable(timestamp),
    /** Confirmed requests due when the run started. */
    due_found: v.nullable(v.number()),
    completed: v.nullable(v.number()),
    failed: v.nullable(v.number()),
    /** Unconfirmed requests it expired. */
    expired: v.nullable(v.number()),
    /** The earliest due time of a confirmed request now (in the past: due, or stuck); null when none is confirmed. */
    next_due_at: v.nullable(timestamp),
  }),
  v.title('AdminErasureSweep'),
);

export type ProofRequest = v.InferOutput<typeof proofRequest>;
export type ErasureResponse = v.InferOutput<typeof erasureResponse>;
export type ExportResponse = v.InferOutput<typeof exportResponse>;
export type StuckResponse = v.InferOutput<typeof stuckResponse>;
export type AdminRequestsQuery = v.InferOutput<typeof adminRequestsQuery>;
export type AdminRequestsResponse = v.InferOutput<typeof adminRequestsResponse>;
export type SweepRunResponse = v.InferOutput<typeof sweepRunResponse>;
