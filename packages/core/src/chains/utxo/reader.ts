import { Transaction } from 'bitcoinjs-lib';
import { equalBytes } from '@noble/curves/utils.js';
import type { UtxoChainReader, UtxoReceipt, UtxoSpend } from '../readers.js';
import { chainErrors } from '../errors.js';
import type { ChainNetwork } from '../network.js';
import type { UtxoBackend } from './backend.js';
import { outputScriptOf, type UtxoAsset } from './networks.js';

/** A one-time address sees a handful of transactions; more than this is not one. */
const MAX_HISTORY = 100;

function parse(hex: string): Transaction {
  try {
    return Transaction.fromHex(hex);
  } catch {
    // An indexer fault, not an answer: the caller retries as after an outage.
    throw new Error('the chain indexer returned a transaction that does not parse');
  }
}

/**
 * Funding and spends of one address, built on the indexer calls both Esplora and Electrum
 * answer (the raw transaction with its depth, and the address's history), so the workers that
 * watch tips read the chain the same way whichever indexer the operator runs.
 */
export class UtxoReader implements UtxoChainReader {
  constructor(
    private readonly backend: UtxoBackend,
    private readonly asset: UtxoAsset,
    private readonly network: ChainNetwork,
  ) {}

  async received(txid: string, address: string): Promise<UtxoReceipt | null> {
    const found = await this.backend.transaction(txid);
    if (found === null) return null;
    const script = this.script(address);
    const outputs: number[] = [];
    let received = 0n;
    parse(found.hex).outs.forEach((out, index) => {
      if (!equalBytes(out.script, script)) return;
      outputs.push(index);
      received += BigInt(out.value);
    });
    return { confirmations: found.confirmations, received, outputs };
  }

  async spent(txid: string, address: string): Promise<UtxoSpend | null> {
    const funding = await this.received(txid, address);
    if (funding === null || funding.outputs.length === 0) return null;
    const paid = new Set(funding.outputs);
    const history = await this.backend.history(address);
    const candidates = [...history.confirmed.map((entry) => entry.txid), ...history.mempool.map((entry) => entry.txid)].filter((other) => other !== txid).slice(0, MAX_HISTORY);
    for (const candidate of candidates) {
      const found = await this.backend.transaction(candidate);
      if (found === null) continue;
      const spends = parse(found.hex).ins.some((input) => Buffer.from(input.hash).reverse().toString('hex') === txid && paid.has(input.index));
      if (spends) return { txid: candidate, confirmations: found.confirmations };
    }
    return null;
  }

  private script(address: string): Uint8Array {
    const script = outputScriptOf(address, this.asset, this.network);
    if (script === null) throw chainErrors.create.address_invalid();
    return script;
  }
}
