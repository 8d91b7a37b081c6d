import * as v from 'valibot';
import { PURPOSES } from './request.js';

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

export type ProofRequest = v.InferOutput<typeof proofRequest>;
export type ErasureResponse = v.InferOutput<typeof erasureResponse>;
export type ExportResponse = v.InferOutput<typeof exportResponse>;
export type StuckResponse = v.InferOutput<typeof stuckResponse>;
