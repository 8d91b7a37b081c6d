/**
 * Account erasure and export (docs/erasure.md): signed actions with the nonce of
 * `POST /api/v1/account/erasure/challenge {"purpose"}`, sent as `{nostr_token, nonce}`.
 * @module
 */
import type { NostrSigner } from '../signer.js';
import { buildSignedAction, SIGNED_ACTION_PURPOSES, type SignedActionPurpose } from './signed-action.js';

/** The erasure actions, the purpose each nonce is issued for, and the request each is bound to. */
export type ErasureAction = 'request' | 'confirm' | 'cancel' | 'export';

/** Where each erasure action is sent: method and full path (`erasureId` for confirm and cancel). */
export function erasureActionTarget(action: ErasureAction, erasureId?: string): { method: 'POST' | 'DELETE'; path: string; purpose: SignedActionPurpose } {
  const needId = (): string => {
    if (erasureId === undefined || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(erasureId)) throw new Error(`erasure ${action} needs the lower-case erasure_id`);
    return erasureId;
  };
  switch (action) {
    case 'request':
      return { method: 'POST', path: '/api/v1/account/erasure', purpose: SIGNED_ACTION_PURPOSES.erasureRequest };
    case 'confirm':
      return { method: 'POST', path: `/api/v1/account/erasure/${needId()}/confirm`, purpose: SIGNED_ACTION_PURPOSES.erasureConfirm };
    case 'cancel':
      return { method: 'DELETE', path: `/api/v1/account/erasure/${needId()}`, purpose: SIGNED_ACTION_PURPOSES.erasureCancel };
    case 'export':
      return { method: 'POST', path: '/api/v1/account/export', purpose: SIGNED_ACTION_PURPOSES.erasureExport };
  }
}

/** What {@link buildErasureProof} needs. */
export interface ErasureProofInput {
  signer: NostrSigner;
  service: string;
  action: ErasureAction;
  /** The nonce issued for this action's purpose. */
  nonce: string;
  /** For `confirm` and `cancel`: the request's `erasure_id`. */
  erasureId?: string;
  /** The event's `created_at`: a Date or Unix seconds (within 60 s of the server clock). Default: now. */
  createdAt?: Date | number;
}

/**
 * `{nostr_token, nonce}` for an erasure action: request (`POST /account/erasure`), confirm
 * (`POST /account/erasure/{id}/confirm`), cancel (`DELETE /account/erasure/{id}`) or export
 * (`POST /account/export`); the descriptor binds method and path with an empty body. The
 * account is the one whose linked npub signs.
 */
export async function buildErasureProof(input: ErasureProofInput): Promise<{ nostr_token: string; nonce: string }> {
  const target = erasureActionTarget(input.action, input.erasureId);
  const proof = await buildSignedAction({ signer: input.signer, service: input.service, nonce: input.nonce, createdAt: input.createdAt, ...target });
  return { nostr_token: proof.nostr_token, nonce: proof.nonce };
}
