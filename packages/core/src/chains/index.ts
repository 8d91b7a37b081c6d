export { ASSETS, isAsset, type Asset } from './assets.js';
export { ChainRegistry } from './heights.js';
export type { ChainAccess, CryptonoteChainReader, GrinChainReader, Heights, HeightSource, UtxoChainReader, UtxoReceipt, UtxoSpend } from './readers.js';
export { cryptonoteNetworkOf, slatepackHrpOf, type ChainNetwork } from './network.js';
export { chainErrors } from './errors.js';
export { isReceivingAddress, type AddressAsset } from './addresses.js';
