/**
 * `npm run bench:rewind`: the cost of rewinding one Grin Bulletproof (a hit: the nonce opens it;
 * a miss: it does not, the common case of a scan), on a real proof of the secp256k1-zkp vectors.
 * The targets are half the speed of Grin's own C library on this machine (issue 18: 28 µs miss,
 * 37 µs hit with secp256k1-zkp -O3 → at most 56 µs and 74 µs here), and a projection of a scan
 * of 300,000 outputs (all misses but a handful). Prints a table; `--json <file>` writes it.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { hexToBytes } from '@noble/hashes/utils.js';
import { rewindBulletproof } from '../../packages/core/src/crypto/index.js';
import { loadVectors } from '../harness/vectors.js';

interface RewindCase {
  expected: { ok: boolean };
  rewind_input: { commit: string; proof: string; nonce: string; extra_data: string | null };
}

const C_LIBRARY_US = { miss: 28, hit: 37 };
const TARGET_US = { miss: 56, hit: 74 };

const args = process.argv.slice(2);
const iterations = Number(args[args.indexOf('--iterations') + 1] ?? 0) || 20_000;
const jsonFile = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;

const { cases } = loadVectors<{ cases: RewindCase[] }>('grin/bulletproof-rewind.json');
const hit = cases.find((c) => c.expected.ok && c.rewind_input.extra_data === null)!;
const commit = hexToBytes(hit.rewind_input.commit);
const proof = hexToBytes(hit.rewind_input.proof);
const nonce = hexToBytes(hit.rewind_input.nonce);
const otherNonce = nonce.slice();
otherNonce[31]! ^= 1;

function perOutputUs(rewindNonce: Uint8Array, expectOk: boolean): number[] {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      if (rewindBulletproof(commit, proof, rewindNonce).ok !== expectOk) throw new Error('the rewind answered wrongly');
    }
    rounds.push(Number(process.hrtime.bigint() - started) / iterations / 1_000);
  }
  return rounds.sort((a, b) => a - b);
}

for (let i = 0; i < 2_000; i++) rewindBulletproof(commit, proof, nonce);
const results = {
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
  iterations,
  miss: perOutputUs(otherNonce, false),
  hit: perOutputUs(nonce, true),
};
const median = (values: number[]) => values[Math.floor(values.length / 2)]!;
const rows = (['miss', 'hit'] as const).map((kind) => {
  const us = median(results[kind]);
  return { kind, median_us: Number(us.toFixed(1)), range_us: [Number(results[kind][0]!.toFixed(1)), Number(results[kind].at(-1)!.toFixed(1))], c_library_us: C_LIBRARY_US[kind], ratio_to_c: Number((C_LIBRARY_US[kind] / us).toFixed(2)), target_us: TARGET_US[kind], verdict: us <= TARGET_US[kind] ? 'PASS' : 'FAIL' };
});
console.log(`Grin rewind per output: ${results.machine.cpu}, ${results.machine.cores} cores, node ${results.machine.node}, ${iterations} × 5 rounds`);
console.table(rows);
const projectedSec = (300_000 * median(results.miss)) / 1e6;
console.log(`projected full-chain scan, 300,000 outputs (misses) on one core: ${projectedSec.toFixed(1)} s`);
if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify({ ...results, rows, projected_300k_sec: projectedSec }, null, 2));
