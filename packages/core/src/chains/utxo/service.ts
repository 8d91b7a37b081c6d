import { chainErrors } from '../errors.js';
import type { ChainNetwork } from '../network.js';
import type { UtxoBackend } from './backend.js';
import { outputScriptOf, parseTransactionHex, type UtxoAsset } from './networks.js';

/**
 * BTC/LTC chain access (spec › BTC / LTC chain access). Everything a request carries is validated
 * here BEFORE any upstream call: the asset must be enabled, the address must belong to that
 * asset and network, the transaction must parse.
 */
export class UtxoChainService {
  constructor(
    private readonly backends: Partial<Record<UtxoAsset, UtxoBackend>>,
    private readonly network: ChainNetwork,
  ) {}

  private backend(asset: UtxoAsset): UtxoBackend {
    const backend = this.backends[asset];
    if (backend === undefined) throw chainErrors.create.chain_disabled();
    return backend;
  }

  private checked(asset: UtxoAsset, address: string): UtxoBackend {
    const backend = this.backend(asset);
    if (outputScriptOf(address, asset, this.network) === null) throw chainErrors.create.address_invalid();
    return backend;
  }

  async balance(asset: UtxoAsset, address: string) {
    return { asset, address, ...(await this.checked(asset, address).balance(address)) };
  }

  async history(asset: UtxoAsset, address: string) {
    return { asset, address, ...(await this.checked(asset, address).history(address)) };
  }

  async utxos(asset: UtxoAsset, address: string) {
    return { asset, address, utxos: await this.checked(asset, address).utxos(address) };
  }

  async fee(asset: UtxoAsset, blocks: number) {
    return { asset, blocks, sat_per_vbyte: await this.backend(asset).feeRate(blocks) };
  }

  async tip(asset: UtxoAsset) {
    return { asset, height: await this.backend(asset).tipHeight() };
  }

  async broadcast(asset: UtxoAsset, hex: string) {
    const backend = this.backend(asset);
    if (parseTransactionHex(hex) === null) throw chainErrors.create.tx_invalid();
    return { asset, txid: await backend.broadcast(hex.toLowerCase()) };
  }
}
