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
    const response = await postJson(`${this.base}/get_transactions`, { txs_hashes: [txid], decode_as_json: true }, this.timeoutMs, () => chainErrors.create.daemon_unavailable());
    const body = response.body as { status?: unknown; txs?: Array<Record<string, unknown>> } | null;
    if (response.status !== 200 || body?.status !== 'OK') throw chainErrors.create.daemon_unavailable();
    const tx = (body.txs ?? []).find((entry) => entry.tx_hash === txid);
    if (tx === undefined) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(String(tx.as_json));
    } catch {
      throw chainErrors.create.daemon_unavailable();
    }
    if (tx.in_pool === true) return { decoded, confirmations: 0 };
    if (!Number.isSafeInteger(tx.block_height)) throw chainErrors.create.daemon_unavailable();
    return { decoded, confirmations: Math.max(0, (await this.tipHeight()) - (tx.block_height as number)) };
  }

  async confirmations(txid: string): Promise<{ found: boolean; in_pool: boolean; block_height: number | null; confirmations: number }> {
    const response = await postJson(`${this.base}/get_transactions`, { txs_hashes: [txid], decode_as_json: false, prune: true }, this.timeoutMs, () => chainErrors.create.daemon_unavailable());
    const body = response.body as { status?: unknown; txs?: Array<Record<string, unknown>>; missed_tx?: unknown[] } | null;
    if (response.status !== 200 || body?.status !== 'OK') throw chainErrors.create.daemon_unavailable();
    const tx = (body.txs ?? []).find((entry) => entry.tx_hash === txid);
    if (tx === undefined) return { found: false, in_pool: false, block_height: null, confirmations: 0 };
    if (tx.in_pool === true) return { found: true, in_pool: true, block_height: null, confirmations: 0 };
    const blockHeight = Number.isSafeInteger(tx.block_height) ? (tx.block_height as number) : null;
    const confirmations = Number.isSafeInteger(tx.confirmations) ? (tx.confirmations as number) : blockHeight === null ? 0 : (await this.tipHeight()) - blockHeight;
    return { found: true, in_pool: false, block_height: blockHeight, confirmations };
  }
}
