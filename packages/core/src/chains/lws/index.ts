export { LwsClient, type LwsAccount } from './lws-client.js';
export { CryptonoteDaemonClient } from './daemon-client.js';
export { LwsChainService, type LwsAsset, type LwsChain } from './service.js';
export { lwsRoutes } from './routes.js';
export { parseMoneroTransaction, type MoneroTransaction } from './monero-tx.js';
export { CryptonoteReader } from './reader.js';
