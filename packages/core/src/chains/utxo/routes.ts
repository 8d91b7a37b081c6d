import { defineRoute, type AnyRoute } from '../../http/index.js';
import {
  addressRequest,
  assetRequest,
  balanceResponse,
  broadcastRequest,
  broadcastResponse,
  feeRequest,
  feeResponse,
  historyResponse,
  tipResponse,
  utxosResponse,
} from './schemas.js';
import type { UtxoChainService } from './service.js';

const statuses = { 400: 'Invalid or disabled asset, invalid address or transaction hex', 503: 'The chain upstream is unavailable' };
const errors = ['chain_disabled', 'address_invalid', 'esplora_unavailable', 'electrum_unavailable'];
const common = { method: 'POST' as const, tags: ['btc/ltc'], auth: 'bearer' as const, statuses, errors };

export function utxoRoutes(service: UtxoChainService): AnyRoute[] {
  return [
    defineRoute({ ...common, path: '/wallet/utxo/balance', operationId: 'getUtxoBalance', summary: 'Confirmed and unconfirmed balance of an address (satoshis)', body: addressRequest, response: balanceResponse, handler: ({ body }) => service.balance(body.asset, body.address) }),
    defineRoute({ ...common, path: '/wallet/utxo/history', operationId: 'getUtxoHistory', summary: 'Confirmed and mempool transactions of an address', body: addressRequest, response: historyResponse, handler: ({ body }) => service.history(body.asset, body.address) }),
    defineRoute({ ...common, path: '/wallet/utxo/utxos', operationId: 'listUtxos', summary: 'Unspent outputs of an address', body: addressRequest, response: utxosResponse, handler: ({ body }) => service.utxos(body.asset, body.address) }),
    defineRoute({ ...common, path: '/wallet/utxo/fee', operationId: 'estimateUtxoFee', summary: 'Fee rate (sat/vB) to confirm within `blocks`', body: feeRequest, response: feeResponse, handler: ({ body }) => service.fee(body.asset, body.blocks) }),
    defineRoute({ ...common, path: '/wallet/utxo/tip', operationId: 'getUtxoTip', summary: 'Best-chain tip height', body: assetRequest, response: tipResponse, handler: ({ body }) => service.tip(body.asset) }),
    defineRoute({ ...common, path: '/wallet/utxo/broadcast', operationId: 'broadcastUtxoTransaction', errors: [...errors, 'tx_invalid', 'tx_rejected'], summary: 'Broadcast a signed transaction', body: broadcastRequest, response: broadcastResponse, handler: ({ body }) => service.broadcast(body.asset, body.tx_hex) }),
  ];
}
