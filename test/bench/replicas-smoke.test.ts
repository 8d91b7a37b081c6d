import { expect } from 'chai';
import { inheritedEnv, REPO_ROOT, spawnEntry } from '../harness/processes.js';

/**
 * `npm run bench:replicas` at CI size (the replica tier): three reference servers on one Postgres
 * behind the round-robin proxy, short load phases, kill -9 and SIGTERM with restarts, the lease
 * window and the shared limiter. The bench exits 1 when a required property fails (a lost
 * acknowledged write, a 5xx that was not the killed replica's in-flight request, a slow or
 * unclean drain, a task run more than once per interval, a limiter budget per replica); the
 * throughput ratio is report-only. This checks the exit code and that every property was checked.
 */
describe('replica tier (npm run bench:replicas, CI-sized)', function () {
  this.timeout(300_000);

  it('three replicas on one Postgres: no lost write, no unexpected 5xx, clean drain, one lease run per interval, one limiter budget', async () => {
    const run = spawnEntry('test/bench/replicas.ts', ['--duration', '3', '--workers', '6', '--lease-window', '4'], { env: inheritedEnv(), cwd: REPO_ROOT });
    const code = await run.exited;
    const out = run.stdout();
    expect(code, `${out}\n${run.stderr()}`).to.equal(0);
    const required = out.split('\n').filter((line) => /^ {2}(PASS|FAIL) /.test(line) && !line.includes('report only'));
    expect(required.filter((line) => line.includes('FAIL')), out).to.deep.equal([]);
    for (const what of ['kill -9: every 5xx', 'the restarted replica takes traffic again', 'SIGTERM: no 5xx', 'SIGTERM: the replica drained and exited 0', 'no acknowledged registration lost', 'no acknowledged tip lost', 'no acknowledged relay entry lost', 'still refreshes', 'leases:', 'limiter:']) {
      expect(required.some((line) => line.includes(what)), `${what}\n${out}`).to.equal(true);
    }
  });
});
