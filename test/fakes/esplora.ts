import { Transaction } from 'bitcoinjs-lib';
import { HttpFake, type FakeReply, type FakeRequest } from './http-fake.js';
import type { FakeUtxoChain } from './utxo-chain.js';

export interface FakeAddressState {
  chain: { funded: number; spent: number };
  mempool: { funded: number; spent: number };
  txs: Array<{ txid: string; height: number | null }>;
  utxos: Array<{ txid: string; vout: number; value: number; height: number | null }>;
}

/**
 * An Esplora server (Blockstream/esplora API.md): text/plain tip height and txids, JSON address
 * stats, txs and utxos, `/fee-estimates` keyed by target, `POST /tx` taking hex as text and
 * answering 400 with the node's error text when `rejectBroadcast` is set.
 */
export class EsploraFake extends HttpFake {
  tip = 850_000;
  addresses = new Map<string, FakeAddressState>();
  feeEstimates: Record<string, number> = { '1': 42.5, '2': 30.1, '3': 25, '6': 12.2, '144': 1.5, '1008': 1.01 };
  broadcasts: string[] = [];
  rejectBroadcast: string | null = null;
  /** Transactions served at `/tx/:txid/{hex,status}`, and the txs of addresses not in `addresses`. */
  chain: FakeUtxoChain | null = null;

  constructor() {
    super();
    this.route('GET /blocks/tip/height', () => ({ text: String(this.tip) }));
    this.route('GET /fee-estimates', () => ({ json: this.feeEstimates }));
    this.route('POST /tx', (_req, body) => this.broadcast(String(body ?? '')));
    this.fallback = (req) => this.address(req);
  }

  private broadcast(hex: string): FakeReply {
    if (this.rejectBroadcast !== null) return { status: 400, text: this.rejectBroadcast };
    this.broadcasts.push(hex);
    // The txid (witness excluded), as the node reports it.
    return { text: Transaction.fromHex(hex).getId() };
  }

  private address(req: FakeRequest): FakeReply {
    const tx = /^\/tx\/([0-9a-f]{64})\/(hex|status)$/.exec(req.path.split('?')[0]!);
    if (tx !== null && req.method === 'GET') return this.transaction(tx[1]!, tx[2] as 'hex' | 'status');
    const match = /^\/address\/([^/?]+)(\/txs|\/utxo)?$/.exec(req.path.split('?')[0]!);
    if (req.method !== 'GET' || match === null) return { status: 404, text: 'Not Found' };
    const address = decodeURIComponent(match[1]!);
    const state = this.addresses.get(address) ?? { chain: { funded: 0, spent: 0 }, mempool: { funded: 0, spent: 0 }, txs: this.chain?.historyOfAddress(address).reverse() ?? [], utxos: [] };
    const status = (height: number | null) => (height === null ? { confirmed: false } : { confirmed: true, block_height: height, block_hash: '00'.repeat(32), block_time: 1_700_000_000 });
    if (match[2] === '/txs') return { json: state.txs.map((tx) => ({ txid: tx.txid, version: 2, locktime: 0, vin: [], vout: [], size: 200, weight: 800, fee: 1000, status: status(tx.height) })) };
    if (match[2] === '/utxo') return { json: state.utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: u.value, status: status(u.height) })) };
    const stats = (s: { funded: number; spent: number }) => ({ tx_count: 1, funded_txo_count: 1, funded_txo_sum: s.funded, spent_txo_count: 0, spent_txo_sum: s.spent });
    return { json: { address, chain_stats: stats(state.chain), mempool_stats: stats(state.mempool) } };
  }

  /** Esplora answers 404 "Transaction not found" for a txid it does not know. */
  private transaction(txid: string, part: 'hex' | 'status'): FakeReply {
    const found = this.chain?.get(txid) ?? null;
    if (found === null) return { status: 404, text: 'Transaction not found' };
    if (part === 'hex') return { text: found.hex };
    return { json: found.height === null ? { confirmed: false } : { confirmed: true, block_height: found.height, block_hash: '00'.repeat(32), block_time: 1_700_000_000 } };
  }
}
