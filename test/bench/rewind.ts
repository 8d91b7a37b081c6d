/**
 * `npm run bench:rewind [-- --c-source <secp256k1-zkp tarball or directory>] [--iterations N] [--rounds N] [--json file]`:
 * the cost of rewinding one Grin Bulletproof (a hit: the nonce opens it; a miss: it does not, the
 * common case of a scan), on a real proof of the secp256k1-zkp vectors, ours beside Grin's own C
 * library in the same run.
 *
 * With `--c-source`, the bench builds secp256k1-zkp from that source (autogen, configure with the
 * bulletproof modules, make: its own -O3 flags; cached in the OS temp directory by source name)
 * and test/bench/rewind-c/rewind.c against it, then runs interleaved rounds (who goes first
 * alternates): ours in this process, the C program as a child, the same proof, nonce and count.
 * Each side reports CPU time of its own process and wall time per output. Ours is timed two ways:
 * what a scan runs (`rewoundValue`: the curve check of the commitment only when the nonce opens
 * the proof, no blinding factor) and `rewindBulletproof` (the C function's whole work). Target
 * (issue 35): the scan's rewind at least 0.5× the C library's speed on both miss and hit; the
 * full rewind's ratio is printed beside it. Without `--c-source` it times
 * ours only and prints no ratio (a ratio against a figure not measured in the same run is not a
 * result). Also prints a projection of a scan of 300,000 outputs (all misses).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hexToBytes } from '@noble/hashes/utils.js';
import { rewindBulletproof, rewoundValue } from '../../packages/core/src/crypto/index.js';
import { loadVectors } from '../harness/vectors.js';
import { median } from './median.js';

interface RewindCase {
  expected: { ok: boolean };
  rewind_input: { commit: string; proof: string; nonce: string; extra_data: string | null };
}
type Kind = 'miss' | 'hit';
interface Timing {
  cpuUs: number;
  wallUs: number;
}

const TARGET_RATIO = 0.5;
const TIMER_SOURCE = fileURLToPath(new URL('./rewind-c/rewind.c', import.meta.url));

const { values: args } = parseArgs({
  options: {
    'c-source': { type: 'string' },
    iterations: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '6' },
    json: { type: 'string' },
  },
});
const iterations = Number(args.iterations);
const rounds = Number(args.rounds);
if (!Number.isSafeInteger(iterations) || iterations < 10) throw new Error('--iterations must be a whole number of at least 10');
if (!Number.isSafeInteger(rounds) || rounds < 2 || rounds % 2 !== 0) throw new Error('--rounds must be an even whole number (who goes first alternates)');
const progress = (message: string) => process.stderr.write(`${message}\n`);

const { cases } = loadVectors<{ cases: RewindCase[] }>('grin/bulletproof-rewind.json');
const hit = cases.find((c) => c.expected.ok && c.rewind_input.extra_data === null)!;
const commit = hexToBytes(hit.rewind_input.commit);
const proof = hexToBytes(hit.rewind_input.proof);
const nonce = hexToBytes(hit.rewind_input.nonce);
// A miss: the same nonce with its last bit flipped, as the C program makes it.
const otherNonce = nonce.slice();
otherNonce[31]! ^= 1;

/**
 * Ours, `iterations` rewinds of each kind in this process: CPU time of the process (all threads) and wall time per output.
 * `scan` is what a scan runs (`rewoundValue`: the value or nothing); `full` is `rewindBulletproof`, the C function's
 * whole work (the commitment's curve check first, the blinding factor on a hit).
 */
function ours(path: 'scan' | 'full'): Record<Kind, Timing> {
  const opens = path === 'scan' ? (n: Uint8Array) => rewoundValue(commit, proof, n) !== null : (n: Uint8Array) => rewindBulletproof(commit, proof, n).ok;
  const time = (rewindNonce: Uint8Array, expectOk: boolean): Timing => {
    const cpu0 = process.cpuUsage();
    const wall0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      if (opens(rewindNonce) !== expectOk) throw new Error('our rewind answered wrongly');
    }
    const cpu = process.cpuUsage(cpu0);
    return { cpuUs: (cpu.user + cpu.system) / iterations, wallUs: Number(process.hrtime.bigint() - wall0) / 1_000 / iterations };
  };
  return { miss: time(otherNonce, false), hit: time(nonce, true) };
}

/** Builds secp256k1-zkp from `source` (a .tar.gz or an unpacked directory) and the timing program; returns the program's path. */
function buildC(source: string): { program: string; describe: string } {
  const absolute = resolve(source);
  if (!existsSync(absolute)) throw new Error(`--c-source ${source}: no such file or directory`);
  for (const tool of ['autoreconf', 'libtoolize', 'make', 'gcc']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      throw new Error(`building secp256k1-zkp needs ${tool}: apt-get install build-essential autoconf automake libtool libgmp-dev`);
    }
  }
  const name = basename(absolute).replace(/\.tar\.gz$/, '');
  const work = join(tmpdir(), `wallet-bench-rewind-c-${name}`);
  mkdirSync(work, { recursive: true });
  let tree = absolute;
  if (statSync(absolute).isFile()) {
    if (!existsSync(join(work, name))) {
      progress(`unpacking ${absolute} …`);
      execFileSync('tar', ['xzf', absolute, '-C', work]);
    }
    tree = join(work, name);
  }
  const library = join(tree, '.libs', 'libsecp256k1.a');
  if (!existsSync(library)) {
    progress(`building secp256k1-zkp in ${tree} (autogen, configure, make; a minute or two) …`);
    const run = (command: string, argv: string[]) => execFileSync(command, argv, { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
    run('./autogen.sh', []);
    run('./configure', ['--enable-experimental', '--enable-module-generator', '--enable-module-commitment', '--enable-module-bulletproof', '--disable-tests', '--disable-benchmark']);
    run('make', ['-j2']);
  }
  const program = join(work, 'rewind');
  execFileSync('gcc', ['-O2', '-I', join(tree, 'include'), TIMER_SOURCE, library, '-lgmp', '-o', program]);
  const cflags = /^CFLAGS = (.*)$/m.exec(execFileSync('sh', ['-c', 'cat Makefile'], { cwd: tree, encoding: 'utf8' }))?.[1] ?? '?';
  return { program, describe: `secp256k1-zkp ${name} (its CFLAGS: ${cflags.replace(/ -W[^ ]*/g, '').trim()}), timer gcc -O2` };
}

/** The C library, `iterations` rewinds of each kind in a child process, as it reports them. */
function theC(program: string): Record<Kind, Timing> {
  const out = spawnSync(program, [hit.rewind_input.commit, hit.rewind_input.proof, hit.rewind_input.nonce, String(iterations)], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`the C rewind failed (exit ${out.status}): ${out.stderr}${out.stdout}`);
  const parsed = JSON.parse(out.stdout) as Record<Kind, { cpu_us: number; wall_us: number }>;
  return { miss: { cpuUs: parsed.miss.cpu_us, wallUs: parsed.miss.wall_us }, hit: { cpuUs: parsed.hit.cpu_us, wallUs: parsed.hit.wall_us } };
}

const c = args['c-source'] === undefined ? null : buildC(args['c-source']);

// Warm both: the JIT here, the page cache and the library's tables there.
for (let i = 0; i < 2_000; i++) {
  rewindBulletproof(commit, proof, nonce);
  rewoundValue(commit, proof, otherNonce);
}
if (c !== null) theC(c.program);

const PATHS = ['scan', 'full'] as const;
const runs: { scan: Array<Record<Kind, Timing>>; full: Array<Record<Kind, Timing>>; c: Array<Record<Kind, Timing>> } = { scan: [], full: [], c: [] };
for (let round = 0; round < rounds; round++) {
  const order = c === null ? ['ours'] : round % 2 === 0 ? ['ours', 'c'] : ['c', 'ours'];
  for (const who of order) {
    if (who === 'ours') for (const path of PATHS) runs[path].push(ours(path));
    else runs.c.push(theC(c!.program));
  }
  const at = (path: 'scan' | 'full') => `${runs[path].at(-1)!.miss.cpuUs.toFixed(1)} / ${runs[path].at(-1)!.hit.cpuUs.toFixed(1)}`;
  const lastC = runs.c.at(-1);
  progress(`  round ${round + 1}: miss / hit µs CPU: ours scan ${at('scan')}, full ${at('full')}${lastC === undefined ? '' : `; C ${lastC.miss.cpuUs.toFixed(1)} / ${lastC.hit.cpuUs.toFixed(1)}`}`);
}

const rows = PATHS.flatMap((path) =>
  (['miss', 'hit'] as const).map((kind) => {
    const oursCpu = median(runs[path].map((r) => r[kind].cpuUs));
    const oursWall = median(runs[path].map((r) => r[kind].wallUs));
    const label = `${path === 'scan' ? 'scan (rewoundValue)' : 'full (rewindBulletproof)'} ${kind}`;
    if (c === null) return { ours: label, ours_cpu_us: Number(oursCpu.toFixed(1)), ours_wall_us: Number(oursWall.toFixed(1)) };
    const cCpu = median(runs.c.map((r) => r[kind].cpuUs));
    const cWall = median(runs.c.map((r) => r[kind].wallUs));
    const ratio = cCpu / oursCpu;
    return {
      ours: label,
      ours_cpu_us: Number(oursCpu.toFixed(1)),
      c_cpu_us: Number(cCpu.toFixed(1)),
      ours_wall_us: Number(oursWall.toFixed(1)),
      c_wall_us: Number(cWall.toFixed(1)),
      ratio_cpu: Number(ratio.toFixed(2)),
      ratio_wall: Number((cWall / oursWall).toFixed(2)),
      // The target is on what a scan runs; the full rewind's ratio is reported beside it.
      verdict: path === 'scan' ? `${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'} (≥ ${TARGET_RATIO}×)` : 'report',
    };
  }),
);
console.log(`Grin rewind per output: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rounds} interleaved rounds × ${iterations} rewinds of each kind and path`);
console.log(c === null ? 'no C baseline (pass --c-source <secp256k1-zkp source> to build and time it beside ours)' : `C baseline: ${c.describe}`);
console.table(rows);
const projectedSec = (300_000 * median(runs.scan.map((r) => r.miss.cpuUs))) / 1e6;
console.log(`projected full-chain scan, 300,000 outputs (misses) on one core: ${projectedSec.toFixed(1)} s`);
if (args.json !== undefined) writeFileSync(args.json, JSON.stringify({ iterations, rounds, c: c?.describe ?? null, runs, rows, projected_300k_sec: projectedSec }, null, 2));
