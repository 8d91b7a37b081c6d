import type { HeightSource } from '../heights.js';

/** What the UTXO routes need from a BTC/LTC indexer (Esplora REST or an Electrum server). Amounts in satoshis. */
export interface UtxoBackend extends HeightSource {
  balance(address: string): Promise<{ confirmed: number; unconfirmed: number }>;
  history(address: string): Promise<{ confirmed: Array<{ txid: string; height: number }>; mempool: Array<{ txid: string }> }>;
  utxos(address: string): Promise<Array<{ txid: string; vout: number; value: number; height: number | null }>>;
  /** sat/vB to confirm within `blocks`. */
  feeRate(blocks: number): Promise<number>;
  /** The txid the node accepted; a refusal throws `tx_rejected`. */
  broadcast(hex: string): Promise<string>;
  /** The raw transaction and its confirmations (0 in the mempool); null when the server does not know it. */
  transaction(txid: string): Promise<{ hex: string; confirmations: number } | null>;
}
