export { ASSETS, isAsset, type Asset } from './assets.js';
export { ChainRegistry, type HeightSource, type Heights } from './heights.js';
