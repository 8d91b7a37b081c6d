import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { loadNauthz, type NostrEvent } from '@wallet/relay-admission';
import { eachDialect, freePort, REPO_ROOT, seedUser } from '../harness/index.js';
import { accepted, eventToWire, NOT_A_USER, rejected, spawnLines, type Plugin } from './plugin-process.js';
import { nostrKey, signed, useAdmissionWorld, type NostrKey } from './world.js';

/**
 * The relay admission executable as one file (issue 32 item 5): dist/wallet-relay-admission.mjs,
 * built by packages/relay-admission/scripts/bundle.mjs (`npm ci` runs it through `prepare`), run
 * by plain Node from a folder with no node_modules anywhere up its path: Postgres needs nothing
 * but the file; SQLite needs better-sqlite3 installed next to the file's real location.
 */

const BUNDLE = join(REPO_ROOT, 'packages', 'relay-admission', 'dist', 'wallet-relay-admission.mjs');
const NAME = 'wallet-relay-admission.mjs';

/** An event as nostr-rs-relay sends it (raw bytes for ids, keys and the signature). */
const request = (event: NostrEvent) => JSON.stringify({ type: 'new', event, receivedAt: 1_767_225_601, sourceType: 'IP4', sourceInfo: '1.2.3.4' });

/** Every folder from `dir` up to the root: none may hold a node_modules the bundle could find. */
function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) found.push(join(at, 'node_modules'));
    if (at === parse(at).root) return found;
  }
}

/** A fresh folder under the system's temporary folder, checked to have no node_modules up its path. */
function bareDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  expect(nodeModulesAbove(dir), `node_modules above ${dir}`).to.deep.equal([]);
  return dir;
}

/**
 * What the operator docs do, under `prefix` instead of /usr/local: the file in lib/, its
 * better-sqlite3 in lib/node_modules, and a symlink in bin/. Copying the repository's
 * better-sqlite3 (and its one dependency) stands in for
 * `npm install --prefix <prefix>/lib/wallet-relay-admission better-sqlite3@13`: no network here.
 */
function installWithSqlite(prefix: string): string {
  const lib = join(prefix, 'lib', 'wallet-relay-admission');
  mkdirSync(join(lib, 'node_modules'), { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  copyFileSync(BUNDLE, join(lib, NAME));
  chmodSync(join(lib, NAME), 0o755);
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const pkg of ['better-sqlite3', ...Object.keys(manifest.dependencies ?? {})]) {
    cpSync(join(REPO_ROOT, 'node_modules', pkg), join(lib, 'node_modules', pkg), { recursive: true, filter: (source) => !source.includes(`${pkg}/deps/`) && !source.includes(`${pkg}/src/`) });
  }
  const bin = join(prefix, 'bin', 'wallet-relay-admission');
  symlinkSync(join(lib, NAME), bin);
  return bin;
}

/**
 * `command` (the bundle run by `node`, or the symlink run as an executable: its `#!/usr/bin/env
 * node` finds this Node first on PATH) in `cwd`, with only PATH and `env`.
 */
function start(command: string[], cwd: string, env: Record<string, string>): Plugin {
  const [file, ...args] = command as [string, ...string[]];
  return spawnLines(file, args, cwd, { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...env });
}

async function check(command: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | string; stdout: string; stderr: string }> {
  const run = start(command, cwd, env);
  run.child.stdin.end();
  const status = await run.exited;
  return { status, stdout: run.stdout(), stderr: run.stderr() };
}

describe('relay admission: the one-file executable (dist/wallet-relay-admission.mjs)', () => {
  it('was built: a #!/usr/bin/env node file with its exec bit, pg inside, better-sqlite3 left to the host', () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: it is built by \`npm ci\` (prepare) or \`npm run bundle -w @wallet/relay-admission\``);
    const text = readFileSync(BUNDLE, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).to.equal(true);
    expect(statSync(BUNDLE).mode & 0o777).to.equal(0o755);
    expect(text).to.include('node_modules/pg/lib/client.js');
    expect(text).to.match(/__require\("better-sqlite3"\)/);
    expect(text, 'the proto is embedded: the file has no proto/ folder beside it').to.include('package nauthz;').and.include('rpc EventAdmit(EventRequest) returns (EventReply)');
  });

  it('carries core’s database entry only: no HTTP stack (Koa, routes, the backend), which a relay would load at every plugin start', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    // esbuild heads every module it took with a `// <path>` line, relative to where it ran (the
    // root under `npm ci`: packages/core/src/…; the package under `npm run bundle -w`: ../core/src/…).
    const modules = [...text.matchAll(/^\/\/ (\S+\.(?:ts|js|cjs|mjs))$/gm)].map((match) => match[1]!);
    expect(modules.filter((path) => /(?:^|\/)core\/src\/storage\//.test(path)), 'core storage is inside').to.not.be.empty;
    expect(modules.filter((path) => /(?:^|\/)node_modules\/(?:koa|@koa\/router|koa-compose)\//.test(path) || /(?:^|\/)core\/src\/(?:http|backend|auth|identity|chains|composition)\b/.test(path))).to.deep.equal([]);
  });
});

eachDialect('relay admission: the one-file executable, from a folder without node_modules', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let premium: NostrKey;
  let dirs: string[] = [];
  let running: Plugin | undefined;
  const bare = (prefix: string) => {
    const dir = bareDir(prefix);
    dirs.push(dir);
    return dir;
  };
  before(function () {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: it is built by \`npm ci\` (prepare) or \`npm run bundle -w @wallet/relay-admission\``);
  });
  beforeEach(async () => {
    // The executable reads the system clock: this premium lasts.
    premium = nostrKey();
    await seedUser(w.t.backend, { nostrPubkey: premium.pubkey, premiumUntil: new Date('2100-01-01T00:00:00.000Z') });
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = undefined;
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  /** The command for this dialect: Postgres the copied file alone (run by node), SQLite the installed layout (the symlink, run as an executable). */
  function installed(): { command: string[]; cwd: string } {
    const cwd = bare('wallet-bundle-cwd-');
    if (dialect === 'postgres') {
      const dir = bare('wallet-bundle-');
      copyFileSync(BUNDLE, join(dir, NAME));
      return { command: [process.execPath, join(dir, NAME)], cwd };
    }
    return { command: [installWithSqlite(bare('wallet-bundle-prefix-'))], cwd };
  }

  it('check: exit 0 and ok: on the migrated wallet database', async function () {
    this.timeout(60_000);
    const { command, cwd } = installed();
    const result = await check([...command, 'check'], cwd, { DATABASE_URL: w.t.databaseUrl });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/^ok: the wallet database at .* is ready for admission\n$/);
    expect(result.stderr).to.equal('');
  });

  it('strfry: DATABASE_URL_FILE (0600); a premium author is accepted, a stranger’s note rejected, line for line', async function () {
    this.timeout(60_000);
    const { command, cwd } = installed();
    const secret = join(cwd, 'database-url');
    writeFileSync(secret, `${w.t.databaseUrl}\n`, { mode: 0o600 });
    const run = (running = start([...command, 'strfry'], cwd, { DATABASE_URL_FILE: secret }));
    const note = signed(premium, 1);
    const stranger = signed(w.stranger, 1);
    expect(await run.ask(request(note))).to.equal(accepted(note));
    expect(await run.ask(request(stranger))).to.equal(rejected(stranger, NOT_A_USER));
    run.child.stdin.end();
    expect(await run.exited).to.equal(0);
    expect(run.stdout()).to.equal(`${accepted(note)}\n${rejected(stranger, NOT_A_USER)}\n`);
  });

  if (dialect === 'postgres') {
    it('check: exit 3 for a Postgres nobody listens on', async function () {
      this.timeout(60_000);
      const { command, cwd } = installed();
      const result = await check([...command, 'check'], cwd, { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/wallet` });
      expect(result.status, result.stderr).to.equal(3);
      expect(result.stderr).to.match(/^unreachable: cannot reach the database \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
      expect(result.stdout).to.equal('');
    });
  } else {
    it('check without better-sqlite3 next to the file: exit 3, naming the missing driver (no stack trace)', async function () {
      this.timeout(60_000);
      const dir = bare('wallet-bundle-');
      copyFileSync(BUNDLE, join(dir, NAME));
      const result = await check([process.execPath, join(dir, NAME), 'check'], bare('wallet-bundle-cwd-'), { DATABASE_URL: w.t.databaseUrl });
      expect(result.status, result.stderr).to.equal(3);
      expect(result.stderr).to.include('but its driver is not installed: run `npm install better-sqlite3`');
      expect(result.stderr).to.not.match(/\n\s+at /);
      expect(result.stdout).to.equal('');
    });

  }
  it('grpc: serves EventAdmit on --listen (the proto is inside the file) and stops on SIGTERM with exit 0', async function () {
    this.timeout(60_000);
    const { command, cwd } = installed();
    const port = await freePort();
    const run = (running = start([...command, 'grpc', '--listen', `127.0.0.1:${port}`], cwd, { DATABASE_URL: w.t.databaseUrl }));
    const started = Date.now();
    while (!run.stderr().includes('listening')) {
      if (run.child.exitCode !== null || Date.now() - started > 30_000) throw new Error(`no "listening" line; stderr:\n${run.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const Authorization = loadNauthz().Authorization as grpc.ServiceClientConstructor;
    const client = new Authorization(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    type Admit = (request: unknown, callback: (err: grpc.ServiceError | null, reply?: { decision: string; message: string }) => void) => void;
    const admit = (event: NostrEvent) =>
      new Promise<{ decision: string; message: string }>((resolve, reject) =>
        (client.EventAdmit as Admit).call(client, { event: { ...eventToWire(event) } }, (err, reply) => (err ? reject(err) : resolve({ decision: reply!.decision, message: reply!.message }))),
      );
    try {
      expect(await admit(signed(premium, 1))).to.deep.equal({ decision: 'DECISION_PERMIT', message: '' });
      // nostr-rs-relay puts its own `blocked: ` in front of a DENY's message, so the message carries none.
      expect(await admit(signed(w.stranger, 1))).to.deep.equal({ decision: 'DECISION_DENY', message: 'only the relay’s users may post here; others may send them gift-wrapped DMs' });
    } finally {
      client.close();
    }
    run.child.kill('SIGTERM');
    expect(await run.exited).to.equal(0);
  });
});
