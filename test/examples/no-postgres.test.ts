import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { expect } from 'chai';
import { REPO_ROOT } from '../harness/index.js';

/**
 * "A machine with Node and nothing else": a slice of the suite runs in a network namespace where
 * nothing answers on 127.0.0.1:5432, so the harness must start its own Postgres from npm and
 * still run the Postgres half. Needs root and iproute2 (as on CI); elsewhere it says why it skipped.
 */
describe('harness: a machine without Postgres', () => {
  const namespace = `wallet-nopg-${randomBytes(3).toString('hex')}`;
  const can = userInfo().uid === 0 && spawnSync('ip', ['netns', 'add', namespace]).status === 0;

  after(() => {
    if (can) spawnSync('ip', ['netns', 'del', namespace]);
  });

  it('starts a throwaway Postgres from npm and runs the Postgres half against it', function () {
    if (!can) {
      console.log('  skipped: needs root and `ip netns` (iproute2) to hide the local Postgres');
      this.skip();
    }
    this.timeout(120_000);
    expect(spawnSync('ip', ['netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up']).status).to.equal(0);
    const env = { ...process.env };
    delete env.WALLET_TEST_PG_URL;
    const run = spawnSync('ip', ['netns', 'exec', namespace, process.execPath, 'node_modules/mocha/bin/mocha.js', 'test/core/storage/primitives.test.ts', '--reporter', 'dot'], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
      timeout: 110_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).to.equal(0);
    expect(output).to.match(/no Postgres at postgres:\/\/postgres@127\.0\.0\.1:5432\/postgres: started a throwaway one from npm/);
    expect(output).to.match(/\d+ passing/);
    expect(output).to.not.match(/failing/);
  });
});
