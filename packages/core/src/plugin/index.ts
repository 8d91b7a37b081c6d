export type { WalletPlugin, PluginDeclaration, PluginContext, PluginMigration, PublicSettings, PublicSettingsInput, ChainAccess, HeightSource, UtxoChainReader, UtxoReceipt, UtxoSpend, GrinChainReader, CryptonoteChainReader, PaymentProcessor } from './contract.js';
export { checkPluginSet, describePlugin, RouteRegistry, type PluginSurface } from './registry.js';
export { chainsView, challengesView, peppersView, processorView, sessionsView, signedActionsView } from './views.js';
