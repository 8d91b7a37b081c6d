export { ASSETS, isAsset, type Asset } from './assets.js';
export { ChainRegistry, type HeightSource, type Heights } from './heights.js';
export { cryptonoteNetworkOf, slatepackHrpOf, type ChainNetwork } from './network.js';
export { chainErrors } from './errors.js';
export { chainsPlugin } from './plugin.js';
export { isReceivingAddress, type AddressAsset } from './addresses.js';
