export { checkConfiguration } from './configuration.js';
export { buildCoreServices, type CoreServices } from './services.js';
export { coreExtensions, coreFeatures } from './core-features.js';
export { PluginAssembly, type SetupUnit } from './plugin-assembly.js';
export { mountRoutes, type MountedApi } from './http.js';
export { lifecycle, type StartOptions, type StartResult } from './lifecycle.js';
