import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ChallengeStore } from '../challenges/index.js';
import type { Clock } from '../clock/index.js';
import { verifyNip98, type NostrEvent } from '../crypto/index.js';
import { coreErrors } from '../errors/index.js';
import { API_PREFIX } from '../http/index.js';
import type { Executor } from '../storage/index.js';

/** The request a signed action is bound to; the body is NOT the JSON request body unless a purpose says so. */
export interface RequestDescriptor {
  method: string;
  /** The full path as sent, including `/api/v1` (`/api/v1/auth/nostr/link`). */
  path: string;
  /** The query string without `?`; empty for none. */
  query?: string;
  /** Bytes the action binds; empty for the purposes defined so far. */
  body?: Uint8Array;
}

export interface SignedActionInput {
  /** The NIP-98 event, base64 (a leading `Nostr ` is tolerated). */
  token: string;
  nonce: string;
  purpose: string;
  /** Core-relative path (`/auth/nostr/link`); the descriptor and `u` tag use the `/api/v1` form. */
  path: string;
  method?: string;
  query?: string;
  body?: Uint8Array;
  /** The subject the nonce was issued for (the caller's user id), or null for a subject-less nonce. */
  subject?: string | null;
  /** Run the nonce consumption inside the caller's transaction. */
  executor?: Executor;
  /**
   * A further proof bound to this action (a second signature over its key and nonce), checked
   * after the action's own checks and before the nonce is consumed: a throw burns nothing.
   */
  alsoCheck?: (action: SignedAction) => void;
}

export interface SignedAction {
  /** The proving key: 64-hex x-only secp256k1 public key (the npub's bytes). */
  pubkey: string;
  event: NostrEvent;
}

/**
 * The canonical descriptor, hashed into the event's `descriptor` tag:
 * `sha256hex(METHOD "\n" PATH "\n" QUERY "\n" sha256hex(BODY))`, UTF-8, no trailing newline.
 */
export function requestDescriptorHash(descriptor: RequestDescriptor): string {
  const canonical = [descriptor.method.toUpperCase(), descriptor.path, descriptor.query ?? '', bytesToHex(sha256(descriptor.body ?? new Uint8Array()))].join('\n');
  return bytesToHex(sha256(utf8ToBytes(canonical)));
}

function singleTag(event: NostrEvent, name: string): string | undefined {
  const matches = event.tags.filter((tag) => tag[0] === name);
  return matches.length === 1 ? matches[0]![1] : undefined;
}

/**
 * Verifies signed actions (spec › Authentication 4): a NIP-98 event (kind 27235, `u` =
 * PUBLIC_API_URL + `/api/v1` + path, `method`, `created_at` within 60 s of the injected clock)
 * that also carries `nonce`, `purpose` and `descriptor` tags. The nonce is consumed only AFTER
 * every signature and binding check passed, so a forged or mis-bound proof burns nothing; the
 * consumption is one atomic delete (replay, expiry, wrong purpose or other subject → 401).
 * One verifier for every purpose: Nostr link/register, erasure, admin.
 */
/** Signed-action verification as features and plugins call it; `SignedActionVerifier` implements it. */
export type SignedActions = Pick<SignedActionVerifier, 'verify'>;

export class SignedActionVerifier {
  constructor(
    private readonly publicApiUrl: string,
    private readonly challenges: ChallengeStore,
    private readonly clock: Clock,
  ) {}

  async verify(input: SignedActionInput): Promise<SignedAction> {
    const method = input.method ?? 'POST'; // NIP-98 and the descriptor hash both compare methods case-insensitively
    const fullPath = `${API_PREFIX}${input.path}`;
    const query = input.query ?? '';
    const token = input.token.replace(/^Nostr\s+/, '');
    const url = `${this.publicApiUrl.replace(/\/+$/, '')}${fullPath}${query === '' ? '' : `?${query}`}`;
    // The action's bound body is in the descriptor, not in NIP-98's `payload`: the proof travels inside the JSON body.
    const checked = verifyNip98({ authorization: `Nostr ${token}`, url, method, body: new Uint8Array(), now: this.clock.now() });
    if (!checked.ok) throw coreErrors.create.signed_action_invalid({ message: `The signed proof is invalid: ${checked.reason}.` });
    const { event } = checked;
    if (singleTag(event, 'purpose') !== input.purpose) throw coreErrors.create.signed_action_invalid({ message: 'The signed proof is for another purpose.' });
    if (singleTag(event, 'nonce') !== input.nonce) throw coreErrors.create.signed_action_invalid({ message: 'The signed proof does not carry this nonce.' });
    const descriptor = requestDescriptorHash({ method, path: fullPath, query, body: input.body });
    if (singleTag(event, 'descriptor')?.toLowerCase() !== descriptor) {
      throw coreErrors.create.signed_action_invalid({ message: 'The signed proof is bound to another request.' });
    }
    const action = { pubkey: event.pubkey, event };
    input.alsoCheck?.(action);
    const consumed = await this.challenges.consume(input.nonce, input.purpose, { subject: input.subject ?? null, executor: input.executor });
    if (consumed === null) throw coreErrors.create.nonce_invalid();
    return action;
  }
}
