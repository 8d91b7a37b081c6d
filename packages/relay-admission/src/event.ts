import type { NostrEvent } from '@wallet/backend-core';

/** A NIP-01 event as relays pass it on (core's type). */
export type { NostrEvent };

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/** Why `value` is not a NIP-01 event (lower-case hex, integer kind and time, string tags), or null when it is one. */
export const isPubkeyHex = (value: string) => HEX64.test(value);

export function eventShapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an event object';
  const event = value as Record<string, unknown>;
  if (typeof event.id !== 'string' || !HEX64.test(event.id)) return 'id must be 64 lower-case hex characters';
  if (typeof event.pubkey !== 'string' || !HEX64.test(event.pubkey)) return 'pubkey must be 64 lower-case hex characters';
  if (typeof event.sig !== 'string' || !HEX128.test(event.sig)) return 'sig must be 128 lower-case hex characters';
  if (typeof event.kind !== 'number' || !Number.isInteger(event.kind) || event.kind < 0 || event.kind > 65_535) return 'kind must be a whole number from 0 to 65535';
  if (typeof event.created_at !== 'number' || !Number.isSafeInteger(event.created_at) || event.created_at < 0) return 'created_at must be a whole number of seconds';
  if (typeof event.content !== 'string') return 'content must be a string';
  if (!Array.isArray(event.tags) || !event.tags.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === 'string'))) return 'tags must be arrays of strings';
  return null;
}

/** The values of an event's `p` tags (pubkeys, if well formed). */
export function taggedPubkeys(event: NostrEvent): string[] {
  return event.tags.filter((tag) => tag[0] === 'p' && typeof tag[1] === 'string').map((tag) => tag[1]!);
}
