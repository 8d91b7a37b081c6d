import type { Asset } from './assets.js';

/**
 * The chain readers plugins get through `ctx.chains` (docs/plugins.md). They live here, on the
 * side that implements them, so the contract imports them and nothing here imports the contract.
 */

/** Every asset's tip height, null when the chain is off, failing or too slow. */
export type Heights = Record<Asset, number | null>;

/** What a BTC/LTC transaction paid one address, and how deep it is. */
export interface UtxoReceipt {
  /** 0 while in the mempool. */
  confirmations: number;
  /** Sum of the outputs paying the address, in satoshis. */
  received: bigint;
  /** Their output indexes. */
  outputs: number[];
}

/** The transaction that spent an output, and how deep it is. */
export interface UtxoSpend {
  txid: string;
  confirmations: number;
}

/** Read access to a BTC or LTC chain through the configured indexer (Esplora or Electrum). Upstream failures throw (503 errors). */
export interface UtxoChainReader {
  /** What `txid` paid `address` and its confirmations; null when the chain (and mempool) does not know the transaction. */
  received(txid: string, address: string): Promise<UtxoReceipt | null>;
  /** The first transaction the indexer knows that spends an output of `txid` paid to `address`; null while none does. */
  spent(txid: string, address: string): Promise<UtxoSpend | null>;
}

/** Read access to the Grin chain through the node's foreign API. Upstream failures throw. */
export interface GrinChainReader {
  /** The output with this commitment in the UTXO set (unspent) and its confirmations; null when it is not there. */
  unspentOutput(commitment: string): Promise<{ height: number; confirmations: number } | null>;
  /** The kernel with this excess on chain and its confirmations; null when not found. */
  kernel(excess: string): Promise<{ height: number; confirmations: number } | null>;
}

/** Read access to Monero or Wownero through the daemon. Upstream failures throw. */
export interface CryptonoteChainReader {
  /**
   * What `txid` paid `address` (a standard address), proven with the transaction's secret key
   * (the `check_tx_key` rule, commitments opened), and its confirmations; null when the daemon
   * does not know the transaction. A key that proves nothing gives `received: 0n`.
   */
  receivedWithTxKey(txid: string, txKey: string, address: string): Promise<{ confirmations: number; received: bigint } | null>;
  /** A transaction's confirmations (0 in the pool), or null when the daemon does not know it. */
  confirmations(txid: string): Promise<number | null>;
}

/** Anything that can tell a chain's tip height. */
export interface HeightSource {
  tipHeight(signal?: AbortSignal): Promise<number>;
}

/** The chains a plugin may use: which are on, their heights, and readers for the workers that watch them. */
export interface ChainAccess {
  /** Enables `asset` with this height source (a chain adapter plugin); a second source for one asset refuses the boot. */
  provideHeight(asset: Asset, source: HeightSource): void;
  /** Enabled chains, in the spec's asset order. */
  readonly enabled: Asset[];
  /** Every asset's tip height (null when disabled, failing or slower than `timeoutMs`). */
  heights(timeoutMs: number): Promise<Heights>;
  /** The BTC or LTC reader, or null when that chain is off. */
  utxo(asset: 'btc' | 'ltc'): UtxoChainReader | null;
  /** The Monero or Wownero reader, or null when that chain is off. */
  cryptonote(asset: 'xmr' | 'wow'): CryptonoteChainReader | null;
  /** The Grin reader, or null when Grin is off. */
  grin(): GrinChainReader | null;
}
