export type { UtxoBackend } from './backend.js';
export { EsploraClient } from './esplora.js';
export { UtxoChainService } from './service.js';
export { utxoRoutes } from './routes.js';
export { outputScriptOf, parseTransactionHex, utxoNetwork, type UtxoAsset } from './networks.js';
