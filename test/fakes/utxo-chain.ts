import { createHash } from 'node:crypto';
import { address as addressCodec, Transaction, type Network } from 'bitcoinjs-lib';

interface ChainTx {
  hex: string;
  tx: Transaction;
  /** null while in the mempool. */
  height: number | null;
}

/**
 * The transactions of a BTC/LTC test chain, indexed the way Esplora and Electrum servers index
 * them: by txid, and by every output script a transaction pays or spends from. The Esplora and
 * Electrum fakes answer `/tx/…` and `blockchain.transaction.get` / `get_history` from it, so a
 * test builds a funding and a sweep with bitcoinjs-lib and "mines" them at heights.
 */
export class FakeUtxoChain {
  private readonly txs = new Map<string, ChainTx>();

  constructor(readonly network: Network) {}

  /** Adds (or re-heights) a transaction: `null` puts it in the mempool. Returns its txid. */
  put(hex: string, height: number | null): string {
    const tx = Transaction.fromHex(hex);
    this.txs.set(tx.getId(), { hex, tx, height });
    return tx.getId();
  }

  /** Forgets a transaction (a reorg that dropped it and a mempool that evicted it). */
  drop(txid: string): void {
    this.txs.delete(txid);
  }

  get(txid: string): { hex: string; height: number | null } | null {
    const found = this.txs.get(txid);
    return found === undefined ? null : { hex: found.hex, height: found.height };
  }

  /** Transactions paying `script` or spending an output that paid it: chain order, then mempool. */
  historyOfScript(script: Uint8Array): Array<{ txid: string; height: number | null }> {
    const wanted = Buffer.from(script);
    const paysIt = (tx: Transaction) => tx.outs.some((out) => Buffer.from(out.script).equals(wanted));
    const spendsIt = (tx: Transaction) =>
      tx.ins.some((input) => {
        const parent = this.txs.get(Buffer.from(input.hash).reverse().toString('hex'));
        const spentOut = parent?.tx.outs[input.index];
        return spentOut !== undefined && Buffer.from(spentOut.script).equals(wanted);
      });
    const list = [...this.txs.entries()].filter(([, entry]) => paysIt(entry.tx) || spendsIt(entry.tx)).map(([txid, entry]) => ({ txid, height: entry.height }));
    return [...list.filter((entry) => entry.height !== null).sort((a, b) => a.height! - b.height!), ...list.filter((entry) => entry.height === null)];
  }

  historyOfAddress(address: string): Array<{ txid: string; height: number | null }> {
    return this.historyOfScript(addressCodec.toOutputScript(address, this.network));
  }

  /** The history keyed by Electrum scripthash (sha256 of the script, byte-reversed). */
  historyOfScripthash(scripthash: string): Array<{ txid: string; height: number | null }> {
    for (const entry of this.txs.values()) {
      for (const out of entry.tx.outs) {
        if (createHash('sha256').update(out.script).digest().reverse().toString('hex') === scripthash) return this.historyOfScript(out.script);
      }
    }
    return [];
  }
}
