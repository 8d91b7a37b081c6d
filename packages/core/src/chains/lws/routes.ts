import { defineRoute, type AnyRoute } from '../../http/index.js';
import {
  confirmationsRequest,
  confirmationsResponse,
  heightResponse,
  lwsAssetRequest,
  lwsBalanceResponse,
  lwsHistoryResponse,
  okResponse,
  randomOutsRequest,
  randomOutsResponse,
  registerRequest,
  submitRequest,
  unspentOutsResponse,
  viewRequest,
} from './schemas.js';
import type { LwsChainService } from './service.js';

const statuses = { 400: 'Invalid or disabled asset, address, view key or transaction', 503: 'The light-wallet server or daemon is unavailable' };
const errors = ['chain_disabled', 'address_invalid', 'view_key_mismatch', 'lws_refused', 'lws_unavailable', 'daemon_unavailable'];
const common = { method: 'POST' as const, tags: ['xmr/wow'], auth: 'bearer' as const, statuses, errors };

export function lwsRoutes(service: LwsChainService): AnyRoute[] {
  return [
    defineRoute({ ...common, path: '/wallet/lws/register', operationId: 'registerLwsAccount', summary: 'Register a view-only account at the light-wallet server (idempotent)', body: registerRequest, response: okResponse, handler: ({ body }) => service.register(body.asset, body.address, body.view_key, body.start_height) }),
    defineRoute({ ...common, path: '/wallet/lws/balance', operationId: 'getLwsBalance', summary: 'Balance and scan state (atomic units, strings)', body: viewRequest, response: lwsBalanceResponse, handler: ({ body }) => service.balance(body.asset, body.address, body.view_key) }),
    defineRoute({ ...common, path: '/wallet/lws/history', operationId: 'getLwsHistory', summary: 'Confirmed and mempool transactions', body: viewRequest, response: lwsHistoryResponse, handler: ({ body }) => service.history(body.asset, body.address, body.view_key) }),
    defineRoute({ ...common, path: '/wallet/lws/unspent_outs', operationId: 'getLwsUnspentOutputs', summary: 'Unspent outputs and fee parameters', body: viewRequest, response: unspentOutsResponse, handler: ({ body }) => service.unspentOuts(body.asset, body.address, body.view_key) }),
    defineRoute({ ...common, path: '/wallet/lws/random_outs', operationId: 'getLwsRandomOutputs', summary: 'Decoy outputs for ring construction', body: randomOutsRequest, response: randomOutsResponse, handler: ({ body }) => service.randomOuts(body.asset, body.count, body.amounts) }),
    defineRoute({ ...common, path: '/wallet/lws/submit_tx', operationId: 'submitLwsTransaction', errors: [...errors, 'tx_invalid', 'tx_rejected'], summary: 'Submit a signed transaction', body: submitRequest, response: okResponse, handler: ({ body }) => service.submit(body.asset, body.tx) }),
    defineRoute({ ...common, path: '/wallet/lws/height', operationId: 'getLwsHeight', summary: 'Daemon chain height', body: lwsAssetRequest, response: heightResponse, handler: ({ body }) => service.height(body.asset) }),
    defineRoute({ ...common, path: '/wallet/lws/confirmations', operationId: 'getLwsConfirmations', summary: 'Confirmations of a transaction', body: confirmationsRequest, response: confirmationsResponse, handler: ({ body }) => service.confirmations(body.asset, body.txid) }),
  ];
}
