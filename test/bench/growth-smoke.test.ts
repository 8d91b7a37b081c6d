import { expect } from 'chai';
import { inheritedEnv, REPO_ROOT, spawnEntry } from '../harness/processes.js';

/**
 * `npm run bench:growth` at CI size, so it cannot rot: its audit part (which needs no server) on
 * both dialects with two tiny sizes. The bench checks its own seeding by a full verification and
 * every erasure and resumed verification by their results (it throws otherwise); this checks it
 * ran to its table. The routes and sweep parts wait on a server and a 60 s scheduled sweep, so
 * they run only in the full bench.
 */
describe('bench smoke (npm run bench:growth, audit part, CI-sized)', function () {
  this.timeout(180_000);

  it('grows the audit chain, erases, verifies from a checkpoint and prints the table on both dialects', async () => {
    const run = spawnEntry('test/bench/growth.ts', ['--sizes', '10,20', '--parts', 'audit', '--dialect', 'both'], { env: inheritedEnv(), cwd: REPO_ROOT });
    const code = await run.exited;
    expect(code, run.stderr()).to.equal(0);
    for (const dialect of ['sqlite', 'postgres']) {
      expect(run.stdout()).to.contain(`${dialect}: the audit chain by entries; ratio to 10 entries`);
    }
    // Two sizes per dialect, each with an erasure of the three entries planted for it.
    expect(run.stdout().match(/erasure [0-9.]+ ms ×[0-9.]+ \(≤ 100 ms (PASS|FAIL)\)/g)).to.have.length(4);
  });
});
