import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../harness/processes.js';

/** The figures `npm run bench:admission -- --json` keeps per mix (the fields checked here). */
interface MixFigures {
  dialect: string;
  mix: string;
  calibration: boolean;
  oursRounds: number[];
  ceilingRounds: number[];
  ratio: number;
  pids: Array<{ ours: number; ceiling: number }>;
  wrong: number;
}

/** `npm run bench:admission` with these arguments; its JSON. */
async function benchAdmission(args: string[]): Promise<{ restart: boolean; rounds: number; mixes: MixFigures[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-admission-smoke-'));
  const json = join(dir, 'admission.json');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=wallet-source', 'test/bench/admission.ts', '--paths', 'ceiling', '--events', '1000', '--mix-events', '200', '--block', '50', '--json', json, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output.slice(-3000)).to.equal(0);
    return JSON.parse(readFileSync(json, 'utf8')) as { restart: boolean; rounds: number; mixes: MixFigures[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The mean of the two middle values of an even count, worked out here rather than by the bench's helper. */
function middleOfEven(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}

/**
 * `npm run bench:admission`'s `ceiling` part at CI size (1,000 signed events, 200 per mix per
 * round, 4 rounds): what its verdict rests on. Every answer right; each round on a fresh pair of
 * processes unless `--restart off`; the verdict's figure the median of the rounds' ratios.
 */
describe('bench smoke (npm run bench:admission, ceiling, CI-sized)', function () {
  this.timeout(300_000);

  it('on both dialects: every mix answered right, a fresh pair of processes each round, the ratio the median of the rounds’', async () => {
    const result = await benchAdmission(['--rounds', '4']);
    expect(result.restart).to.equal(true);
    const mixes = ['premium authors', 'registered, free kinds', 'fresh-author wraps to users'];
    for (const dialect of ['sqlite', 'postgres']) {
      for (const mix of mixes) {
        const figures = result.mixes.find((m) => m.dialect === dialect && m.mix === mix && !m.calibration);
        expect(figures, `${dialect} ${mix}`).to.not.equal(undefined);
        expect(figures!.wrong, `${dialect} ${mix}: wrong answers`).to.equal(0);
      }
    }
    expect(result.mixes.filter((m) => m.calibration), 'one calibration row a run').to.have.length(1);
    for (const figures of result.mixes) {
      const what = `${figures.dialect} ${figures.mix}`;
      expect(figures.oursRounds, what).to.have.length(4);
      expect(figures.pids, what).to.have.length(4);
      const pids = figures.pids.flatMap((pair) => [pair.ours, pair.ceiling]);
      expect(new Set(pids).size, `${what}: every round's two processes are new (${pids.join(', ')})`).to.equal(8);
      expect(figures.ratio, what).to.be.closeTo(middleOfEven(figures.oursRounds.map((rate, r) => rate / figures.ceilingRounds[r]!)), 1e-9);
    }
  });

  it('--restart off: one pair of processes answers every round of a mix', async () => {
    const result = await benchAdmission(['--rounds', '2', '--dialect', 'sqlite', '--restart', 'off']);
    expect(result.restart).to.equal(false);
    for (const figures of result.mixes) {
      const what = `${figures.dialect} ${figures.mix}`;
      expect(figures.pids, what).to.have.length(2);
      expect(figures.pids[1], what).to.deep.equal(figures.pids[0]);
      expect(figures.pids[0]!.ours, what).to.not.equal(figures.pids[0]!.ceiling);
      expect(figures.wrong, what).to.equal(0);
    }
  });
});
