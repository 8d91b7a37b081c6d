/** The network a deployment's chains run on (setting `chainNetwork`). */
export type ChainNetwork = 'mainnet' | 'testnet' | 'stagenet' | 'regtest';

/** Monero/Wownero address network; regtest daemons use mainnet address tags. */
export function cryptonoteNetworkOf(network: ChainNetwork): 'mainnet' | 'testnet' | 'stagenet' {
  return network === 'regtest' ? 'mainnet' : network;
}

/** Slatepack addresses use HRP `grin` on mainnet and `tgrin` on every other chain type. */
export function slatepackHrpOf(network: ChainNetwork): 'grin' | 'tgrin' {
  return network === 'mainnet' ? 'grin' : 'tgrin';
}
