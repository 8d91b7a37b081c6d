export type { WalletPlugin, PluginContext, PluginMigration, PublicSettings, ChainAccess, HeightSource, UtxoChainReader, UtxoReceipt, UtxoSpend, GrinChainReader, CryptonoteChainReader, PaymentProcessor } from './contract.js';
export { checkPluginSet, RouteRegistry } from './registry.js';
