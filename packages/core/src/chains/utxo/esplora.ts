import { chainErrors } from '../errors.js';
import type { UtxoBackend } from './backend.js';

interface Stats {
  funded_txo_sum: number;
  spent_txo_sum: number;
}
interface TxStatus {
  confirmed: boolean;
  block_height?: number;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Esplora REST (Blockstream / mempool.space, protocols.md §6). Every failure of the server —
 * network, timeout, unexpected status, malformed body — is 503 `esplora_unavailable`; only a
 * broadcast the node refused (HTTP 400 on `POST /tx`) is the caller's fault (`tx_rejected`).
 */
export class EsploraClient implements UtxoBackend {
  private readonly base: string;

  constructor(url: string, private readonly timeoutMs: number) {
    this.base = url.replace(/\/+$/, '');
  }

  async tipHeight(signal?: AbortSignal): Promise<number> {
    const text = await this.text('GET', '/blocks/tip/height', undefined, signal);
    const height = Number(text.trim());
    if (!isCount(height)) throw chainErrors.create.esplora_unavailable();
    return height;
  }

  async balance(address: string) {
    const info = (await this.json(`/address/${encodeURIComponent(address)}`)) as { chain_stats?: Stats; mempool_stats?: Stats };
    const chain = info?.chain_stats;
    const mempool = info?.mempool_stats;
    if (!chain || !mempool || ![chain.funded_txo_sum, chain.spent_txo_sum, mempool.funded_txo_sum, mempool.spent_txo_sum].every(isCount)) throw chainErrors.create.esplora_unavailable();
    return { confirmed: chain.funded_txo_sum - chain.spent_txo_sum, unconfirmed: mempool.funded_txo_sum - mempool.spent_txo_sum };
  }

  async history(address: string) {
    const txs = (await this.json(`/address/${encodeURIComponent(address)}/txs`)) as Array<{ txid?: unknown; status?: TxStatus }>;
    if (!Array.isArray(txs)) throw chainErrors.create.esplora_unavailable();
    const confirmed: Array<{ txid: string; height: number }> = [];
    const mempool: Array<{ txid: string }> = [];
    for (const tx of txs) {
      if (typeof tx?.txid !== 'string') throw chainErrors.create.esplora_unavailable();
      if (tx.status?.confirmed && isCount(tx.status.block_height)) confirmed.push({ txid: tx.txid, height: tx.status.block_height });
      else mempool.push({ txid: tx.txid });
    }
    return { confirmed, mempool };
  }

  async utxos(address: string) {
    const list = (await this.json(`/address/${encodeURIComponent(address)}/utxo`)) as Array<{ txid?: unknown; vout?: unknown; value?: unknown; status?: TxStatus }>;
    if (!Array.isArray(list)) throw chainErrors.create.esplora_unavailable();
    return list.map((utxo) => {
      if (typeof utxo?.txid !== 'string' || !isCount(utxo.vout) || !isCount(utxo.value)) throw chainErrors.create.esplora_unavailable();
      return { txid: utxo.txid, vout: utxo.vout, value: utxo.value, height: utxo.status?.confirmed && isCount(utxo.status.block_height) ? utxo.status.block_height : null };
    });
  }

  /** The estimate for the largest published target not above `blocks` (the nearest faster one otherwise). */
  async feeRate(blocks: number): Promise<number> {
    const estimates = (await this.json('/fee-estimates')) as Record<string, unknown>;
    if (typeof estimates !== 'object' || estimates === null) throw chainErrors.create.esplora_unavailable();
    const targets = Object.entries(estimates)
      .map(([target, rate]) => [Number(target), rate] as const)
      .filter(([target, rate]) => isCount(target) && typeof rate === 'number' && rate > 0)
      .sort((a, b) => a[0] - b[0]);
    if (targets.length === 0) throw chainErrors.create.esplora_unavailable();
    const within = targets.filter(([target]) => target <= blocks);
    return (within.at(-1) ?? targets[0]!)[1] as number;
  }

  async broadcast(hex: string): Promise<string> {
    const response = await this.request('POST', '/tx', hex);
    const text = await response.text().catch(() => '');
    if (response.status === 400) throw chainErrors.create.tx_rejected({ message: `The node rejected the transaction: ${text.slice(0, 300)}` });
    if (response.status !== 200 || !/^[0-9a-f]{64}$/.test(text.trim())) throw chainErrors.create.esplora_unavailable();
    return text.trim();
  }

  async transaction(txid: string) {
    const response = await this.request('GET', `/tx/${txid}/hex`);
    if (response.status === 404) return null;
    if (response.status !== 200) throw chainErrors.create.esplora_unavailable();
    const hex = (await response.text().catch(() => '')).trim();
    if (!/^([0-9a-f]{2})+$/.test(hex)) throw chainErrors.create.esplora_unavailable();
    const status = (await this.json(`/tx/${txid}/status`)) as TxStatus | null;
    if (typeof status?.confirmed !== 'boolean') throw chainErrors.create.esplora_unavailable();
    if (!status.confirmed) return { hex, confirmations: 0 };
    if (!isCount(status.block_height)) throw chainErrors.create.esplora_unavailable();
    return { hex, confirmations: Math.max(0, (await this.tipHeight()) - status.block_height + 1) };
  }

  private async request(method: string, path: string, body?: string, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      return await fetch(`${this.base}${path}`, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'text/plain' },
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: 'error',
      });
    } catch {
      throw chainErrors.create.esplora_unavailable();
    }
  }

  private async text(method: string, path: string, body?: string, signal?: AbortSignal): Promise<string> {
    const response = await this.request(method, path, body, signal);
    if (response.status !== 200) throw chainErrors.create.esplora_unavailable();
    try {
      return await response.text();
    } catch {
      throw chainErrors.create.esplora_unavailable();
    }
  }

  private async json(path: string): Promise<unknown> {
    const text = await this.text('GET', path);
    try {
      return JSON.parse(text);
    } catch {
      throw chainErrors.create.esplora_unavailable();
    }
  }
}
