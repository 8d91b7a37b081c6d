/**
 * Prints the V8 heap limits of this process's main isolate and of a Grin scan worker made with
 * the pool's own resourceLimits, as JSON: `{"main": bytes, "worker": bytes}`. With the argument
 * `keep`, the reference server's keepWorkerHeapBounds() runs first, as its main() does. Run by
 * heap-flags.test.ts under different Node flags.
 */
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { SCAN_WORKER_LIMITS } from '../../packages/core/src/chains/grin/index.js';
import { keepWorkerHeapBounds } from '../../examples/server/src/heap-flags.js';

if (process.argv.includes('keep')) keepWorkerHeapBounds();
const worker = new Worker(
  "const { parentPort } = require('node:worker_threads'); parentPort.postMessage(require('node:v8').getHeapStatistics().heap_size_limit);",
  { eval: true, resourceLimits: SCAN_WORKER_LIMITS },
);
const workerLimit = await new Promise<number>((resolve, reject) => {
  worker.once('message', resolve);
  worker.once('error', reject);
});
await worker.terminate();
process.stdout.write(`${JSON.stringify({ main: getHeapStatistics().heap_size_limit, worker: workerLimit })}\n`);
