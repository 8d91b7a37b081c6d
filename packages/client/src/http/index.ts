export { createWalletClient, unwrap, type WalletApi, type WalletClientOptions } from './client.js';
export { WalletApiError, apiErrorOf, type ErrorBody } from './errors.js';
export { erasureApi, type ErasureApi, type ErasureChallenge, type ErasureProof, type ErasureState, type ErasurePurpose, type AccountExport } from './erasure.js';
export type { paths, components, operations } from './api.js';
