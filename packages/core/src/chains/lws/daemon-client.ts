import { chainErrors } from '../errors.js';
import { postJson } from './http-json.js';

/** monerod / wownerod RPC (plain JSON endpoints): height and transaction confirmations. */
export class CryptonoteDaemonClient {
  private readonly base: string;

  constructor(url: string, private readonly timeoutMs: number) {
    this.base = url.replace(/\/+$/, '');
  }

  /** `/get_height` answers the block count (top index + 1). */
  async tipHeight(signal?: AbortSignal): Promise<number> {
    const response = await postJson(`${this.base}/get_height`, {}, this.timeoutMs, () => chainErrors.create.daemon_unavailable(), signal);
    const body = response.body as { height?: unknown; status?: unknown } | null;
    if (response.status !== 200 || body?.status !== 'OK' || !Number.isSafeInteger(body.height)) throw chainErrors.create.daemon_unavailable();
    return body.height as number;
  }

  /** The decoded transaction (`decode_as_json`) and its confirmations (0 in the pool); null when the daemon does not know it. */
  async decodedTransaction(txid: string): Promise<{ decoded: unknown; confirmations: number } | null> {
    const tx = await this.transactionEntry(txid, { decode_as_json: true });
    if (tx === undefined) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(String(tx.as_json));
    } catch {
      throw chainErrors.create.daemon_unavailable();
    }
    if (tx.in_pool === true) return { decoded, confirmations: 0 };
    const confirmations = await this.depthOf(tx);
    if (confirmations === null) throw chainErrors.create.daemon_unavailable();
    return { decoded, confirmations };
  }

  async confirmations(txid: string): Promise<{ found: boolean; in_pool: boolean; block_height: number | null; confirmations: number }> {
    const tx = await this.transactionEntry(txid, { decode_as_json: false, prune: true });
    if (tx === undefined) return { found: false, in_pool: false, block_height: null, confirmations: 0 };
    if (tx.in_pool === true) return { found: true, in_pool: true, block_height: null, confirmations: 0 };
    const blockHeight = Number.isSafeInteger(tx.block_height) ? (tx.block_height as number) : null;
    return { found: true, in_pool: false, block_height: blockHeight, confirmations: (await this.depthOf(tx)) ?? 0 };
  }

  /** The daemon's entry for one transaction (`get_transactions`), or undefined when it does not know it. */
  private async transactionEntry(txid: string, options: Record<string, boolean>): Promise<Record<string, unknown> | undefined> {
    const response = await postJson(`${this.base}/get_transactions`, { txs_hashes: [txid], ...options }, this.timeoutMs, () => chainErrors.create.daemon_unavailable());
    const body = response.body as { status?: unknown; txs?: Array<Record<string, unknown>> } | null;
    if (response.status !== 200 || body?.status !== 'OK') throw chainErrors.create.daemon_unavailable();
    return (body.txs ?? []).find((entry) => entry.tx_hash === txid);
  }

  /** A mined transaction's confirmations: the daemon's own count, else from its block height (the height is the block count); null with neither. */
  private async depthOf(tx: Record<string, unknown>): Promise<number | null> {
    if (Number.isSafeInteger(tx.confirmations)) return tx.confirmations as number;
    if (!Number.isSafeInteger(tx.block_height)) return null;
    return Math.max(0, (await this.tipHeight()) - (tx.block_height as number));
  }
}
