/**
 * A Grin scan worker thread: rewinds one chunk of outputs off the main event loop. Messages in:
 * `{id, rewindHash, outputs, coinbaseMaturity}`; out: `{id, outputs, total}` with values as
 * decimal strings (bigint does not cross threads), or `{id, error}`.
 */
import { parentPort } from 'node:worker_threads';
// A worker is an isolate of its own, where every module loaded is heap kept: it imports the one
// module it runs, not the crypto barrel (every signature scheme; about 1 MB more of old space).
// eslint-disable-next-line no-restricted-imports
import { scanGrinOutputs, type ChainOutput } from '../../crypto/grin-rewind.js';

interface Job {
  id: number;
  rewindHash: Uint8Array;
  outputs: ChainOutput[];
  coinbaseMaturity: number;
}

parentPort?.on('message', (job: Job) => {
  try {
    const result = scanGrinOutputs(job.rewindHash, job.outputs, job.coinbaseMaturity);
    parentPort!.postMessage({ id: job.id, outputs: result.outputs.map((output) => ({ ...output, value: output.value.toString() })), total: result.total.toString() });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: (err as Error).message });
  }
});
