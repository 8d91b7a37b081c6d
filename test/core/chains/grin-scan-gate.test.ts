import { expect } from 'chai';
import { GrinChainService, PAGES_PER_WORKER, type GrinNodeClient, type GrinScanner } from '../../../packages/core/src/chains/grin/index.js';
import { ScanGate } from '../../../packages/core/src/chains/grin/scan-gate.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('chains: Grin scan pages are read and scanned a few at a time', () => {
  it('runs at most `limit` at once, the rest in arrival order; a failure frees its slot', async () => {
    const gate = new ScanGate(2);
    const started: number[] = [];
    const releases = Array.from({ length: 5 }, () => deferred());
    const runs = releases.map((release, i) =>
      gate.run(async () => {
        started.push(i);
        await release.promise;
        return i;
      }),
    );
    const settled = Promise.allSettled(runs);
    await turn();
    expect(started).to.deep.equal([0, 1]);
    expect(gate.load).to.deep.equal({ running: 2, waiting: 3 });
    releases[1]!.reject(new Error('node down'));
    await turn();
    expect(started).to.deep.equal([0, 1, 2]);
    releases[0]!.resolve();
    await turn();
    expect(started).to.deep.equal([0, 1, 2, 3]);
    for (const release of releases.slice(2)) release.resolve();
    const results = await settled;
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal([0, 'node down', 2, 3, 4]);
    expect(gate.load).to.deep.equal({ running: 0, waiting: 0 });
    expect(() => new ScanGate(0)).to.throw(/positive integer/);
  });

  it("the service reads PAGES_PER_WORKER pages per worker of its scanner at once, and no more", async () => {
    let reading = 0;
    let most = 0;
    const pages: Array<ReturnType<typeof deferred<void>>> = [];
    const node = {
      unspentOutputs: async () => {
        reading++;
        most = Math.max(most, reading);
        const page = deferred<void>();
        pages.push(page);
        await page.promise;
        reading--;
        return { highest_index: 10, last_retrieved_index: 10, outputs: [] };
      },
    } as unknown as GrinNodeClient;
    const scanner: GrinScanner = { parallelism: 2, scan: async () => ({ outputs: [], total: 0n }), close: async () => undefined };
    const service = new GrinChainService(node, 'mainnet', 1_000, scanner);
    const scans = Array.from({ length: 40 }, () => service.scan({ rewind_hash: 'ab'.repeat(32), start_index: 1 }));
    await turn();
    expect(pages).to.have.length(2 * PAGES_PER_WORKER);
    let done = false;
    const all = Promise.all(scans).then(() => (done = true));
    while (!done) {
      pages.shift()?.resolve();
      await turn();
    }
    await all;
    expect(most).to.equal(2 * PAGES_PER_WORKER);
  });
});
