export type { UtxoBackend } from './backend.js';
export { EsploraClient } from './esplora.js';
export { ElectrumClient, electrumScripthash, type ElectrumClientOptions } from './electrum.js';
export { ElectrumConnection, ElectrumRpcError, ElectrumTransportError, parseElectrumUrl, type ElectrumEndpoint } from './electrum-connection.js';
export { UtxoChainService } from './service.js';
export { utxoRoutes } from './routes.js';
export { outputScriptOf, parseTransactionHex, utxoNetwork, type UtxoAsset } from './networks.js';
export { UtxoReader } from './reader.js';
