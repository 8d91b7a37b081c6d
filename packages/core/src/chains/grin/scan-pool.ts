import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { scanGrinOutputs, type ChainOutput, type ScannedOutput } from '../../crypto/index.js';

export interface GrinScanner {
  /** How many pages it scans at once (its workers). */
  readonly parallelism: number;
  scan(rewindHash: Uint8Array, outputs: readonly ChainOutput[], coinbaseMaturity: number): Promise<{ outputs: ScannedOutput[]; total: bigint }>;
  close(): Promise<void>;
}

interface Pending {
  resolve(value: { outputs: Array<Omit<ScannedOutput, 'value'> & { value: string }>; total: string }): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** Ids of the jobs it holds. */
  jobs: Set<number>;
  /** Pending stop while it has no jobs. */
  idle: NodeJS.Timeout | undefined;
}

/** Outputs below this many are not worth a thread hop (a few ms of work). */
const MIN_CHUNK = 64;
/** A worker with nothing to do for this long is stopped (its isolate is 10–20 MB); the next scan starts one again. */
export const SCAN_WORKER_IDLE_MS = 30_000;

/**
 * One worker per core but one, at most 4: the event loop keeps a core of its own, so requests
 * are still answered promptly while every worker scans (on 2 cores a second worker bought no
 * speed and cost `/health` its p99). At least one.
 */
export function defaultScanPoolSize(cores = availableParallelism()): number {
  return Math.max(1, Math.min(cores - 1, 4));
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');
/** The worker's entry next to this module: .js when built, .ts when running from source. */
const WORKER_URL = new URL(`./scan-worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/**
 * A worker's heap, bounded: left to V8's defaults it grew to the size of a whole process under
 * a stream of pages. A 10,000-output page (the largest) needs about 16 MB of input and a few MB
 * of work; past the bound the worker stops and fails only its own jobs (a 500 the wallet
 * retries), like any worker that dies. The rewinds keep almost nothing alive between
 * collections, so 4 MB of young space scans as fast as 8 (measured: the same outputs/s) and
 * keeps the worker near 11 MB of heap. V8's own heap flags, where the process has them, take
 * precedence when the worker is made: the reference server's `--max-old-space-size=256`
 * bounds the worker's old space, and its `--max-semi-space-size=8` would replace the young
 * bound, which is why that server clears the young-space flag once its main isolate exists
 * (examples/server heap-flags.ts; docs/operators.md "Memory").
 */
export const SCAN_WORKER_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 } as const;

/**
 * A worker thread does not inherit the parent's module hooks, so from source (tests, `tsx`) the
 * worker first registers tsx's loader (resolved from the working directory, the checkout in tests
 * and in the mutation sandbox), then imports the TypeScript entry; built code needs none.
 */
function newWorker(): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, { resourceLimits: SCAN_WORKER_LIMITS });
  return new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`, { eval: true, resourceLimits: SCAN_WORKER_LIMITS });
}

/**
 * Runs the view-only scan on worker threads (defaultScanPoolSize, started on first use and
 * stopped after SCAN_WORKER_IDLE_MS without work), so a
 * page of thousands of outputs never blocks the event loop that serves every other request. A
 * page is split into one chunk per worker and the results are joined in the page's order. A
 * worker that dies fails its jobs (the request answers 500 and is retried by the wallet) and is
 * replaced on the next scan.
 */
export class GrinScanPool implements GrinScanner {
  private readonly slots: Array<Slot | null>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  get parallelism(): number {
    return this.slots.length;
  }

  constructor(
    size = defaultScanPoolSize(),
    private readonly idleMs = SCAN_WORKER_IDLE_MS,
  ) {
    this.slots = Array.from({ length: size }, () => null);
  }

  async scan(rewindHash: Uint8Array, outputs: readonly ChainOutput[], coinbaseMaturity: number): Promise<{ outputs: ScannedOutput[]; total: bigint }> {
    if (this.closed) throw new Error('the Grin scan pool is closed');
    const chunkSize = Math.max(MIN_CHUNK, Math.ceil(outputs.length / this.slots.length));
    const chunks: ChainOutput[][] = [];
    for (let start = 0; start < outputs.length; start += chunkSize) chunks.push(outputs.slice(start, start + chunkSize));
    const results = await Promise.all(chunks.map((chunk) => this.run(rewindHash, chunk, coinbaseMaturity)));
    const found: ScannedOutput[] = [];
    let total = 0n;
    for (const result of results) {
      for (const output of result.outputs) found.push({ ...output, value: BigInt(output.value) });
      total += BigInt(result.total);
    }
    return { outputs: found, total };
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.slots.filter((slot): slot is Slot => slot !== null).map((slot) => slot.worker);
    for (const slot of this.slots) if (slot !== null) clearTimeout(slot.idle);
    this.slots.fill(null);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private run(rewindHash: Uint8Array, outputs: ChainOutput[], coinbaseMaturity: number) {
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<{ outputs: Array<Omit<ScannedOutput, 'value'> & { value: string }>; total: string }>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      clearTimeout(slot.idle);
      slot.jobs.add(id);
      slot.worker.postMessage({ id, rewindHash, outputs, coinbaseMaturity });
    });
  }

  /** Stops the slot's worker unless it gets work within idleMs (its exit then frees the slot). */
  private stopWhenIdle(index: number, slot: Slot): void {
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.jobs.size === 0 && this.slots[index] === slot) {
        this.slots[index] = null;
        void slot.worker.terminate();
      }
    }, this.idleMs);
    slot.idle.unref();
  }

  /** An idle slot is started; otherwise the worker holding the fewest jobs. */
  private leastBusy(): Slot {
    let best: Slot | null = null;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i] ?? null;
      if (slot === null) return this.start(i);
      if (best === null || slot.jobs.size < best.jobs.size) best = slot;
    }
    return best!;
  }

  private start(index: number): Slot {
    const worker = newWorker();
    // A pool that is idle must not keep the process alive.
    worker.unref();
    const slot: Slot = { worker, jobs: new Set(), idle: undefined };
    worker.on('message', (message: { id: number; error?: string }) => {
      const pending = this.pending.get(message.id);
      slot.jobs.delete(message.id);
      if (slot.jobs.size === 0) this.stopWhenIdle(index, slot);
      if (pending === undefined) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) pending.reject(new Error(`the Grin scan failed: ${message.error}`));
      else pending.resolve(message as never);
    });
    const fail = (err: Error) => {
      for (const id of slot.jobs) {
        this.pending.get(id)?.reject(err);
        this.pending.delete(id);
      }
      slot.jobs.clear();
      if (this.slots[index] === slot) this.slots[index] = null;
    };
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`a Grin scan worker stopped (exit ${code})`)));
    this.slots[index] = slot;
    return slot;
  }
}

/** The scan on the calling thread (tests, and hosts that opt out of threads). */
export const inlineGrinScanner: GrinScanner = {
  parallelism: 1,
  scan: async (rewindHash, outputs, coinbaseMaturity) => scanGrinOutputs(rewindHash, outputs, coinbaseMaturity),
  close: async () => undefined,
};
