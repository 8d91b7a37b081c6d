import { randomUUID } from 'node:crypto';

/** What a client's `X-Request-Id` may be to be kept: lets a proxy's id flow through without letting clients inject log noise. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** The spec's request-id rule: the client's `X-Request-Id` when it is 8 to 128 characters of `A-Za-z0-9._-`, otherwise a new UUID. */
export function requestIdFrom(incoming: unknown): string {
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
