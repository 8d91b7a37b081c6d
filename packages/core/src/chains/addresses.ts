import { decodeCryptonoteAddress } from '../crypto/index.js';
import { cryptonoteNetworkOf, type ChainNetwork } from './network.js';
import { outputScriptOf } from './utxo/index.js';

/** Assets whose funds sit at an on-chain address (Grin has outputs, not addresses). */
export type AddressAsset = 'btc' | 'ltc' | 'xmr' | 'wow';

/**
 * Whether `address` receives `asset` on `network`: any standard BTC/LTC output type
 * (bitcoinjs-lib, the network's own prefixes, so an LTC address is no BTC address), or a
 * Monero/Wownero STANDARD address of the network with a valid checksum: a one-time wallet's
 * primary address (subaddresses and integrated addresses derive their outputs differently).
 */
export function isReceivingAddress(asset: AddressAsset, address: string, network: ChainNetwork): boolean {
  if (asset === 'btc' || asset === 'ltc') return outputScriptOf(address, asset, network) !== null;
  const decoded = decodeCryptonoteAddress(address, asset);
  return decoded !== null && decoded.kind === 'standard' && decoded.network === cryptonoteNetworkOf(network);
}
