import { parseRewindHash, type ChainOutput } from '../../crypto/index.js';
import { chainErrors } from '../errors.js';
import type { ChainNetwork } from '../network.js';
import { GrinNodeRefusal, type GrinNodeClient } from './node-client.js';
import { ScanGate } from './scan-gate.js';
import { inlineGrinScanner, type GrinScanner } from './scan-pool.js';

/** Blocks before a coinbase output can be spent: 1440 on mainnet and testnet, 3 on AutomatedTesting (regtest). */
export function coinbaseMaturityOf(network: ChainNetwork): number {
  return network === 'regtest' ? 3 : 1_440;
}

/** Scan pages read or scanned at once, per worker of the scanner. */
export const PAGES_PER_WORKER = 8;
/** Outputs read or scanned at once, per worker of the scanner: two full pages' worth. */
export const FULL_PAGES_PER_WORKER = 2;

/**
 * Grin chain access (spec › Grin chain access): tip height, the view-only scan over one page
 * of the output set, and broadcast. The service holds nothing: the rewind hash lives only for
 * the request.
 */
export class GrinChainService {
  /**
   * Per scanning worker, at most eight pages and two full pages' worth of outputs at once: one
   * being scanned while the next is read keeps a worker busy with full pages, small pages (bound
   * by round trips to the node) still run several at a time, and a crowd of wallets cannot
   * hold a page each in memory (about 1.6 MB of JSON per 1,000 outputs, several times that once
   * parsed).
   */
  private readonly gate: ScanGate;

  constructor(
    private readonly node: GrinNodeClient,
    private readonly network: ChainNetwork,
    private readonly pageSize: number,
    /** Where the rewinds run: the worker pool in a backend, the calling thread by default. */
    private readonly scanner: GrinScanner = inlineGrinScanner,
  ) {
    this.gate = new ScanGate(PAGES_PER_WORKER * scanner.parallelism, FULL_PAGES_PER_WORKER * pageSize * scanner.parallelism);
  }

  async height(): Promise<{ height: number }> {
    try {
      return { height: await this.node.tipHeight() };
    } catch (err) {
      if (err instanceof GrinNodeRefusal) throw chainErrors.create.grin_node_unavailable();
      throw err;
    }
  }

  scan(request: { rewind_hash: string; start_index: number; max?: number | undefined }) {
    const max = Math.min(request.max ?? this.pageSize, this.pageSize);
    return this.gate.run(max, () => this.scanPage(request.rewind_hash, request.start_index, max));
  }

  private async scanPage(rewindHashHex: string, startIndex: number, max: number) {
    const rewindHash = parseRewindHash(rewindHashHex)!;
    let page;
    try {
      page = await this.node.unspentOutputs(startIndex, max);
    } catch (err) {
      if (err instanceof GrinNodeRefusal) throw chainErrors.create.grin_node_unavailable();
      throw err;
    }
    const outputs: ChainOutput[] = page.outputs.flatMap((output) =>
      typeof output?.proof === 'string' && typeof output.commit === 'string'
        ? [{ commit: output.commit, proof: output.proof, is_coinbase: output.output_type === 'Coinbase', height: output.block_height ?? 0, mmr_index: output.mmr_index }]
        : [],
    );
    const result = await this.scanner.scan(rewindHash, outputs, coinbaseMaturityOf(this.network));
    return {
      outputs: result.outputs.map((output) => ({ ...output, value: output.value.toString() })),
      balance: result.total.toString(),
      next_index: page.last_retrieved_index + 1,
      highest_index: page.highest_index,
      complete: page.last_retrieved_index >= page.highest_index,
    };
  }

  async broadcast(tx: unknown, fluff: boolean): Promise<{ ok: true }> {
    try {
      await this.node.pushTransaction(tx, fluff);
      return { ok: true };
    } catch (err) {
      if (err instanceof GrinNodeRefusal) throw chainErrors.create.grin_tx_rejected({ message: `The Grin node rejected the transaction: ${err.message.slice(0, 200)}` });
      throw err;
    }
  }
}
