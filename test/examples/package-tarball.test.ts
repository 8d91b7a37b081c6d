import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { childEnv, REPO_ROOT, requireTool, runCapture, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../harness/index.js';

/**
 * The published shape of @wallet/backend-core (issue 14 item 12): `npm pack` of the workspace,
 * installed into a clean project next to nothing but TypeScript and @types/node. Its public types
 * must resolve there (`backend.app` is a Koa app, not `any`), and with neither database driver
 * installed (they are optional peer dependencies) the boot error names the `npm install` to run.
 *
 * The install resolves the core package's dependencies from the registry (npm's cache holds the
 * tarballs but not the package documents `npm ci` never fetched); offline, the install part is
 * skipped with the reason printed, except in CI (`WALLET_CI=1`), where it fails.
 */

const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED|network/i;

/** Child npm/tsc/node runs, without the npm_* variables of a surrounding `npm test`. */
const run = (command: string, args: string[], cwd: string) => runCapture(command, args, { cwd, env: childEnv(), timeout: 80_000 });

function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

const CONSUMER_TS = `import type Koa from 'koa';
import { BootError, createWalletBackend } from '@wallet/backend-core';

type IsAny<T> = 0 extends 1 & T ? true : false;

export async function build(secrets: { jwtSecret: string; pepperSecret: string; ipHashSalt: string; adminKeyIntegritySecret: string; adminSessionSecret: string }) {
  const backend = await createWalletBackend({ publicApiUrl: 'https://wallet.example.test', databaseUrl: 'sqlite::memory:', plugins: [], ...secrets });
  const app: Koa = backend.app;
  app.use(async (ctx, next) => {
    ctx.status = 204;
    await next();
  });
  const appIsNotAny: IsAny<typeof backend.app> = false;
  // @ts-expect-error a number is not a Koa middleware (unused, and so an error, if app were any)
  backend.app.use(42);
  const problems: readonly string[] = new BootError(['x']).problems;
  return { app, appIsNotAny, problems };
}
`;

/** Boots with each dialect's URL; neither driver is installed, so both must refuse with the install hint. */
const CONSUMER_RUN = `import { createWalletBackend } from '@wallet/backend-core';
const secrets = JSON.parse(process.argv[2]);
const out = {};
for (const databaseUrl of ['sqlite::memory:', 'postgres://wallet@127.0.0.1:1/wallet']) {
  try {
    const backend = await createWalletBackend({ publicApiUrl: ${JSON.stringify(TEST_PUBLIC_API_URL)}, databaseUrl, plugins: [], ...secrets });
    await backend.close?.();
    out[databaseUrl] = { booted: true };
  } catch (err) {
    out[databaseUrl] = { name: err.name, problems: err.problems, message: err.message };
  }
}
console.log('RESULT ' + JSON.stringify(out));
`;

describe('@wallet/backend-core tarball', function () {
  this.timeout(120_000);
  let workDir: string;
  let tarball: string;
  let files: string[];

  before(() => {
    workDir = mkdtempSync(join(tmpdir(), 'wallet-core-tarball-'));
    const built = run(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-b', 'packages/core'], REPO_ROOT);
    expect(built.status, built.output).to.equal(0);
    const packed = run('npm', ['pack', '-w', 'packages/core', '--pack-destination', workDir, '--json', '--ignore-scripts'], REPO_ROOT);
    expect(packed.status, packed.output).to.equal(0);
    const manifest = JSON.parse(packed.output.slice(packed.output.indexOf('['), packed.output.lastIndexOf(']') + 1)) as { filename: string; files: { path: string }[] }[];
    tarball = join(workDir, manifest[0]!.filename);
    files = manifest[0]!.files.map((f) => f.path);
  });
  after(() => rmSync(workDir, { recursive: true, force: true }));

  it('carries README, LICENSE and the build output; no build info, no tests; every exported file is in it', () => {
    expect(files).to.include.members(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts']);
    expect(files.filter((f) => f.endsWith('.tsbuildinfo'))).to.deep.equal([]);
    expect(files.filter((f) => /^test\/|\.test\.[cm]?[jt]s$/.test(f))).to.deep.equal([]);
    expect(files.filter((f) => !/^(dist|src)\//.test(f)).sort()).to.deep.equal(['LICENSE', 'README.md', 'package.json']);
    // The `source` condition (the monorepo's tests run from src/) names src files: they ship too,
    // as do the declaration and source maps that point at them.
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/core/package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>;
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const conditions of Object.values(pkg.exports)) {
      for (const target of Object.values(conditions)) expect(files, target).to.include(target.replace(/^\.\//, ''));
    }
    expect(pkg.dependencies).to.include.keys('@types/koa', 'koa', '@koa/router', 'knex');
    expect(pkg.dependencies).to.not.have.any.keys('pg', 'better-sqlite3');
    expect(Object.keys(pkg.peerDependencies).sort()).to.deep.equal(['better-sqlite3', 'pg']);
    expect(pkg.peerDependenciesMeta).to.deep.equal({ 'better-sqlite3': { optional: true }, pg: { optional: true } });
  });

  it('installs into a clean project: strict TypeScript sees backend.app as a Koa app; a missing driver is a clear boot error', function () {
    const project = join(workDir, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, `typescript@${versionOf('typescript')}`, `@types/node@${versionOf('@types/node')}`],
      project,
    );
    // Offline in CI, no skip: the status check below fails with npm's output.
    requireTool(this, installed.status === 0 || !NETWORK_FAILURE.test(installed.output), {
      skipped: `      skipped: the clean install needs the npm registry, which is unreachable:\n${installed.output.trim().split('\n').slice(-3).join('\n')}`,
    });
    expect(installed.status, installed.output).to.equal(0);
    const present = (name: string) => spawnSync('node', ['-e', `require.resolve(${JSON.stringify(name)})`], { cwd: project }).status === 0;
    expect(present('pg'), 'pg is an optional peer, not installed').to.equal(false);
    expect(present('better-sqlite3'), 'better-sqlite3 is an optional peer, not installed').to.equal(false);

    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS);
    const compiled = run(
      join(project, 'node_modules', '.bin', 'tsc'),
      ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', 'consumer.ts'],
      project,
    );
    expect(compiled.status, compiled.output).to.equal(0);

    writeFileSync(join(project, 'boot.mjs'), CONSUMER_RUN);
    const booted = run('node', ['boot.mjs', JSON.stringify(TEST_SECRETS)], project);
    const line = booted.output.split('\n').find((l) => l.startsWith('RESULT '));
    expect(line, booted.output).to.be.a('string');
    // Only the BootErrors: knex's own log of the failed driver load (with its stack) stays out.
    expect(booted.output.trim().split('\n'), booted.output).to.deep.equal([line]);
    const result = JSON.parse(line!.slice('RESULT '.length)) as Record<string, { name?: string; problems?: string[] }>;
    expect(result['sqlite::memory:']?.name, booted.output).to.equal('BootError');
    expect(result['sqlite::memory:']?.problems?.join('\n')).to.include('npm install better-sqlite3');
    expect(result['postgres://wallet@127.0.0.1:1/wallet']?.name, booted.output).to.equal('BootError');
    expect(result['postgres://wallet@127.0.0.1:1/wallet']?.problems?.join('\n')).to.include('npm install pg');
  });
});
