import { expect } from 'chai';
import { FULL_PAGES_PER_WORKER, GrinChainService, PAGES_PER_WORKER, type GrinNodeClient, type GrinScanner } from '../../../packages/core/src/chains/grin/index.js';
import { ScanGate } from '../../../packages/core/src/chains/grin/scan-gate.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('chains: Grin scan pages are read and scanned a few at a time', () => {
  it('runs at most `maxPages` at once, the rest in arrival order; a failure frees its slot', async () => {
    const gate = new ScanGate(2, 1_000);
    const started: number[] = [];
    const releases = Array.from({ length: 5 }, () => deferred());
    const runs = releases.map((release, i) =>
      gate.run(10, async () => {
        started.push(i);
        await release.promise;
        return i;
      }),
    );
    const settled = Promise.allSettled(runs);
    await turn();
    expect(started).to.deep.equal([0, 1]);
    expect(gate.load).to.deep.equal({ running: 2, outputs: 20, waiting: 3 });
    releases[1]!.reject(new Error('node down'));
    await turn();
    expect(started).to.deep.equal([0, 1, 2]);
    releases[0]!.resolve();
    await turn();
    expect(started).to.deep.equal([0, 1, 2, 3]);
    for (const release of releases.slice(2)) release.resolve();
    const results = await settled;
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal([0, 'node down', 2, 3, 4]);
    expect(gate.load).to.deep.equal({ running: 0, outputs: 0, waiting: 0 });
    expect(() => new ScanGate(0, 10)).to.throw(/maxPages must be a positive integer/);
    expect(() => new ScanGate(1, 0)).to.throw(/maxOutputs must be a positive integer/);
    expect(() => new ScanGate(1.5, 10)).to.throw(/maxPages/);
  });

  it('weighs a page by its outputs: no more than `maxOutputs` at once, nobody overtakes, and a page larger than the budget runs alone', async () => {
    const gate = new ScanGate(10, 100);
    const started: string[] = [];
    const page = (name: string, outputs: number) => {
      const release = deferred();
      const run = gate.run(outputs, async () => {
        started.push(name);
        await release.promise;
      });
      return { release, run };
    };
    const a = page('a', 60);
    const b = page('b', 40); // 60 + 40 = 100: exactly the budget
    const c = page('c', 1); // would pass the budget
    const d = page('d', 1); // fits nowhere either, and must not overtake c anyway
    await turn();
    expect(started).to.deep.equal(['a', 'b']);
    expect(gate.load).to.deep.equal({ running: 2, outputs: 100, waiting: 2 });
    b.release.resolve();
    await turn();
    expect(started).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(gate.load).to.deep.equal({ running: 3, outputs: 62, waiting: 0 });
    const big = page('big', 500); // larger than the whole budget: waits for the others, then runs alone
    const e = page('e', 1); // behind big: waits although it would fit now
    await turn();
    expect(started).to.deep.equal(['a', 'b', 'c', 'd']);
    a.release.resolve();
    c.release.resolve();
    await turn();
    expect(started).to.deep.equal(['a', 'b', 'c', 'd']);
    d.release.resolve();
    await turn();
    expect(started).to.deep.equal(['a', 'b', 'c', 'd', 'big']);
    expect(gate.load).to.deep.equal({ running: 1, outputs: 500, waiting: 1 });
    big.release.resolve();
    await turn();
    expect(started).to.deep.equal(['a', 'b', 'c', 'd', 'big', 'e']);
    e.release.resolve();
    await Promise.all([a.run, b.run, c.run, d.run, big.run, e.run]);
    expect(gate.load).to.deep.equal({ running: 0, outputs: 0, waiting: 0 });
  });

  async function mostReadAtOnce(max: number | undefined): Promise<{ first: number; most: number; asked: number[] }> {
    let reading = 0;
    let most = 0;
    const asked: number[] = [];
    const pages: Array<ReturnType<typeof deferred<void>>> = [];
    const node = {
      unspentOutputs: async (_start: number, count: number) => {
        asked.push(count);
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
    const scans = Array.from({ length: 40 }, () => service.scan({ rewind_hash: 'ab'.repeat(32), start_index: 1, max }));
    await turn();
    const first = pages.length;
    let done = false;
    const all = Promise.all(scans).then(() => (done = true));
    while (!done) {
      pages.shift()?.resolve();
      await turn();
    }
    await all;
    return { first, most, asked };
  }

  it('the service reads FULL_PAGES_PER_WORKER full pages per worker of its scanner at once, and no more', async () => {
    // Asked for more than the page size: the page (and its weight) is the configured 1,000.
    for (const max of [undefined, 1_000, 5_000]) {
      const { first, most, asked } = await mostReadAtOnce(max);
      expect(first, `max ${max}`).to.equal(2 * FULL_PAGES_PER_WORKER);
      expect(most, `max ${max}`).to.equal(2 * FULL_PAGES_PER_WORKER);
      expect(new Set(asked)).to.deep.equal(new Set([1_000]));
    }
  });

  it('small pages run PAGES_PER_WORKER per worker at once (their outputs fit the budget many times over)', async () => {
    const { first, most } = await mostReadAtOnce(10);
    expect(first).to.equal(2 * PAGES_PER_WORKER);
    expect(most).to.equal(2 * PAGES_PER_WORKER);
    // Between the two: 300-output pages are held to the outputs of two full pages per worker.
    const mid = await mostReadAtOnce(300);
    expect(mid.most).to.equal(Math.floor((2 * FULL_PAGES_PER_WORKER * 1_000) / 300));
  });
});
