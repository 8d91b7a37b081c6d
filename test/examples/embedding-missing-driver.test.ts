import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../harness/index.js';

/**
 * A host without the database driver its URL needs (issue 30, 3): the boot must refuse with the
 * documented BootError and print nothing else. knex logs the failed driver load, stack included,
 * before it throws; with the default logger that went to stdout next to the BootError.
 *
 * The drivers are dependencies of this repository, so the child hides them: its resolver looks
 * `pg` and `better-sqlite3` up in an empty directory, which makes Node's own "Cannot find module"
 * error, as a host without them gets (the clean install in package-tarball.test.ts does the same
 * for real, when the registry is reachable).
 */
const BOOT = `
import { createRequire } from 'node:module';
const Module = createRequire(import.meta.url)('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, isMain, options) {
  if (request === 'pg' || request === 'better-sqlite3') return resolve.call(this, request, parent, isMain, { paths: [process.env.EMPTY_DIR] });
  return resolve.call(this, request, parent, isMain, options);
};
const { BootError, createWalletBackend } = await import('@wallet/backend-core');
try {
  await createWalletBackend({ publicApiUrl: process.env.PUBLIC_API_URL, databaseUrl: process.env.DATABASE_URL, plugins: [], ...JSON.parse(process.env.SECRETS) });
  console.log('booted');
} catch (err) {
  if (!(err instanceof BootError)) throw err;
  console.error(err.message);
  process.exitCode = 1;
}
`;

describe('embedding: a missing database driver', function () {
  this.timeout(60_000);
  let emptyDir: string;

  before(() => {
    emptyDir = mkdtempSync(join(tmpdir(), 'wallet-no-driver-'));
  });
  after(() => rmSync(emptyDir, { recursive: true, force: true }));

  for (const [databaseUrl, driver, kind] of [
    ['sqlite::memory:', 'better-sqlite3', 'sqlite'],
    ['postgres://wallet@127.0.0.1:1/wallet', 'pg', 'postgres'],
  ] as const) {
    it(`${kind}: prints the BootError naming \`npm install ${driver}\` and nothing else`, () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=wallet-source', '--input-type=module', '-e', BOOT], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', EMPTY_DIR: emptyDir, PUBLIC_API_URL: TEST_PUBLIC_API_URL, DATABASE_URL: databaseUrl, SECRETS: JSON.stringify(TEST_SECRETS) },
        encoding: 'utf8',
        timeout: 50_000,
      });
      const output = `status ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      expect(run.status, output).to.equal(1);
      expect(run.stdout, output).to.equal('');
      expect(run.stderr.trim().split('\n'), output).to.deep.equal([
        'wallet backend refused to start (1 problem):',
        `  - DATABASE_URL is a ${kind} database (${kind === 'sqlite' ? 'sqlite::memory:' : 'postgres://wallet@127.0.0.1:1/wallet'}) but its driver is not installed: run \`npm install ${driver}\``,
      ]);
    });
  }
});
