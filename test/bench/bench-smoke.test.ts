import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, serverNodeFlags } from '../harness/processes.js';
import { bareNodeFlags } from './http/children.js';
import { ENDPOINTS } from './http/endpoints.js';
import { runBench, type BenchResult } from './run.js';

/**
 * `npm run bench` at CI size: its own orchestration (runBench) with 1 round, short (0.5 s) runs and 4
 * connections on both dialects, the wallet server from source (no `tsc -b` needed). Every
 * endpoint must have been answered with 2xx only by BOTH servers (runBench throws otherwise, with
 * the first bad body), and the JSON must be written where asked.
 */
describe('bench smoke (npm run bench, CI-sized)', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'wallet-bench-smoke-'));
  const outFile = join(dir, 'latest.json');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every endpoint on both dialects with zero errors and zero non-2xx for both servers, and writes the JSON', async () => {
    const lines: string[] = [];
    const result: BenchResult = await runBench({
      rounds: 1,
      connections: 4,
      durationSec: 0.5,
      warmupSec: 0.1,
      dialects: ['sqlite', 'postgres'],
      walletEntry: 'source',
      outFile,
      pgAdminUrl: process.env.WALLET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      log: (line) => lines.push(line),
    });
    for (const dialect of ['sqlite', 'postgres'] as const) {
      for (const endpoint of ENDPOINTS) {
        for (const server of ['wallet', 'bare'] as const) {
          const run = result.runs.find((r) => r.dialect === dialect && r.endpoint === endpoint.id && r.server === server);
          const what = `${dialect} ${endpoint.id} ${server}`;
          expect(run, what).to.not.equal(undefined);
          expect(run!.ok2xx, what).to.be.greaterThan(0);
          expect(run!.requests, what).to.be.greaterThan(0);
          expect([run!.non2xx, run!.errors, run!.timeouts], what).to.deep.equal([0, 0, 0]);
          // CPU per request from /proc (Linux): a number, not left null; ≥ 0 since /proc counts 10 ms ticks.
          if (process.platform === 'linux') expect(run!.cpuUsPerRequest, what).to.be.a('number').and.at.least(0);
          // Both servers' memory is sampled, so it can be set side by side.
          if (process.platform === 'linux') expect(run!.rssMaxMb, what).to.be.a('number').and.greaterThan(0);
        }
      }
    }
    expect(result.summary).to.have.length(2 * ENDPOINTS.length);
    // The run bundled the bare server into a folder of its own, gone with the run.
    const bundled = lines.map((line) => /^bare server bundled into (\S+) /.exec(line)?.[1]).find((folder) => folder !== undefined);
    expect(bundled, 'the run names its bundle folder').to.match(/^test\/bench\/results\/request-/);
    expect(existsSync(join(REPO_ROOT, bundled!)), `${bundled} removed`).to.equal(false);
    expect(existsSync(outFile)).to.equal(true);
    const written = JSON.parse(readFileSync(outFile, 'utf8')) as BenchResult;
    expect(written.runs).to.have.length(2 * 2 * ENDPOINTS.length);
    expect(written.machine.cores).to.be.greaterThan(0);
    if (process.platform === 'linux') expect(written.machine.stealPercent).to.be.a('number').and.within(0, 100);
    expect(written.walletRssMaxMb).to.have.keys(['sqlite', 'postgres']);
    expect(written.bareRssMaxMb).to.have.keys(['sqlite', 'postgres']);
    // Each server's peak per dialect is the largest RSS any of its runs on that dialect sampled.
    if (process.platform === 'linux') {
      for (const dialect of ['sqlite', 'postgres'] as const) {
        for (const [server, peaks] of [['wallet', written.walletRssMaxMb], ['bare', written.bareRssMaxMb]] as const) {
          const sampled = written.runs.filter((r) => r.dialect === dialect && r.server === server).map((r) => r.rssMaxMb!);
          expect(peaks[dialect], `${dialect} ${server} peak`).to.equal(Math.max(...sampled));
        }
      }
    }
    // The same runtime settings for both: start:prod's flags (this run sets neither BENCH_*_FLAGS).
    expect(written.flags.bare).to.deep.equal(written.flags.wallet).and.deep.equal(serverNodeFlags());
  });

  it("gives the bare server the wallet's Node flags unless BENCH_BARE_FLAGS names its own (empty: Node's defaults)", () => {
    const saved = { bare: process.env.BENCH_BARE_FLAGS, wallet: process.env.BENCH_WALLET_FLAGS };
    const set = (name: 'BENCH_BARE_FLAGS' | 'BENCH_WALLET_FLAGS', value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value));
    try {
      set('BENCH_BARE_FLAGS', undefined);
      set('BENCH_WALLET_FLAGS', undefined);
      expect(bareNodeFlags()).to.deep.equal(serverNodeFlags());
      set('BENCH_WALLET_FLAGS', '--max-old-space-size=512');
      expect(bareNodeFlags()).to.deep.equal(['--max-old-space-size=512']);
      set('BENCH_BARE_FLAGS', '');
      expect(bareNodeFlags()).to.deep.equal([]);
      set('BENCH_BARE_FLAGS', '--cpu-prof  --cpu-prof-dir=/tmp');
      expect(bareNodeFlags()).to.deep.equal(['--cpu-prof', '--cpu-prof-dir=/tmp']);
    } finally {
      set('BENCH_BARE_FLAGS', saved.bare);
      set('BENCH_WALLET_FLAGS', saved.wallet);
    }
  });

  for (const restartEachRound of [true, false]) {
    it(restartEachRound ? 'starts both servers afresh for every round' : 'keeps one process of each server for all rounds with BENCH_RESTART=off', async () => {
      const result = await runBench({
        rounds: 2,
        connections: 2,
        durationSec: 0.2,
        warmupSec: 0.1,
        dialects: ['sqlite', 'postgres'],
        endpoints: ['health'],
        walletEntry: 'source',
        restartEachRound,
        outFile: join(dir, `restart-${restartEachRound}.json`),
        pgAdminUrl: process.env.WALLET_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        log: () => undefined,
      });
      for (const dialect of ['sqlite', 'postgres'] as const) {
        for (const server of ['wallet', 'bare'] as const) {
          const what = `${dialect} ${server}`;
          const pids = [1, 2].map((round) => result.runs.find((r) => r.dialect === dialect && r.server === server && r.round === round)!.pid);
          expect(pids[0], what).to.be.a('number');
          if (restartEachRound) expect(pids[1], what).to.not.equal(pids[0]);
          else expect(pids[1], what).to.equal(pids[0]);
        }
      }
    });
  }
});
