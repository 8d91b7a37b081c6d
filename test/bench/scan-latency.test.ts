import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeChainOutput } from '../fakes/grin-node.js';
import { DIALECTS } from '../harness/backend.js';
import { loadVectors } from '../harness/vectors.js';
import { buildScanOutputs, measureScanLatency, type ScanHit } from './scan-latency.js';

interface Batch {
  id: string;
  outputs: FakeChainOutput[];
  expected: { output_result: ScanHit[] };
}

const OUTPUTS = 500;

describe('bench: Grin scan vs /health latency (CI-sized smoke run)', function () {
  this.timeout(90_000);

  it('scans the output set on both dialects, finds exactly the wallet outputs, no errors, JSON written', async () => {
    // The expectation comes from the vectors and the output set the node serves, not from a scan:
    // an output is the wallet's exactly when it is one of the published wallet outputs, commitment
    // and proof together; it must then come back as published, at its new mmr index.
    const batches = loadVectors<{ scan_batches: Batch[] }>('grin/scan-rewind-hash.json').scan_batches;
    const batch = batches.find((candidate) => candidate.id === 'batch-s-A')!;
    const published = new Map(batch.expected.output_result.map((hit) => [hit.commit, hit]));
    const walletProof = new Map(batch.outputs.filter((output) => published.has(output.commit)).map((output) => [output.commit, output.proof]));
    const served = buildScanOutputs(OUTPUTS).outputs;
    expect(served).to.have.length(OUTPUTS);
    const expected = served.filter((output) => walletProof.get(output.commit) === output.proof).map((output) => ({ ...published.get(output.commit)!, mmr_index: output.mmr_index }));
    expect(expected).to.have.length(batch.expected.output_result.length);
    // Every other output carries the commitment of another wallet's output (another batch), never
    // one of this wallet's: the rewind hash's nonce for it opens no proof this wallet built.
    const walletCommits = new Set(batch.outputs.map((output) => output.commit));
    const strangerCommits = new Set(batches.filter((candidate) => candidate !== batch).flatMap((candidate) => candidate.outputs.map((output) => output.commit)));
    const misses = served.filter((output) => walletProof.get(output.commit) !== output.proof);
    expect(misses).to.have.length(OUTPUTS - expected.length);
    expect(misses.every((output) => strangerCommits.has(output.commit) && !walletCommits.has(output.commit))).to.equal(true);

    const dir = mkdtempSync(join(tmpdir(), 'scan-latency-'));
    const jsonPath = join(dir, 'scan-latency.json');
    try {
      const report = await measureScanLatency({ dialects: DIALECTS, durationSec: 1, outputs: OUTPUTS, scanClients: 2, connections: 4, warmupSec: 0, scannerSec: 0.2, jsonPath, log: () => {}, table: () => {} });
      expect(report.errors).to.deep.equal([]);
      expect(report.dialects.map((dialect) => dialect.dialect)).to.deep.equal([...DIALECTS]);
      for (const dialect of report.dialects) {
        expect(dialect.errors, dialect.dialect).to.deep.equal([]);
        expect(dialect.hits, dialect.dialect).to.deep.equal(expected);
        expect(dialect.under_scans.scans.scans_completed, dialect.dialect).to.be.greaterThan(0);
        expect(dialect.under_scans.scans.outputs_scanned, dialect.dialect).to.be.at.least(OUTPUTS);
        expect(dialect.baseline.health.requests, dialect.dialect).to.be.greaterThan(0);
        expect(dialect.under_scans.health.requests, dialect.dialect).to.be.greaterThan(0);
        expect(dialect.verdict).to.be.oneOf(['PASS', 'FAIL']);
      }
      for (const scanner of [report.scanners.pool, report.scanners.one_worker]) {
        expect(scanner.hits_per_scan).to.equal(expected.length);
        expect(scanner.outputs_per_sec).to.be.greaterThan(0);
      }
      expect(report.scanners.one_worker.workers).to.equal(1);
      expect(JSON.parse(readFileSync(jsonPath, 'utf8'))).to.deep.equal(JSON.parse(JSON.stringify(report)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
