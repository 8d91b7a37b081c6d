/**
 * Signed actions (docs/wallet-integration.md §3): a NIP-98 event with `nonce`, `purpose` and
 * `descriptor` tags, sent as `{ nostr_token, nonce }` in the JSON body.
 * @module
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { NostrEvent, NostrSigner } from '../signer.js';
import { sha256Hex } from './bytes.js';
import { trimService } from '../service-url.js';
import { buildNip98Event } from './nip98.js';

/** Every signed-action purpose the server verifies. */
export const SIGNED_ACTION_PURPOSES = {
  nostrLink: 'nostr_link',
  nostrRegister: 'nostr_register',
  erasureRequest: 'erasure_request',
  erasureConfirm: 'erasure_confirm',
  erasureCancel: 'erasure_cancel',
  erasureExport: 'erasure_export',
  adminLogin: 'admin_login',
} as const;
/** One of {@link SIGNED_ACTION_PURPOSES}. */
export type SignedActionPurpose = (typeof SIGNED_ACTION_PURPOSES)[keyof typeof SIGNED_ACTION_PURPOSES];

/** The request a signed action is bound to. */
export interface RequestDescriptor {
  /** Upper-cased before hashing, as the server does. */
  method: string;
  /** The full path including `/api/v1`, e.g. `/api/v1/auth/nostr/link`. */
  path: string;
  /** The query string without `?`; empty (default) for none. */
  query?: string;
  /** The bound bytes; empty (default) for every purpose defined so far (NOT the JSON body). */
  body?: string | Uint8Array;
}

/** `METHOD "\n" PATH "\n" QUERY "\n" sha256hex(BODY)`: the canonical text, no trailing newline. */
export function requestDescriptorText(descriptor: RequestDescriptor): string {
  const body = descriptor.body === undefined ? new Uint8Array() : typeof descriptor.body === 'string' ? utf8ToBytes(descriptor.body) : descriptor.body;
  return [descriptor.method.toUpperCase(), descriptor.path, descriptor.query ?? '', sha256Hex(body)].join('\n');
}

/** The `descriptor` tag: lower-case hex SHA-256 of {@link requestDescriptorText}. */
export function requestDescriptorHash(descriptor: RequestDescriptor): string {
  return sha256Hex(requestDescriptorText(descriptor));
}

/** What {@link buildSignedAction} signs. */
export interface SignedActionInput extends RequestDescriptor {
  signer: NostrSigner;
  /** The server's PUBLIC_API_URL (without `/api/v1`); trailing slashes are dropped. */
  service: string;
  /** The 64-hex nonce from the purpose's challenge endpoint (single use, 5 minutes). */
  nonce: string;
  purpose: SignedActionPurpose;
  /** The event's `created_at`: a Date or Unix seconds (within 60 s of the server clock). Default: now. */
  createdAt?: Date | number;
}

/** A signed action: the JSON body fields the server takes, and the event. */
export interface SignedActionProof {
  /** base64 of the event JSON (no `Nostr ` prefix). */
  nostr_token: string;
  nonce: string;
  event: NostrEvent;
}

/**
 * Signs a signed action with tags `u` (= service + path [+ `?query`]), `method`, `nonce`,
 * `purpose`, `descriptor`, each once and in that order, and no `payload` (the descriptor binds
 * the bytes). The server checks the signature, the 60-s window, `u`, `method`, the nonce's
 * purpose and subject, and the descriptor, then consumes the nonce.
 */
export async function buildSignedAction(input: SignedActionInput): Promise<SignedActionProof> {
  if (!/^[0-9a-f]{64}$/.test(input.nonce)) throw new TypeError('a signed action’s nonce is the 64 lower-case hex its challenge endpoint gave');
  if (!input.path.startsWith('/api/v1/') || /[?#\s]/.test(input.path)) throw new TypeError('a signed action’s path is the full /api/v1/… path, without query or fragment');
  const method = input.method.toUpperCase();
  const query = input.query ?? '';
  const url = `${trimService(input.service)}${input.path}${query === '' ? '' : `?${query}`}`;
  const descriptor = requestDescriptorHash({ method, path: input.path, query, body: input.body });
  const proof = await buildNip98Event({
    signer: input.signer,
    url,
    method,
    extraTags: [['nonce', input.nonce], ['purpose', input.purpose], ['descriptor', descriptor]],
    createdAt: input.createdAt,
  });
  return { nostr_token: proof.token, nonce: input.nonce, event: proof.event };
}

/** The request body of a signed action: `{ nostr_token, nonce }`. */
export function signedActionBody(proof: SignedActionProof): { nostr_token: string; nonce: string } {
  return { nostr_token: proof.nostr_token, nonce: proof.nonce };
}
