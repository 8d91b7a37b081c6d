import { defineRoute, type AnyRoute } from '../../http/index.js';
import { chainErrors } from '../errors.js';
import { grinBroadcastRequest, grinBroadcastResponse, grinHeightResponse, grinScanRequest, grinScanResponse } from './schemas.js';
import type { GrinChainService } from './service.js';

const UNAVAILABLE = { 503: 'The Grin node is unavailable (`grin_node_unavailable`)' };

/** The Grin routes; with no node configured they answer 400 `chain_disabled` and call nothing. */
export function grinRoutes(service: GrinChainService | null): AnyRoute[] {
  const enabled = (): GrinChainService => {
    if (service === null) throw chainErrors.create.chain_disabled();
    return service;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/wallet/grin/height',
      operationId: 'getGrinHeight',
      errors: ['chain_disabled', 'grin_node_unavailable'],
      summary: 'Grin chain tip height',
      tags: ['grin'],
      auth: 'bearer',
      response: grinHeightResponse,
      statuses: { 400: 'Grin is not enabled', ...UNAVAILABLE },
      handler: () => enabled().height(),
    }),
    defineRoute({
      method: 'POST',
      path: '/wallet/grin/scan',
      operationId: 'scanGrinOutputs',
      errors: ['chain_disabled', 'grin_node_unavailable'],
      summary: 'View-only scan of one page of the output set with a rewind hash',
      description: 'Rewinds each unspent output of the page with the rewind hash; returns the outputs it opens, their balance, and `next_index` to continue from until `complete`. The rewind hash is not stored.',
      tags: ['grin'],
      auth: 'bearer',
      body: grinScanRequest,
      response: grinScanResponse,
      statuses: { 400: 'Invalid rewind hash or Grin not enabled', ...UNAVAILABLE },
      handler: ({ body }) => enabled().scan(body),
    }),
    defineRoute({
      method: 'POST',
      path: '/wallet/grin/broadcast',
      operationId: 'broadcastGrinTransaction',
      errors: ['chain_disabled', 'grin_node_unavailable', 'grin_tx_rejected'],
      summary: 'Broadcast a finalized Grin transaction',
      tags: ['grin'],
      auth: 'bearer',
      body: grinBroadcastRequest,
      response: grinBroadcastResponse,
      statuses: { 400: 'Malformed transaction, rejected by the node, or Grin not enabled', ...UNAVAILABLE },
      handler: ({ body }) => enabled().broadcast(body.tx, body.fluff),
    }),
  ];
}
