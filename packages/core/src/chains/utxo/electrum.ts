import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { chainErrors } from '../errors.js';
import type { ChainNetwork } from '../network.js';
import type { UtxoBackend } from './backend.js';
import { ElectrumConnection, ElectrumRpcError, parseElectrumUrl, type ElectrumConnectionOptions } from './electrum-connection.js';
import { outputScriptOf, type UtxoAsset } from './networks.js';

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isTxid = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

/** Electrum's address key: the output script's SHA-256, byte-reversed, in hex (protocols.md §5). */
export function electrumScripthash(script: Uint8Array): string {
  return bytesToHex(sha256(script).reverse());
}

export interface ElectrumClientOptions {
  url: string;
  asset: UtxoAsset;
  network: ChainNetwork;
  timeoutMs: number;
  tls?: ElectrumConnectionOptions['tls'];
  backoff?: ElectrumConnectionOptions['backoff'];
}

/**
 * BTC/LTC through an Electrum server (electrs, Fulcrum, ElectrumX). Every transport failure or
 * malformed answer is 503 `electrum_unavailable`; only a broadcast the server refused with a
 * JSON-RPC error is the caller's fault (`tx_rejected`). The tip comes from
 * `blockchain.headers.subscribe` and is then kept current by the server's notifications.
 */
export class ElectrumClient implements UtxoBackend {
  private readonly connection: ElectrumConnection;
  private tip: number | null = null;

  constructor(private readonly options: ElectrumClientOptions) {
    const endpoint = parseElectrumUrl(options.url);
    if (endpoint === null) throw new Error(`not an Electrum URL (tcp://host:port or ssl://host:port): ${options.url}`);
    this.connection = new ElectrumConnection({
      endpoint,
      timeoutMs: options.timeoutMs,
      clientName: 'wallet-backend',
      tls: options.tls,
      backoff: options.backoff,
      onNotification: (method, params) => {
        if (method !== 'blockchain.headers.subscribe' || !Array.isArray(params)) return;
        const height = (params[0] as { height?: unknown } | undefined)?.height;
        if (isCount(height)) this.tip = height;
      },
      // A new session has no subscription yet: the next tip read subscribes again.
      onConnected: () => {
        this.tip = null;
      },
    });
  }

  close(): void {
    this.connection.close();
  }

  async tipHeight(): Promise<number> {
    // The cached tip is only as good as the subscription that keeps it current.
    if (this.tip !== null && this.connection.connected) return this.tip;
    const header = (await this.call('blockchain.headers.subscribe')) as { height?: unknown } | null;
    if (!isCount(header?.height)) throw chainErrors.create.electrum_unavailable();
    this.tip = header.height;
    return header.height;
  }

  async balance(address: string) {
    const answer = (await this.call('blockchain.scripthash.get_balance', [this.scripthash(address)])) as { confirmed?: unknown; unconfirmed?: unknown } | null;
    // `unconfirmed` is the mempool delta and may be negative.
    if (!isCount(answer?.confirmed) || !Number.isSafeInteger(answer?.unconfirmed)) throw chainErrors.create.electrum_unavailable();
    return { confirmed: answer.confirmed, unconfirmed: answer.unconfirmed as number };
  }

  async history(address: string) {
    const list = await this.call('blockchain.scripthash.get_history', [this.scripthash(address)]);
    if (!Array.isArray(list)) throw chainErrors.create.electrum_unavailable();
    const confirmed: Array<{ txid: string; height: number }> = [];
    const mempool: Array<{ txid: string }> = [];
    for (const entry of list as Array<{ tx_hash?: unknown; height?: unknown }>) {
      if (!isTxid(entry?.tx_hash) || !Number.isSafeInteger(entry.height)) throw chainErrors.create.electrum_unavailable();
      // Mempool entries carry height 0 (all inputs confirmed) or -1 (an unconfirmed parent).
      if ((entry.height as number) > 0) confirmed.push({ txid: entry.tx_hash, height: entry.height as number });
      else mempool.push({ txid: entry.tx_hash });
    }
    return { confirmed, mempool };
  }

  async utxos(address: string) {
    const list = await this.call('blockchain.scripthash.listunspent', [this.scripthash(address)]);
    if (!Array.isArray(list)) throw chainErrors.create.electrum_unavailable();
    return (list as Array<{ tx_hash?: unknown; tx_pos?: unknown; value?: unknown; height?: unknown }>).map((utxo) => {
      if (!isTxid(utxo?.tx_hash) || !isCount(utxo.tx_pos) || !isCount(utxo.value) || !isCount(utxo.height)) throw chainErrors.create.electrum_unavailable();
      return { txid: utxo.tx_hash, vout: utxo.tx_pos, value: utxo.value, height: utxo.height === 0 ? null : utxo.height };
    });
  }

  /**
   * `blockchain.estimatefee` answers coin per kB (sat/vB = coin/kB × 1e8 / 1000), or -1 when the
   * node has no estimate yet; then the node's minimum relay fee is the honest floor.
   */
  async feeRate(blocks: number): Promise<number> {
    let perKb = await this.call('blockchain.estimatefee', [blocks]);
    if (perKb === -1) perKb = await this.call('blockchain.relayfee');
    if (typeof perKb !== 'number' || !Number.isFinite(perKb) || perKb <= 0) throw chainErrors.create.electrum_unavailable();
    return Math.round(perKb * 100_000 * 1000) / 1000;
  }

  async broadcast(hex: string): Promise<string> {
    let txid: unknown;
    try {
      txid = await this.connection.call('blockchain.transaction.broadcast', [hex]);
    } catch (err) {
      if (err instanceof ElectrumRpcError) throw chainErrors.create.tx_rejected({ message: `The node rejected the transaction: ${err.message.slice(0, 300)}` });
      throw chainErrors.create.electrum_unavailable();
    }
    if (!isTxid(txid)) throw chainErrors.create.electrum_unavailable();
    return txid;
  }

  /**
   * `blockchain.transaction.get` verbose (electrs forwards it to bitcoind, Fulcrum and ElectrumX
   * answer it themselves): `hex` and `confirmations` (absent while in the mempool). A JSON-RPC
   * error is the server saying it does not know the transaction.
   */
  async transaction(txid: string) {
    let answer: unknown;
    try {
      answer = await this.connection.call('blockchain.transaction.get', [txid, true]);
    } catch (err) {
      if (err instanceof ElectrumRpcError) return null;
      throw chainErrors.create.electrum_unavailable();
    }
    const tx = answer as { hex?: unknown; confirmations?: unknown } | null;
    if (typeof tx?.hex !== 'string' || !/^([0-9a-f]{2})+$/.test(tx.hex)) throw chainErrors.create.electrum_unavailable();
    if (tx.confirmations !== undefined && !isCount(tx.confirmations)) throw chainErrors.create.electrum_unavailable();
    return { hex: tx.hex, confirmations: (tx.confirmations as number | undefined) ?? 0 };
  }

  /** The service validated the address for this asset and network before calling. */
  private scripthash(address: string): string {
    const script = outputScriptOf(address, this.options.asset, this.options.network);
    if (script === null) throw chainErrors.create.address_invalid();
    return electrumScripthash(script);
  }

  private async call(method: string, params: unknown[] = []): Promise<unknown> {
    try {
      return await this.connection.call(method, params);
    } catch {
      throw chainErrors.create.electrum_unavailable();
    }
  }
}
