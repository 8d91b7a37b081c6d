/**
 * Signs event templates for test/bench/admission-events.ts off the main thread (a signature is
 * ~4 ms of nostr-tools on one core). workerData.items: [{ key (secret key, hex), kind, created_at,
 * tags, content }]; posts back the signed events as plain objects, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { finalizeEvent } from 'nostr-tools/pure';

const signed = workerData.items.map(({ key, ...template }) => {
  const event = finalizeEvent(template, Uint8Array.from(Buffer.from(key, 'hex')));
  return { id: event.id, pubkey: event.pubkey, created_at: event.created_at, kind: event.kind, tags: event.tags, content: event.content, sig: event.sig };
});
parentPort.postMessage(signed);
