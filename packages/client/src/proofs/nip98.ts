/**
 * NIP-98 HTTP auth events (docs/wallet-integration.md §2): kind 27235, tags `u` (the server's
 * PUBLIC_API_URL + path, never the host you connected to), `method`, and `payload` (SHA-256 hex of
 * the body) when a body is sent; sent as `Authorization: Nostr <base64(event JSON)>`.
 * @module
 */
import type { NostrEvent, NostrEventTemplate, NostrSigner } from '../signer.js';
import { verifyEvent } from 'nostr-tools/pure';
import { base64OfText, sha256Hex, unixSeconds } from './bytes.js';
import { trimService } from '../service-url.js';

/** The event kind of NIP-98 HTTP auth and of signed actions. */
export const NIP98_KIND = 27235;

/** A NIP-98 event signed by a {@link NostrSigner}, with the header value to send. */
export interface Nip98Proof {
  event: NostrEvent;
  /** `Nostr <base64 of the event JSON>`: the `Authorization` header value. */
  authorization: string;
  /** The base64 alone (what signed actions send as `nostr_token`). */
  token: string;
}

/** What {@link buildNip98Event} signs. */
export interface Nip98Input {
  signer: NostrSigner;
  /** The absolute URL the server checks byte for byte: PUBLIC_API_URL + `/api/v1/…` (+ `?query`). */
  url: string;
  /** HTTP method; the server compares it case-insensitively, it is sent as given. */
  method: string;
  /** The exact request body; when given, a `payload` tag carries its SHA-256 hex (strings hash as UTF-8). */
  body?: string | Uint8Array;
  /** Further tags, appended after `u`, `method` (and `payload`), in this order. */
  extraTags?: string[][];
  /** The event's `created_at`: a Date or Unix seconds, within 60 s of the server clock. Default: now. */
  createdAt?: Date | number;
}

/** `Nostr <base64(UTF-8 JSON of the event)>`, standard base64 with padding, as the server decodes it. */
export function nip98Token(event: NostrEvent): string {
  return base64OfText(JSON.stringify(event));
}

/**
 * Signs a NIP-98 event with tags in the order the docs use (`u`, `method`, then `payload` if a
 * body is sent, then `extraTags`) and encodes it. The server refuses a repeated `u`, `method` or
 * `payload`, a `created_at` more than 60 s off, and a `u` that differs from its configured URL.
 * Throws when the signer returns an event that is not the one it was asked to sign, or not
 * validly signed by the key its `getPublicKey()` reports.
 */
export async function buildNip98Event(input: Nip98Input): Promise<Nip98Proof> {
  const tags: string[][] = [['u', input.url], ['method', input.method]];
  if (input.body !== undefined) tags.push(['payload', sha256Hex(input.body)]);
  for (const tag of input.extraTags ?? []) tags.push([...tag]);
  const template: NostrEventTemplate = { kind: NIP98_KIND, tags, created_at: unixSeconds(input.createdAt), content: '' };
  const pubkey = (await input.signer.getPublicKey()).toLowerCase();
  const event = await input.signer.signEvent(template);
  if (event.kind !== template.kind || event.created_at !== template.created_at || event.content !== template.content || JSON.stringify(event.tags) !== JSON.stringify(template.tags)) {
    throw new Error('the Nostr signer changed the event it was asked to sign');
  }
  // A signer that signs with another key than it reports (a multi-account extension) would have a BTC key vouch for a stranger's npub (merge proofs).
  if (event.pubkey !== pubkey || !verifyEvent({ ...event })) throw new Error('the Nostr signer returned an event not validly signed by the key it reports');
  const token = nip98Token(event);
  return { event, token, authorization: `Nostr ${token}` };
}

/** What {@link buildNostrLogin} needs. */
export interface NostrLoginInput {
  signer: NostrSigner;
  /** The server's PUBLIC_API_URL (without `/api/v1`), exactly as the operator configured it. */
  service: string;
  /** The event's `created_at`: a Date or Unix seconds (within 60 s of the server clock). Default: now. */
  createdAt?: Date | number;
}

/** The login path NIP-98 events for `POST /api/v1/auth/nostr` name. */
export const NOSTR_LOGIN_PATH = '/api/v1/auth/nostr';

/**
 * The `Authorization` header for `POST /api/v1/auth/nostr` (send no body): a kind-27235 event
 * with tags `["u", "<service>/api/v1/auth/nostr"]`, `["method", "POST"]`. Each event logs in
 * once; a second login in the same second needs a later `createdAt`.
 */
export async function buildNostrLogin(input: NostrLoginInput): Promise<Nip98Proof> {
  return buildNip98Event({ signer: input.signer, url: `${trimService(input.service)}${NOSTR_LOGIN_PATH}`, method: 'POST', createdAt: input.createdAt });
}
