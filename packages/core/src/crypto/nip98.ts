/**
 * NIP-98 HTTP auth: `Authorization: Nostr <base64(event)>`, a kind-27235 event signed with
 * BIP-340 Schnorr that names the request's absolute URL (`u`) and method (`method`), and for a
 * request with a body, `payload` = hex SHA-256 of the exact body bytes.
 *
 * Verified from the wire every time (docs/architecture.md#verified-from-the-wire): the event id is recomputed from the decoded
 * fields (NIP-01 serialisation), never trusted; the URL is the server's canonical one, never
 * the Host header; time comes from the caller's clock. Deliberately stricter than nostr-tools'
 * `validateEvent`: a request with a body MUST carry a matching `payload` tag.
 * @see https://github.com/nostr-protocol/nips/blob/master/98.md
 * @module
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export const NIP98_KIND = 27235;
/** Accepted distance between `created_at` and the verifier's clock (NIP-98 suggests 60 s). */
export const NIP98_WINDOW_SEC = 60;

export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

export interface Nip98Request {
  /** The raw Authorization header value. */
  authorization: string | undefined;
  /** The canonical absolute URL the request was for (PUBLIC_API_URL + path [+ query]). */
  url: string;
  method: string;
  /** The exact request body bytes (empty when there is none). */
  body: Uint8Array;
  now: Date;
}

export type Nip98Result = { ok: true; pubkey: string; event: NostrEvent } | { ok: false; reason: string };

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;
const HEADER = /^Nostr ([A-Za-z0-9+/]+={0,2})$/;
const MAX_HEADER = 16_384;

/** Only well-formed events pass: every field present, of its type, in its form. */
function asEvent(value: unknown): NostrEvent | null {
  const e = value as Partial<NostrEvent> | null;
  if (typeof e !== 'object' || e === null) return null;
  if (typeof e.id !== 'string' || !HEX64.test(e.id)) return null;
  if (typeof e.pubkey !== 'string' || !HEX64.test(e.pubkey)) return null;
  if (typeof e.sig !== 'string' || !HEX128.test(e.sig)) return null;
  if (!Number.isSafeInteger(e.created_at) || !Number.isSafeInteger(e.kind)) return null;
  if (typeof e.content !== 'string') return null;
  if (!Array.isArray(e.tags) || !e.tags.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === 'string'))) return null;
  return e as NostrEvent;
}

/** NIP-01: id = sha256 of the JSON array [0, pubkey, created_at, kind, tags, content], no whitespace. */
export function nostrEventId(event: Omit<NostrEvent, 'id' | 'sig'>): string {
  return bytesToHex(sha256(utf8ToBytes(JSON.stringify([0, event.pubkey, event.created_at, event.kind, event.tags, event.content]))));
}

function tagValue(event: NostrEvent, name: string): string | undefined {
  const matches = event.tags.filter((tag) => tag[0] === name);
  // A repeated tag is ambiguous: refuse rather than pick one.
  return matches.length === 1 ? matches[0]![1] : undefined;
}

/** Decodes and checks a NIP-98 header against the request; never throws. */
export function verifyNip98(request: Nip98Request): Nip98Result {
  try {
    const header = request.authorization ?? '';
    if (header.length > MAX_HEADER) return { ok: false, reason: 'authorization header too long' };
    const encoded = HEADER.exec(header)?.[1];
    if (encoded === undefined) return { ok: false, reason: 'not a Nostr authorization header' };
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch {
      return { ok: false, reason: 'authorization is not base64 JSON' };
    }
    const event = asEvent(decoded);
    if (event === null) return { ok: false, reason: 'malformed event' };
    if (event.kind !== NIP98_KIND) return { ok: false, reason: 'wrong kind' };
    if (nostrEventId(event) !== event.id) return { ok: false, reason: 'event id does not match its content' };
    if (!schnorr.verify(hexToBytes(event.sig), hexToBytes(event.id), hexToBytes(event.pubkey))) return { ok: false, reason: 'bad signature' };
    const nowSec = Math.floor(request.now.getTime() / 1000);
    if (Math.abs(nowSec - event.created_at) > NIP98_WINDOW_SEC) return { ok: false, reason: 'created_at outside the accepted window' };
    if (tagValue(event, 'u') !== request.url) return { ok: false, reason: 'url does not match' };
    if (tagValue(event, 'method')?.toUpperCase() !== request.method.toUpperCase()) return { ok: false, reason: 'method does not match' };
    const payload = tagValue(event, 'payload');
    const bodyHash = bytesToHex(sha256(request.body));
    if (request.body.length > 0 && payload === undefined) return { ok: false, reason: 'payload tag required for a request with a body' };
    if (payload !== undefined && payload.toLowerCase() !== bodyHash) return { ok: false, reason: 'payload does not match the body' };
    return { ok: true, pubkey: event.pubkey, event };
  } catch {
    return { ok: false, reason: 'verification failed' };
  }
}
