import type { GrinChainReader } from '../readers.js';
import type { GrinNodeClient } from './node-client.js';

const depth = (tip: number, height: number) => Math.max(0, tip - height + 1);

/** Outputs and kernels at depth, through the node's foreign API (protocols.md §10). */
export class GrinReader implements GrinChainReader {
  constructor(private readonly node: Pick<GrinNodeClient, 'tipHeight' | 'outputsByCommit' | 'kernelHeight'>) {}

  async unspentOutput(commitment: string) {
    const wanted = commitment.toLowerCase();
    const output = (await this.node.outputsByCommit([wanted])).find((candidate) => typeof candidate?.commit === 'string' && candidate.commit.toLowerCase() === wanted);
    if (output === undefined || (output as { spent?: unknown }).spent === true || !Number.isSafeInteger(output.block_height)) return null;
    return { height: output.block_height!, confirmations: depth(await this.node.tipHeight(), output.block_height!) };
  }

  async kernel(excess: string) {
    const height = await this.node.kernelHeight(excess.toLowerCase());
    if (height === null) return null;
    return { height, confirmations: depth(await this.node.tipHeight(), height) };
  }
}
