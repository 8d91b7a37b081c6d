import { defineRoute, type AnyRoute } from '@wallet/backend-core';
import { createRequest, finalizeRequest, pendingResponse, relayEntryResponse, respondRequest, slateIdRequest } from './schemas.js';
import type { RelayService } from './service.js';
import { MAX_SLATEPACK_BYTES } from './slatepack.js';

// Room for a 64 KiB slatepack whose newlines JSON escapes to two bytes each, plus the other fields.
const BODY_LIMIT = 2 * MAX_SLATEPACK_BYTES + 4_096;
const common = { tags: ['grin-relay'], auth: 'bearer' as const };
const NOT_PARTY = 'No such entry, or the caller is not one of its parties';

/** HTTP for the relay: translate, call the service, nothing else. */
export function relayRoutes(service: RelayService): AnyRoute[] {
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: '/wallet/grin/relay/create',
      operationId: 'createGrinRelay',
      errors: ['relay_recipient_unknown', 'relay_recipient_self', 'relay_slate_exists'],
      summary: 'Leave a slatepack for a registered recipient',
      body: createRequest,
      bodyLimitBytes: BODY_LIMIT,
      response: relayEntryResponse,
      statuses: { 400: 'Invalid input or unregistered recipient', 409: 'slate_id already used' },
      handler: ({ body, auth }) => service.create(auth.userId, body),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/wallet/grin/relay/pending',
      operationId: 'listPendingGrinRelays',
      summary: 'Entries awaiting the caller’s response (oldest first, at most 100)',
      response: pendingResponse,
      handler: async ({ auth }) => ({ relays: await service.pending(auth.userId) }),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/wallet/grin/relay/get',
      operationId: 'getGrinRelay',
      errors: ['relay_not_found'],
      summary: 'One entry the caller is a party to',
      body: slateIdRequest,
      response: relayEntryResponse,
      statuses: { 404: NOT_PARTY },
      handler: ({ body, auth }) => service.get(auth.userId, body.slate_id),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/wallet/grin/relay/respond',
      operationId: 'respondGrinRelay',
      errors: ['relay_not_found', 'relay_wrong_party', 'relay_expired', 'relay_not_awaiting_response'],
      summary: 'The recipient’s response slatepack (pending recipient → pending_sender)',
      body: respondRequest,
      bodyLimitBytes: BODY_LIMIT,
      response: relayEntryResponse,
      statuses: { 404: NOT_PARTY, 409: 'Not awaiting a response, expired, or the caller is the sender' },
      handler: ({ body, auth }) => service.respond(auth.userId, body.slate_id, body.response_slatepack),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/wallet/grin/relay/finalize',
      operationId: 'finalizeGrinRelay',
      errors: ['relay_not_found', 'relay_wrong_party', 'relay_expired', 'relay_not_awaiting_finalization'],
      summary: 'The sender records the finalized transaction hash (pending_sender → finalized)',
      body: finalizeRequest,
      response: relayEntryResponse,
      statuses: { 404: NOT_PARTY, 409: 'Not awaiting finalization, expired, or the caller is the recipient' },
      handler: ({ body, auth }) => service.finalize(auth.userId, body.slate_id, body.tx_hash),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/wallet/grin/relay/cancel',
      operationId: 'cancelGrinRelay',
      errors: ['relay_not_found', 'relay_finalized'],
      summary: 'Either party cancels an entry that is not finalized',
      body: slateIdRequest,
      response: relayEntryResponse,
      statuses: { 404: NOT_PARTY, 409: 'Already finalized' },
      handler: ({ body, auth }) => service.cancel(auth.userId, body.slate_id),
    }),
  ];
}
