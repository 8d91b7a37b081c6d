import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { eachDialect, freePort, freshDatabaseUrl, REPO_ROOT, serverNodeFlags, TestClient, TEST_SECRETS } from '../harness/index.js';

/**
 * The production install path (docs/operators.md, "Production install"): build with the dev
 * dependencies, install only the production ones (`prepare` must not need TypeScript), run the
 * built server with `npm run start:prod`, no compiler involved.
 *
 * The suite runs the built server from dist/ for real. The whole sequence with two `npm ci`
 * takes about 4 minutes here (better-sqlite3 compiles from source twice), so it runs only with
 * WALLET_TEST_PRODUCTION_INSTALL=1.
 */
const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  PUBLIC_API_URL: 'https://wallet.example.test',
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  PEPPER_SECRET: TEST_SECRETS.pepperSecret,
  IP_HASH_SALT: TEST_SECRETS.ipHashSalt,
  ADMIN_KEY_INTEGRITY_SECRET: TEST_SECRETS.adminKeyIntegritySecret,
  ADMIN_SESSION_SECRET: TEST_SECRETS.adminSessionSecret,
};

interface Running {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Running {
  const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, output: () => output, exited };
}

async function waitForLine(running: Running, text: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!running.output().includes(text)) {
    if (running.child.exitCode !== null || Date.now() - started > timeoutMs) throw new Error(`"${text}" did not appear:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts `command` in `cwd` as a production server, checks liveness and readiness, stops it with SIGTERM. */
async function serveAndProbe(command: string, args: string[], cwd: string, env: Record<string, string>, expectedExit: number | string = 0): Promise<void> {
  const port = await freePort();
  const server = run(command, args, cwd, { ...PRODUCTION_ENV, HOST: '127.0.0.1', PORT: String(port), ...env });
  try {
    await waitForLine(server, '"msg":"listening"');
    const listening = JSON.parse(server.output().split('\n').find((line) => line.includes('"msg":"listening"'))!) as { heap_limit_mb: number };
    // The flags of start:prod took effect: 256 MB of old space and V8's young space (3 × 16 MB).
    expect(listening.heap_limit_mb, 'the heap bounded by the flags of start:prod (several GB without)').to.be.within(256, 320);
    const client = new TestClient(`http://127.0.0.1:${port}`);
    expect((await client.get('/api/v1/health')).body).to.deep.equal({ status: 'ok' });
    const ready = await client.get('/api/v1/health/ready');
    expect(ready.status, ready.text).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ready' });
  } finally {
    server.child.kill('SIGTERM');
  }
  expect(await server.exited, server.output()).to.equal(expectedExit);
  expect(server.output()).to.include('"msg":"shutting down"');
  expect(server.output(), 'production invents no secrets').to.not.include('generated development secrets');
}

describe('production install: the scripts', () => {
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;

  it('start:prod and cli:prod run the built output without compiling; prepare is the guarded build; start still builds', () => {
    expect(scripts['start:prod']).to.equal('node --max-old-space-size=256 --max-semi-space-size=8 --no-allocation-site-pretenuring examples/server/dist/main.js');
    expect(scripts['cli:prod']).to.equal('node examples/cli/dist/main.js');
    expect(scripts.prepare).to.equal('node scripts/prepare.mjs');
    expect(scripts.build).to.equal('tsc -b');
    expect(scripts.start, 'start runs what start:prod runs, after a build').to.equal(`tsc -b && ${scripts['start:prod']}`);
    expect(serverNodeFlags()).to.deep.equal(['--max-old-space-size=256', '--max-semi-space-size=8', '--no-allocation-site-pretenuring']);
  });

  describe('scripts/prepare.mjs without the dev dependencies', () => {
    let dir: string;
    beforeEach(() => {
      // A tree with no node_modules at all: what `npm ci --omit=dev` leaves for prepare to see.
      dir = mkdtempSync(join(tmpdir(), 'wallet-prepare-'));
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(join(REPO_ROOT, 'scripts/prepare.mjs'), join(dir, 'scripts/prepare.mjs'));
      writeFileSync(join(dir, 'package.json'), '{"name":"x","private":true,"type":"module"}');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const prepare = () => spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, encoding: 'utf8' });

    it('refuses the install, naming the build step, when there is no build output', () => {
      const result = prepare();
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include('the build output is missing').and.include('examples/server/dist/main.js').and.include('npm ci && npm run build');
    });

    it('uses the existing build output and compiles nothing', () => {
      for (const file of ['packages/core/dist/index.js', 'packages/grin-relay/dist/index.js', 'packages/tips/dist/index.js', 'packages/premium/dist/index.js', 'packages/relay-admission/dist/index.js', 'packages/erasure/dist/index.js', 'examples/server/dist/main.js', 'examples/cli/dist/main.js']) {
        mkdirSync(join(dir, dirname(file)), { recursive: true });
        writeFileSync(join(dir, file), '');
      }
      const result = prepare();
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include('using the existing build output');
    });
  });
});

eachDialect('production install: the built server (node, the flags of start:prod, examples/server/dist/main.js)', (dialect) => {
  let dataDir: string;
  before(function () {
    // The build stage. Up to date, it takes a few seconds.
    this.timeout(180_000);
    const build = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(build.status, `tsc -b failed:\n${build.stdout}${build.stderr}`).to.equal(0);
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-prod-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with NODE_ENV=production and the required secrets, is live and ready, stops on SIGTERM with 0', async function () {
    this.timeout(60_000);
    await serveAndProbe(process.execPath, [...serverNodeFlags(), 'examples/server/dist/main.js'], REPO_ROOT, { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect) });
  });
});

describe('production install: the documented sequence end to end (WALLET_TEST_PRODUCTION_INSTALL=1)', () => {
  it('npm ci && npm run build, then npm ci --omit=dev, then npm run start:prod', async function () {
    if (process.env.WALLET_TEST_PRODUCTION_INSTALL !== '1') {
      console.log('      set WALLET_TEST_PRODUCTION_INSTALL=1 to run the full install (two `npm ci`, about 4 minutes)');
      this.skip();
    }
    this.timeout(900_000);
    const dir = mkdtempSync(join(tmpdir(), 'wallet-install-'));
    try {
      // The tracked files as they are in the working tree (a fresh clone, plus local edits).
      const files = spawnSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
      for (const file of files) {
        if (!existsSync(join(REPO_ROOT, file))) continue;
        mkdirSync(join(dir, dirname(file)), { recursive: true });
        copyFileSync(join(REPO_ROOT, file), join(dir, file));
      }
      const npm = (args: string[]) => {
        const result = spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_ENV: '' } });
        expect(result.status, `npm ${args.join(' ')}:\n${result.stdout}${result.stderr}`).to.equal(0);
        return result.stdout + result.stderr;
      };
      npm(['ci']);
      npm(['run', 'build']);
      expect(existsSync(join(dir, 'node_modules/@types/node'))).to.equal(true);
      const production = npm(['ci', '--omit=dev']);
      expect(production).to.include('using the existing build output');
      expect(existsSync(join(dir, 'node_modules/@types/node')), 'dev dependencies are gone').to.equal(false);
      expect(existsSync(join(dir, 'node_modules/mocha'))).to.equal(false);
      // npm forwards SIGTERM to the server (which logs `shutting down` and exits 0), then ends
      // itself by that signal: run node directly under a supervisor (the unit and the image do).
      await serveAndProbe('npm', ['run', 'start:prod'], dir, { DATA_DIR: join(dir, 'data') }, 'SIGTERM');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
