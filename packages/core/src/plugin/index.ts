export type { WalletPlugin, PluginContext, PluginMigration, PublicSettings } from './contract.js';
export { BootError, checkPluginSet, RouteRegistry } from './registry.js';
