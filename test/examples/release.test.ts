import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freshPostgresUrl, REPO_ROOT, SECRETS_ENV, TEST_PUBLIC_API_URL, TEST_SECRETS, childEnv, runCapture } from '../harness/index.js';
// @ts-expect-error a plain-JavaScript script of the repository, without declarations
import { contentProblems, manifestProblems } from '../../scripts/release/checks.mjs';

/**
 * `npm run release` (issue 30 item 2): every workspace package as a versioned tarball. The
 * tarballs are installed into a new app outside the workspace, with nothing of this repository
 * on its resolution path, and that app boots a backend with every plugin on SQLite and on
 * Postgres, migrates with the installed CLI and starts the relay admission's command.
 */

interface Released {
  version: string;
  packages: { name: string; file: string; sha256: string }[];
}

type Manifest = Record<string, unknown> & { name: string; version: string };

const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest & { engines: unknown; workspaces: string[] };
const WORKSPACES = ['@wallet/admin-console', '@wallet/backend-core', '@wallet/cli', '@wallet/client', '@wallet/erasure', '@wallet/grin-relay', '@wallet/premium', '@wallet/relay-admission', '@wallet/server', '@wallet/tips'];

/** Without the npm_* variables of a surrounding `npm test`: the child npm must see its own project. */
function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}, timeout = 170_000): { status: number | null; output: string } {
  return runCapture(command, args, { cwd, env: childEnv({ keep: ['npm_config_nodedir'], set: { NODE_OPTIONS: '', ...extra } }), timeout });
}

/** `npm run release -- --out <out>`, run by plain Node from the checkout. */
const release = (out: string) => run(process.execPath, [join(REPO_ROOT, 'scripts', 'release.mjs'), '--out', out], REPO_ROOT);

const versionOf = (pkg: string) => (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

/** Boots a backend with every plugin on argv[2], serves it, asks it two questions, closes it. */
const APP = `import http from 'node:http';
import { createWalletBackend } from '@wallet/backend-core';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { tipsPlugin } from '@wallet/tips';
import { premiumPlugin } from '@wallet/premium';
import { erasurePlugin } from '@wallet/erasure';
import { createRelayAdmission } from '@wallet/relay-admission';

const [databaseUrl, secretsJson] = process.argv.slice(2);
const backend = await createWalletBackend({
  publicApiUrl: ${JSON.stringify(TEST_PUBLIC_API_URL)},
  databaseUrl,
  ...JSON.parse(secretsJson),
  btcEsploraUrl: 'http://127.0.0.1:9',
  btcpayUrl: 'http://127.0.0.1:9', btcpayStoreId: 'ReleaseTestStore0001', btcpayApiKey: 'release-test-api-key',
  plugins: [
    grinRelayPlugin({ enabled: true }),
    tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }),
    premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
    erasurePlugin({ enabled: true }),
  ],
});
await backend.migrate();
const server = http.createServer(backend.callback());
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = 'http://127.0.0.1:' + server.address().port + '/api/v1';
const health = await fetch(base + '/health');
const capabilities = await (await fetch(base + '/capabilities')).json();
const admission = createRelayAdmission({ databaseUrl, verifySignatures: false });
await admission.close();
await new Promise((resolve) => server.close(resolve));
await backend.close();
console.log('RESULT ' + JSON.stringify({ health: health.status, capabilities }));
`;

describe('npm run release: versioned tarballs of every workspace package', function () {
  this.timeout(300_000);
  let workDir: string;
  let out: string;
  let released: Released;

  before(() => {
    workDir = mkdtempSync(join(tmpdir(), 'wallet-release-'));
    out = join(workDir, 'tarballs');
    const result = release(out);
    expect(result.status, result.output).to.equal(0);
    released = JSON.parse(readFileSync(join(out, 'release.json'), 'utf8')) as Released;
  });
  after(() => rmSync(workDir, { recursive: true, force: true }));

  it('packs every workspace at the root version, pinned to each other, with no build info, and SHA256SUMS that match', () => {
    expect(released.version).to.equal(rootManifest.version);
    expect(released.packages.map((p) => p.name).sort()).to.deep.equal(WORKSPACES);
    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
    for (const { name, file } of released.packages) {
      const bytes = readFileSync(join(out, file));
      expect(sums, file).to.include(`${createHash('sha256').update(bytes).digest('hex')}  ${file}\n`);
      const listed = run('tar', ['-tzf', join(out, file)], out);
      expect(listed.status, listed.output).to.equal(0);
      expect(listed.output.split('\n').filter((path) => path.endsWith('.tsbuildinfo')), name).to.deep.equal([]);
      const manifest = JSON.parse(run('tar', ['-xzOf', join(out, file), 'package/package.json'], out).output) as Manifest & Record<string, Record<string, string> | undefined>;
      expect(manifest.version, name).to.equal(rootManifest.version);
      expect(manifest.engines, name).to.deep.equal(rootManifest.engines);
      for (const field of ['dependencies', 'peerDependencies']) {
        for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
          if (dep.startsWith('@wallet/')) expect(range, `${name} ${field}.${dep}`).to.equal(rootManifest.version);
        }
      }
    }
  });

  it('refuses manifests that would make an inconsistent or unpublishable set, and tarballs with build info or missing entries', () => {
    const ok = (name: string, extra: Record<string, unknown> = {}) => ({
      dir: join(REPO_ROOT, 'packages', name),
      manifest: { name: `@wallet/${name}`, version: '1.2.3', files: ['dist'], engines: { node: '^24.11.0' }, publishConfig: { access: 'public' }, ...extra },
    });
    const root = { version: '1.2.3', engines: { node: '^24.11.0' } };
    expect(manifestProblems(REPO_ROOT, root, [ok('a'), ok('b', { peerDependencies: { '@wallet/a': '1.2.3' } })])).to.deep.equal([]);
    const problems = manifestProblems(REPO_ROOT, root, [
      ok('a', { version: '1.2.2' }),
      ok('b', { peerDependencies: { '@wallet/a': '^1.2.3' } }),
      ok('c', { private: true }),
      ok('d', { publishConfig: undefined }),
      ok('e', { files: undefined }),
      ok('f', { engines: { node: '>=20' } }),
    ]) as string[];
    expect(problems).to.have.length(6);
    expect(problems.join('\n')).to.match(/packages\/a: version 1\.2\.2/).and.match(/peerDependencies\.@wallet\/a is "\^1\.2\.3"/).and.match(/"private"/).and.match(/access/).and.match(/"files"/).and.match(/engines/);

    const manifest = { name: '@wallet/x', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, bin: { x: './dist/bin.js' } };
    const complete = ['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/bin.js'].map((path) => ({ path, size: 1 }));
    expect(contentProblems(manifest, complete)).to.deep.equal([]);
    expect(contentProblems(manifest, [...complete, { path: 'dist/.tsbuildinfo', size: 59_465 }])).to.deep.equal(['@wallet/x: ships dist/.tsbuildinfo (59465 bytes)']);
    expect(contentProblems(manifest, complete.filter(({ path }) => path !== 'dist/bin.js'))).to.deep.equal(['@wallet/x: the tarball lacks dist/bin.js']);
  });

  it('deletes nothing it did not write: refuses an --out that holds the checkout or a folder of other files; in an earlier release keeps what is not its own', () => {
    for (const dir of [REPO_ROOT, join(REPO_ROOT, '..')]) {
      const refused = release(dir);
      expect(refused.status, refused.output).to.equal(1);
      expect(refused.output).to.include('holds the checkout');
    }
    expect(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).to.include('"workspaces"');
    const other = join(workDir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'mine');
    const refused = release(other);
    expect(refused.status, refused.output).to.equal(1);
    expect(refused.output).to.include('holds no earlier release');
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).to.equal('mine');

    writeFileSync(join(out, 'keep.txt'), 'mine');
    const again = release(out);
    expect(again.status, again.output).to.equal(0);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).to.equal('mine');
    expect((JSON.parse(readFileSync(join(out, 'release.json'), 'utf8')) as Released).packages.map((p) => p.file).sort()).to.deep.equal(released.packages.map((p) => p.file).sort());
  });

  it('installs outside the workspace and boots with every plugin on SQLite and Postgres; the installed CLIs run', async function () {
    const app = join(workDir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'release-consumer', private: true, type: 'module' }));
    const tarballs = released.packages.map(({ file }) => join(out, file));
    const installed = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--@wallet:registry=http://127.0.0.1:9/', '--fetch-retries=0', ...tarballs, `better-sqlite3@${versionOf('better-sqlite3')}`, `pg@${versionOf('pg')}`], app);
    expect(installed.status, installed.output).to.equal(0);
    // The install above could not take an @wallet name from any registry (the scope's registry is a
    // closed port: npm does look up a dependency among the tarballs when it meets it before the
    // tarball, fails, and takes the tarball), and nothing of this repository is on the app's
    // resolution path.
    const resolved = run(process.execPath, ['-e', "console.log(require.resolve('@wallet/backend-core'))"], app);
    expect(resolved.output).to.include(join(app, 'node_modules', '@wallet', 'backend-core'));

    writeFileSync(join(app, 'app.mjs'), APP);
    const databases = { sqlite: `sqlite:${join(workDir, 'wallet.db')}`, postgres: await freshPostgresUrl() };
    for (const [dialect, databaseUrl] of Object.entries(databases)) {
      const booted = run(process.execPath, ['app.mjs', databaseUrl, JSON.stringify(TEST_SECRETS)], app);
      const line = booted.output.split('\n').find((l) => l.startsWith('RESULT '));
      expect(line, `${dialect}: ${booted.output}`).to.be.a('string');
      const result = JSON.parse(line!.slice('RESULT '.length)) as { health: number; capabilities: Record<string, unknown> };
      expect(result.health, dialect).to.equal(200);
      expect(result.capabilities, dialect).to.include.keys('grin_relay', 'tips', 'premium', 'erasure');

      const status = run(join(app, 'node_modules', '.bin', 'wallet-backend'), ['migrate', '--status'], app, {
        DATABASE_URL: databaseUrl,
        PUBLIC_API_URL: TEST_PUBLIC_API_URL,
        ...SECRETS_ENV,
        DATA_DIR: join(workDir, `data-${dialect}`),
      });
      expect(status.status, `${dialect}: ${status.output}`).to.equal(0);
      expect(status.output, dialect).to.not.match(/pending/i);
    }
    const admission = run(join(app, 'node_modules', '.bin', 'wallet-relay-admission'), ['--help'], app);
    expect(admission.status, admission.output).to.equal(0);
    expect(admission.output).to.include('strfry');
  });
});
