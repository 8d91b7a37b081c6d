import { setFlagsFromString } from 'node:v8';

/**
 * Lets every isolate made from now on size its own young generation. The reference server
 * starts Node with `--max-semi-space-size=8` (package.json `start:prod`): a 16 MB young
 * generation for the main thread instead of 32 MB. V8 reads that flag again for each isolate it
 * creates, and there it outranks a worker's own `resourceLimits`, so the Grin scan worker
 * (4 MB of young space, core's chains/grin/scan-pool.ts) would get 16 MB too. The main
 * isolate already exists when this runs and keeps its size; clearing the flag (0 is V8's
 * "not set") hands later isolates back to their own bounds. Call it before any worker starts.
 */
export function keepWorkerHeapBounds(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
