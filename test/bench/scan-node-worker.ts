/**
 * The Grin node of `scan-latency.ts`, on a worker thread: a GrinNodeFake serving the bench's
 * output set. It runs off the server's thread because the fake's own work (sorting the set and
 * serialising ~14 MB of JSON per 10,000-output page) is the node's, not the backend's, and
 * would otherwise show up in the event-loop delay being measured. workerData: `{ outputs }`;
 * posts `{ url }` once listening; on the message `'close'` closes and posts `'closed'`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GrinNodeFake, type FakeChainOutput } from '../fakes/grin-node.js';

const port = parentPort!;
const node = new GrinNodeFake();
node.outputs = (workerData as { outputs: FakeChainOutput[] }).outputs;
const url = await node.start();
port.postMessage({ url });
port.on('message', (message: unknown) => {
  if (message !== 'close') return;
  void node.close().then(() => {
    port.postMessage('closed');
    port.close();
  });
});
// The fake logs every request it receives; the bench never reads the log, so it must not grow.
setInterval(() => (node.received.length = 0), 1_000).unref();
