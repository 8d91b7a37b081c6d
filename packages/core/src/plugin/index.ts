export type { WalletPlugin, PluginContext, PluginMigration, PublicSettings, PublicSettingsInput, ChainAccess, HeightSource, UtxoChainReader, UtxoReceipt, UtxoSpend, GrinChainReader, CryptonoteChainReader, PaymentProcessor } from './contract.js';
export { checkPluginSet, RouteRegistry } from './registry.js';
export { chainsView, processorView, sessionsView } from './views.js';
