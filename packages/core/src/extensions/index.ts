export type { CoreExtensions, CoreFeature } from './core-feature.js';
