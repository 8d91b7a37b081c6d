import { trimService } from '../service-url.js';
import { apiErrorOf } from './errors.js';

/**
 * Erasure and export are kept out of the public OpenAPI document (spec), so their types are
 * written here by hand; test/client/http.test.ts holds them to what the server answers.
 */
export type ErasurePurpose = 'erasure_request' | 'erasure_confirm' | 'erasure_cancel' | 'erasure_export';

export interface ErasureChallenge {
  nonce: string;
  purpose: ErasurePurpose;
  expires_at: string;
}

/** A signed action for erasure: the NIP-98 event, base64, and the nonce it binds. */
export interface ErasureProof {
  nostr_token: string;
  nonce: string;
}

export interface ErasureState {
  erasure_id: string;
  status: string;
  /** An unconfirmed request expires at this time. */
  confirm_by: string | null;
  /** A confirmed request is carried out at this time; it may be cancelled until then. */
  due_at: string | null;
}

export interface AccountExport {
  format: 'wallet-backend-export/1';
  exported_at: string;
  /** One section per owner (`core`, then each plugin). */
  sections: Record<string, Record<string, unknown>>;
}

export interface ErasureApi {
  challenge(purpose: ErasurePurpose): Promise<ErasureChallenge>;
  request(proof: ErasureProof): Promise<ErasureState>;
  confirm(erasureId: string, proof: ErasureProof): Promise<ErasureState>;
  cancel(erasureId: string, proof: ErasureProof): Promise<ErasureState>;
  exportAccount(proof: ErasureProof): Promise<AccountExport>;
}

/** The erasure and export routes (`/api/v1/account/…`); each answer or a thrown `WalletApiError`. Proof-gated: no session token is sent. */
export function erasureApi(options: { baseUrl: string; fetch?: typeof globalThis.fetch }): ErasureApi {
  const base = `${trimService(options.baseUrl)}/api/v1/account`;
  const send = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const response = await (options.fetch ?? globalThis.fetch)(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw apiErrorOf(response, parsed);
    return parsed as T;
  };
  const id = (erasureId: string) => encodeURIComponent(erasureId);
  return {
    challenge: (purpose) => send('POST', '/erasure/challenge', { purpose }),
    request: (proof) => send('POST', '/erasure', proof),
    confirm: (erasureId, proof) => send('POST', `/erasure/${id(erasureId)}/confirm`, proof),
    cancel: (erasureId, proof) => send('DELETE', `/erasure/${id(erasureId)}`, proof),
    exportAccount: (proof) => send('POST', '/export', proof),
  };
}
