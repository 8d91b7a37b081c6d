import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Knex } from '@wallet/backend-core';
import { ExitCode, type AdminKeyJson } from '@wallet/cli';
import { cli, createTestBackend, eachDialect, freshDatabaseUrl, NostrKey, REPO_ROOT, SECRETS_ENV, spawnEntry, type DialectName } from '../harness/index.js';

// Issue 14 item 11: --version, --json, distinct exit codes, the DATABASE_URL hint, and a
// `mint-invite … > file` that holds only the codes.

const CODE = /^[1-9A-HJ-NP-Za-km-z]{21,22}$/;
const CLI_PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'examples/cli/package.json'), 'utf8')) as { version: string }).version;

/** Runs one CLI command in-process; its exit code and output lines. */
/** Runs the real program (a child process), so output written around the CLI's io is seen too. */
async function binary(cwd: string, env: Record<string, string>, ...argv: string[]) {
  const child = spawnEntry('examples/cli/src/main.ts', argv, { cwd, env });
  const code = await child.exited;
  return { code, out: child.stdout(), err: child.stderr() };
}

async function tamper(dialect: DialectName, databaseUrl: string, edit: (knex: Knex) => Promise<unknown>): Promise<void> {
  const db = await createTestBackend(dialect, { databaseUrl, listen: false });
  try {
    await edit(db.backend.db.knex);
  } finally {
    await db.close();
  }
}

/** Every command that opens the database, with arguments that would pass validation. */
const DATABASE_COMMANDS: readonly string[][] = [
  ['migrate'],
  ['migrate', '--status'],
  ['setup', 'a'.repeat(64)],
  ['setup-status'],
  ['setup-status', '--json'],
  ['reset-setup', '--acknowledge'],
  ['audit', 'verify'],
  ['audit', 'verify', '--json'],
  ['admin', 'list'],
  ['admin', 'list', '--json'],
  ['admin', 'revoke', 'a'.repeat(64)],
  ['mint-invite', '--count', '2'],
  ['mint-invite', '--count', '2', '--json'],
];

describe('wallet-backend CLI: --version, usage errors, exit codes', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-op-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('the documented exit codes', () => {
    expect(ExitCode).to.deep.equal({ ok: 0, failure: 1, usage: 2, databaseUnreachable: 3, invalidConfiguration: 4 });
  });

  it('--version and -V print the CLI package version on stdout, exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await cli({}, flag);
      expect(run).to.deep.include({ code: 0, stdout: [CLI_PACKAGE_VERSION], stderr: [] });
    }
    const real = await binary(dataDir, {}, '--version');
    expect([real.code, real.out, real.err]).to.deep.equal([0, `${CLI_PACKAGE_VERSION}\n`, '']);
  });

  it('--help exits 0 with the usage on stdout', async () => {
    const run = await cli({}, '--help');
    expect(run.code).to.equal(0);
    expect(run.out).to.include('Usage: wallet-backend');
    expect(run.out).to.include('-V, --version');
    const sub = await cli({}, 'mint-invite', '--help');
    expect(sub.code).to.equal(0);
    expect(sub.out).to.include('--json');
  });

  it('every usage error exits 2 with its message on stderr and nothing on stdout, before touching the database', async () => {
    // An unreachable database proves that none of these got as far as connecting.
    const env = { DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/x', ...SECRETS_ENV };
    const cases: [string[], string][] = [
      [[], 'Usage: wallet-backend'],
      [['frobnicate'], "unknown command 'frobnicate'"],
      [['setup-status', '--frob'], "unknown option '--frob'"],
      [['setup-status', 'extra'], 'too many arguments'],
      [['setup'], "missing required argument 'pubkey'"],
      [['audit'], 'Usage: wallet-backend audit'],
      [['mint-invite', '--count'], "option '--count <n>' argument missing"],
      [['mint-invite', '--count', '0'], '--count must be a whole number from 1 to 10000'],
      [['mint-invite', '--count', 'many'], '--count must be a whole number'],
      [['mint-invite', '--expires-days', '0'], '--expires-days must be a whole number'],
      [['mint-invite', '--label', ''], '--label must be 1 to 100 characters'],
      [['setup', 'npub1notakey'], '64 hex characters or an npub1'],
      [['reset-setup'], 'run it again with --acknowledge'],
    ];
    for (const [argv, message] of cases) {
      const run = await cli(env, ...argv);
      expect(run.code, argv.join(' ')).to.equal(ExitCode.usage);
      expect(run.err, argv.join(' ')).to.include(message);
      expect(run.err, argv.join(' ')).to.not.include('DATABASE_URL');
      expect(run.stdout, argv.join(' ')).to.deep.equal([]);
    }
    const real = await binary(dataDir, env, 'frobnicate');
    expect([real.code, real.out]).to.deep.equal([ExitCode.usage, '']);
    expect(real.err).to.include("error: unknown command 'frobnicate'");
  });

  it('an invalid configuration exits 4 on commands that need it; `config check` keeps exit 1 (its check failed)', async () => {
    const env = { DATA_DIR: dataDir, NODE_ENV: 'production', DATABASE_URL: `sqlite:${join(dataDir, 'wallet.db')}`, JWT_SECRET: 'short' };
    for (const argv of DATABASE_COMMANDS) {
      const run = await cli(env, ...argv);
      expect(run.code, argv.join(' ')).to.equal(ExitCode.invalidConfiguration);
      expect(run.err, argv.join(' ')).to.match(/^error: configuration is invalid \(\d+ problems\)/);
      expect(run.err).to.include('JWT_SECRET');
      expect(run.stdout, argv.join(' ')).to.deep.equal([]);
    }
    expect((await cli(env, 'config', 'check')).code).to.equal(ExitCode.failure);
  });
});

describe('wallet-backend CLI: a database that cannot be reached', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-op-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const targets: [string, (dir: string) => string, RegExp][] = [
    ['postgres, connection refused', () => 'postgres://wallet:hunter2@127.0.0.1:1/x', /ECONNREFUSED/],
    [
      'sqlite, a path whose directory cannot be made (a file is in the way)',
      (dir) => {
        writeFileSync(join(dir, 'a-file'), '');
        return `sqlite:${join(dir, 'a-file', 'wallet.db')}`;
      },
      /EEXIST|ENOTDIR/,
    ],
    ['sqlite, a path that cannot be opened as a database (a directory)', (dir) => `sqlite:${dir}`, /SQLITE_CANTOPEN/],
  ];

  for (const [title, urlFor, reason] of targets) {
    it(`${title}: exit 3 and one line on stderr naming DATABASE_URL, for every database command`, async () => {
      const databaseUrl = urlFor(dataDir);
      const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...SECRETS_ENV };
      for (const argv of DATABASE_COMMANDS) {
        const run = await cli(env, ...argv);
        expect(run.code, argv.join(' ')).to.equal(ExitCode.databaseUnreachable);
        expect(run.stdout, argv.join(' ')).to.deep.equal([]);
        expect(run.stderr, argv.join(' ')).to.have.length(1);
        expect(run.stderr[0]).to.match(/^error: cannot reach the database \(.+\): check DATABASE_URL \(.+\)$/);
        expect(run.stderr[0]).to.match(reason);
        expect(run.stderr[0], 'the password is masked').to.not.include('hunter2');
      }
    });
  }

  it('the real process: knex writes no stack trace or warning to stdout or stderr', async () => {
    for (const databaseUrl of ['postgres://127.0.0.1:1/x', `sqlite:${dataDir}`]) {
      for (const argv of [['setup-status', '--json'], ['mint-invite', '--count', '3']]) {
        const run = await binary(dataDir, { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...SECRETS_ENV }, ...argv);
        expect(run.code, `${databaseUrl} ${argv.join(' ')}`).to.equal(ExitCode.databaseUnreachable);
        expect(run.out).to.equal('');
        expect(run.err.trimEnd().split('\n'), run.err).to.have.length(1);
        expect(run.err).to.include('check DATABASE_URL');
      }
    }
  });
});

eachDialect('wallet-backend CLI: --json', (dialect) => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-json-'));
    env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV };
    expect((await cli(env, 'migrate')).code).to.equal(0);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The one JSON document a `--json` run printed (stdout is exactly one line). */
  function parsed(run: { stdout: string[] }): unknown {
    expect(run.stdout, 'one JSON document on one line').to.have.length(1);
    return JSON.parse(run.stdout[0]!);
  }

  it('setup-status --json: { state, active_admins }', async () => {
    const fresh = await cli(env, 'setup-status', '--json');
    expect(fresh.code).to.equal(0);
    expect(parsed(fresh)).to.deep.equal({ state: 'uninitialized', active_admins: 0 });
    expect((await cli(env, 'setup', new NostrKey().pubkey)).code).to.equal(0);
    expect(parsed(await cli(env, 'setup-status', '--json'))).to.deep.equal({ state: 'locked', active_admins: 1 });
  });

  it('admin list --json: { keys: [...] } with the admin API fields and state; an edited row gives intact false and exit 1', async () => {
    const empty = await cli(env, 'admin', 'list', '--json');
    expect(empty.code).to.equal(0);
    expect(parsed(empty)).to.deep.equal({ keys: [] });
    expect(empty.stderr, 'no hint text in JSON mode').to.deep.equal([]);

    const first = new NostrKey();
    expect((await cli(env, 'setup', first.pubkey)).code).to.equal(0);
    const list = await cli(env, 'admin', 'list', '--json');
    expect(list.code).to.equal(0);
    const { keys } = parsed(list) as { keys: AdminKeyJson[] };
    expect(keys).to.have.length(1);
    const [key] = keys;
    expect(Object.keys(key!).sort()).to.deep.equal(['activated_at', 'created_at', 'id', 'intact', 'pubkey', 'revoked_at', 'scope', 'state']);
    expect(key).to.deep.include({ pubkey: first.pubkey, scope: 'full', state: 'active', revoked_at: null, intact: true });
    expect(key!.id).to.match(/^[0-9a-f-]{36}$/);
    expect(new Date(key!.created_at).toISOString()).to.equal(key!.created_at);
    expect(key!.activated_at).to.be.a('string');

    expect((await cli(env, 'admin', 'revoke', first.pubkey)).code).to.equal(0);
    const [revoked] = (parsed(await cli(env, 'admin', 'list', '--json')) as { keys: AdminKeyJson[] }).keys;
    expect(revoked).to.deep.include({ state: 'revoked', intact: true });
    expect(revoked!.revoked_at).to.be.a('string');

    await tamper(dialect, env.DATABASE_URL!, (knex) => knex('admin_keys').update({ scope: 'read' }));
    const tampered = await cli(env, 'admin', 'list', '--json');
    expect(tampered.code).to.equal(ExitCode.failure);
    expect((parsed(tampered) as { keys: AdminKeyJson[] }).keys[0]).to.deep.include({ intact: false });
    expect(tampered.err).to.include('failed their integrity check');
  });

  it('audit verify --json: { ok, entries } intact; { ok: false, entries, broken_at, reason } and exit 1 when broken', async () => {
    expect((await cli(env, 'setup', new NostrKey().pubkey)).code).to.equal(0);
    expect((await cli(env, 'reset-setup', '--acknowledge')).code).to.equal(0);
    const ok = await cli(env, 'audit', 'verify', '--json');
    expect(ok.code, ok.err).to.equal(0);
    expect(parsed(ok)).to.deep.equal({ ok: true, entries: 2 });
    expect(ok.err, 'progress stays on stderr').to.include('checked 2 entries');

    await tamper(dialect, env.DATABASE_URL!, (knex) => knex('admin_audit').where({ seq: 2 }).update({ action: 'nothing_to_see' }));
    const broken = await cli(env, 'audit', 'verify', '--json');
    expect(broken.code).to.equal(ExitCode.failure);
    expect(parsed(broken)).to.deep.equal({ ok: false, entries: 1, broken_at: 2, reason: 'the entry was altered after it was written' });
    expect(broken.err).to.include('error: audit chain broken at seq 2');
  });

  it('mint-invite --json: { count, label, expires_at, codes }; the summary stays on stderr', async () => {
    const run = await cli(env, 'mint-invite', '--count', '3', '--label', 'beta', '--expires-days', '30', '--json');
    expect(run.code, run.err).to.equal(0);
    const doc = parsed(run) as { count: number; label: string | null; expires_at: string | null; codes: string[] };
    expect(Object.keys(doc)).to.deep.equal(['count', 'label', 'expires_at', 'codes']);
    expect(doc).to.deep.include({ count: 3, label: 'beta' });
    expect(Date.parse(doc.expires_at!) - Date.now()).to.be.closeTo(30 * 86_400_000, 60_000);
    expect(doc.codes).to.have.length(3);
    for (const code of doc.codes) expect(code).to.match(CODE);
    expect(new Set(doc.codes).size).to.equal(3);
    expect(run.err).to.include('3 invite codes minted (label "beta")');

    const plain = parsed(await cli(env, 'mint-invite', '--json')) as typeof doc;
    expect(plain).to.deep.include({ count: 1, label: null, expires_at: null });
  });

  it('the real process prints exactly one parseable document under --json', async () => {
    const run = await binary(dataDir, env, 'setup-status', '--json');
    expect(run.code, run.err).to.equal(0);
    expect(JSON.parse(run.out)).to.deep.equal({ state: 'uninitialized', active_admins: 0 });
    expect(run.out.endsWith('}\n')).to.equal(true);
  });
});

describe('wallet-backend CLI: the documented `mint-invite … > file`', () => {
  it('docs/operators.md redirects `npm run --silent cli -- mint-invite`, and that file holds only the codes', async function () {
    this.timeout(300_000); // `npm run cli` builds first
    const docs = readFileSync(join(REPO_ROOT, 'docs/operators.md'), 'utf8');
    const documented = /^\s*(npm run --silent cli -- mint-invite [^\n>]*)> invites\.txt$/m.exec(docs);
    expect(documented, 'docs/operators.md shows `npm run --silent cli -- mint-invite … > invites.txt`').to.not.equal(null);
    expect(docs, 'no redirected example uses the banner-printing form').to.not.match(/npm run cli -- [^\n]*>/);

    const dir = mkdtempSync(join(tmpdir(), 'wallet-cli-npm-'));
    try {
      const env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: `sqlite:${join(dir, 'wallet.db')}`, ...SECRETS_ENV };
      expect((await cli(env, 'migrate')).code).to.equal(0);
      const file = join(dir, 'invites.txt');
      // The documented command, with --count 3 and the file in the temp directory.
      const command = documented![1]!.replace(/--count \d+/, '--count 3') + '> "$INVITES_FILE"';
      const child = spawn('sh', ['-c', command], { cwd: REPO_ROOT, env: { ...process.env, ...env, INVITES_FILE: file }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, stderr).to.equal(0);
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines.pop(), 'ends with a newline').to.equal('');
      expect(lines, 'only the codes, no npm banner').to.have.length(3);
      for (const line of lines) expect(line).to.match(CODE);
      expect(stderr).to.include('3 invite codes minted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
