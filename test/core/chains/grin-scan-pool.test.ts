import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { hexToBytes } from '@noble/hashes/utils.js';
import { defaultScanPoolSize, GrinScanPool, inlineGrinScanner } from '../../../packages/core/src/chains/grin/index.js';
import type { ChainOutput } from '../../../packages/core/src/crypto/index.js';
import { loadVectors, REPO_ROOT } from '../../harness/index.js';

interface Batch {
  id: string;
  rewind_hash: string;
  coinbase_maturity: number;
  outputs: Array<{ commit: string; proof: string; output_type?: string; is_coinbase?: boolean; block_height?: number; height?: number; mmr_index: number }>;
}

const { scan_batches: batches } = loadVectors<{ scan_batches: Batch[] }>('grin/scan-rewind-hash.json');
const chainOutputs = (batch: Batch): ChainOutput[] =>
  batch.outputs.map((output) => ({ commit: output.commit, proof: output.proof, is_coinbase: output.output_type === 'Coinbase' || output.is_coinbase === true, height: output.block_height ?? output.height ?? 0, mmr_index: output.mmr_index }));

describe('chains: the Grin scan on worker threads', () => {
  let pool: GrinScanPool;
  afterEach(async () => {
    await pool?.close();
  });

  it('finds exactly what the scan on the calling thread finds, in the page order, on every vector batch, whatever the chunking', async () => {
    pool = new GrinScanPool(2);
    for (const batch of batches) {
      const outputs = chainOutputs(batch);
      // Enough copies that the page is split across both workers (chunks of at least 64).
      const page = Array.from({ length: 30 }, () => outputs).flat();
      const expected = await inlineGrinScanner.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
      const threaded = await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
      expect(threaded, batch.id).to.deep.equal(expected);
      expect(expected.outputs.length, `${batch.id} finds something`).to.be.greaterThan(0);
    }
  });

  it('a worker that dies fails only its own jobs; the next scan starts a new one', async () => {
    pool = new GrinScanPool(1);
    const batch = batches[0]!;
    const page = Array.from({ length: 200 }, () => chainOutputs(batch)).flat();
    const expected = await inlineGrinScanner.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
    const running = pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
    const slots = (pool as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } } | null> }).slots;
    await slots[0]!.worker.terminate();
    const failure = await running.then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).to.match(/^a Grin scan worker stopped \(exit \d+\)$/);
    expect(await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity)).to.deep.equal(expected);
  });

  it('scans the largest page (10,000 outputs) inside its heap bounds, as the calling thread does', async function () {
    this.timeout(60_000);
    pool = new GrinScanPool(1);
    const batch = batches[0]!;
    const outputs = chainOutputs(batch);
    const page = Array.from({ length: Math.ceil(10_000 / outputs.length) }, () => outputs).flat().slice(0, 10_000);
    const expected = await inlineGrinScanner.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
    expect(await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity)).to.deep.equal(expected);
    expect(expected.outputs.length).to.be.greaterThan(0);
  });

  it('sizes itself one worker per core but one (the event loop keeps a core), at least 1, at most 4', () => {
    expect([1, 2, 3, 4, 5, 8, 64].map((cores) => defaultScanPoolSize(cores))).to.deep.equal([1, 1, 2, 3, 4, 4, 4]);
  });

  it('stops a worker left without work for its idle time, and starts one again for the next scan', async () => {
    pool = new GrinScanPool(1, 1_000);
    const batch = batches[0]!;
    const page = chainOutputs(batch);
    const expected = await inlineGrinScanner.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity);
    const slots = (pool as unknown as { slots: Array<{ worker: { threadId: number } } | null> }).slots;
    expect(await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity)).to.deep.equal(expected);
    const first = slots[0]!.worker.threadId;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Work within the idle time keeps the same worker and restarts its idle clock.
    expect(await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity)).to.deep.equal(expected);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slots[0]?.worker.threadId).to.equal(first);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(slots[0]).to.equal(null);
    expect(await pool.scan(hexToBytes(batch.rewind_hash), page, batch.coinbase_maturity)).to.deep.equal(expected);
    expect(slots[0]!.worker.threadId).to.not.equal(first);
  });

  it('refuses to scan once closed', async () => {
    pool = new GrinScanPool(1);
    await pool.close();
    const failure = await pool.scan(new Uint8Array(32), [], 1440).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).to.equal('the Grin scan pool is closed');
  });

  it('runs from the built package too (the worker is dist/…/scan-worker.js, no tsx)', () => {
    const batch = batches[0]!;
    const dist = pathToFileURL(join(REPO_ROOT, 'packages/core/dist/chains/grin/scan-pool.js')).href;
    const script = `import { GrinScanPool } from ${JSON.stringify(dist)};
const pool = new GrinScanPool(2);
const outputs = ${JSON.stringify(chainOutputs(batch))};
const result = await pool.scan(Buffer.from(${JSON.stringify(batch.rewind_hash)}, 'hex'), outputs, ${batch.coinbase_maturity});
await pool.close();
console.log(JSON.stringify({ count: result.outputs.length, total: result.total.toString() }));`;
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const file = join(mkdtempSync(join(tmpdir(), 'grin-scan-')), 'scan.mjs');
    writeFileSync(file, script);
    const printed = JSON.parse(execFileSync(process.execPath, [file], { env, encoding: 'utf8', cwd: tmpdir() })) as { count: number; total: string };
    return inlineGrinScanner.scan(hexToBytes(batch.rewind_hash), chainOutputs(batch), batch.coinbase_maturity).then((expected) => {
      expect(printed).to.deep.equal({ count: expected.outputs.length, total: expected.total.toString() });
    });
  });
});
