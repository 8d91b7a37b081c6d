export { GrinNodeClient, GrinNodeRefusal, type GrinNodeOptions, type NodeOutput, type UnspentOutputsPage } from './node-client.js';
export { GrinChainService, coinbaseMaturityOf, FULL_PAGES_PER_WORKER, PAGES_PER_WORKER } from './service.js';
export { grinRoutes } from './routes.js';
export { GrinReader } from './reader.js';
export { GrinScanPool, inlineGrinScanner, defaultScanPoolSize, SCAN_WORKER_LIMITS, type GrinScanner } from './scan-pool.js';
