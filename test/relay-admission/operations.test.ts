import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { coreMigrations, ledgerIdOf } from '@wallet/backend-core';
import { REPO_ROOT, createTestBackend, eachDialect, freshSqliteUrl, pgAdminUrl, scratchPostgresDatabase, seedUser, spawnEntry, type DialectName, type TestBackend } from '../harness/index.js';
import { accepted, BIN, rejected, request, spawnPlugin, UNAVAILABLE, type Plugin } from './plugin-process.js';
import { nostrKey, signed, type NostrKey } from './world.js';

/**
 * The operator's side of `wallet-relay-admission` (docs/relay-operators.md): `check` and its exit
 * codes, the database URL from DATABASE_URL_FILE and --environment-file, and the long-lived modes'
 * start-up check, run as real processes. The URL's password never reaches any output.
 */

const PASSWORD = 's3cret';
/**
 * The option that loads an environment file. Not `--env-file`: Node 24 scans the whole command
 * line for that one, after the script too, and exits 9 ("node: <path>: not found") on a missing
 * file before the executable runs.
 */
const ENV_FILE = '--environment-file';
const NOT_USABLE = 'the wallet database cannot be used for admission: events are refused until this is fixed';
const READY = 'the wallet database is ready for admission';

interface Ran {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs the executable to its end with exactly `env` (and PATH); its exit code and every byte it printed. */
async function run(args: string[], env: Record<string, string>): Promise<Ran> {
  const p = spawnEntry(BIN, args, { env, cwd: REPO_ROOT });
  // 'exit' can come before the last bytes of the pipes: wait for them to close too.
  const closed = new Promise<void>((resolve) => p.child.once('close', () => resolve()));
  const code = await p.exited;
  await closed;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

const okLine = (description: string) => `ok: the wallet database at ${description} is ready for admission\n`;

/** The URL with a password (the test server's own when it has one; trust auth accepts any), and that password. */
function withPassword(url: string): { url: string; password: string } {
  const parsed = new URL(url);
  if (parsed.password === '') parsed.password = PASSWORD;
  return { url: parsed.toString(), password: decodeURIComponent(parsed.password) };
}

/** What `check` names a database by, written out: no password, no `schema` parameter. */
function descriptionOf(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.username}${parsed.password === '' ? '' : ':***'}@${parsed.host}${parsed.pathname}`;
}

/** A 0600 file holding `content`, in a directory of this file's own. */
let scratch: string | undefined;
function secretFile(content: string, name = `url-${randomBytes(4).toString('hex')}`): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'wallet-relay-admission-ops-'));
  const path = join(scratch, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}
after(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Every JSON line of `stderr` whose msg is `msg`. */
const logLines = (stderr: string, msg: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);

async function eventually(what: () => boolean, timeoutMs: number, message: () => string): Promise<void> {
  const started = Date.now();
  while (!what()) {
    if (Date.now() - started > timeoutMs) throw new Error(message());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The plugin's exit code, once its pipes closed too (their last bytes can come after 'exit'). */
async function ended(p: Plugin): Promise<number | string> {
  const closed = p.child.stdout.closed && p.child.stderr.closed ? Promise.resolve() : new Promise<void>((resolve) => p.child.once('close', () => resolve()));
  const code = await p.exited;
  await closed;
  return code;
}


/** A URL whose database does not answer: nothing listens on port 9; no SQLite file (nor its directory) at the path. */
function unreachableUrl(dialect: DialectName): { url: string; file?: string } {
  if (dialect === 'postgres') return { url: `postgres://postgres:${PASSWORD}@127.0.0.1:9/postgres` };
  const file = join(freshSqliteUrl().slice('sqlite:'.length, -'.db'.length), 'missing.db');
  return { url: `sqlite:${file}`, file };
}

describe('relay admission operations: the database URL is needed', () => {
  it('check without any URL exits 2 with the reason on stderr and nothing on stdout', async function () {
    this.timeout(60_000);
    const none = await run(['check'], {});
    expect(none.code).to.equal(2);
    expect(none.stdout).to.equal('');
    expect(none.stderr).to.match(/^wallet-relay-admission: the wallet database is needed: DATABASE_URL_FILE, DATABASE_URL \(in --[a-z-]+ or the environment\) or --database-url\n$/);
  });

  it('an empty file or a directory as DATABASE_URL_FILE exits 2 naming the variable and the path', async function () {
    this.timeout(60_000);
    const empty = secretFile('\n\n');
    const directory = secretFile('', 'unused');
    rmSync(directory);
    mkdirSync(directory);
    const [fromEmpty, fromDirectory] = await Promise.all([run(['check'], { DATABASE_URL_FILE: empty }), run(['check'], { DATABASE_URL_FILE: directory })]);
    expect(fromEmpty).to.deep.equal({ code: 2, stdout: '', stderr: `wallet-relay-admission: DATABASE_URL_FILE: ${empty} is empty\n` });
    expect(fromDirectory).to.deep.equal({ code: 2, stdout: '', stderr: `wallet-relay-admission: DATABASE_URL_FILE: cannot read ${directory}: not a regular file\n` });
  });

  it(`a missing ${ENV_FILE} exits 2 with the executable’s own message (both option forms)`, async function () {
    this.timeout(60_000);
    const missingEnv = join(tmpdir(), `wallet-no-such-env-${randomBytes(4).toString('hex')}`);
    const expected = { code: 2, stdout: '', stderr: `wallet-relay-admission: ${ENV_FILE} ${missingEnv}: no such file\n` };
    const [spaced, joined] = await Promise.all([run([ENV_FILE, missingEnv, 'check'], {}), run([`${ENV_FILE}=${missingEnv}`, 'check'], {})]);
    expect(spaced, `${ENV_FILE} <path>`).to.deep.equal(expected);
    expect(joined, `${ENV_FILE}=<path>`).to.deep.equal(expected);
  });
});

eachDialect('relay admission operations: wallet-relay-admission check, DATABASE_URL_FILE, --environment-file and the start-up check', (dialect) => {
  /** One migrated database for the tests that only read it, with a premium author; its URL carries a password on Postgres. */
  let ready: TestBackend;
  let readyUrl: string;
  let password: string | undefined;
  let premium: NostrKey;
  before(async function () {
    this.timeout(60_000);
    ready = await createTestBackend(dialect, { listen: false });
    if (dialect === 'postgres') ({ url: readyUrl, password } = withPassword(ready.databaseUrl));
    else readyUrl = ready.databaseUrl;
    premium = nostrKey();
    await seedUser(ready.backend, { nostrPubkey: premium.pubkey, premiumUntil: new Date('2100-01-01T00:00:00.000Z') });
  });
  after(async () => {
    await ready?.close();
  });

  /** The password of the URL in use appears nowhere in what the executable printed. */
  const expectNoPassword = (...outputs: Ran[]) => {
    for (const output of outputs) {
      if (password !== undefined) expect(`${output.stdout}${output.stderr}`).not.to.include(password);
      expect(`${output.stdout}${output.stderr}`).not.to.include(PASSWORD);
    }
  };

  it('a migrated database is ready: exit 0 and the ok line naming it without its password', async function () {
    this.timeout(60_000);
    if (dialect === 'postgres') expect(readyUrl).to.include(`:${password}@`);
    const result = await run(['check'], { DATABASE_URL: readyUrl });
    expect(result).to.deep.equal({ code: 0, stdout: okLine(descriptionOf(readyUrl)), stderr: '' });
    expectNoPassword(result);
    // --database-url wins over nothing else set, with the same finding.
    const flag = await run(['--database-url', readyUrl, 'check'], {});
    expect(flag).to.deep.equal(result);
  });

  it('an unreachable database exits 3 (and check creates no SQLite file)', async function () {
    this.timeout(60_000);
    const { url, file } = unreachableUrl(dialect);
    const result = await run(['check'], { DATABASE_URL: url });
    expect(result.code, result.stderr).to.equal(3);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/^unreachable: .+ \(.+\)\n$/);
    expect(result.stderr.endsWith(` (${descriptionOf(url)})\n`), result.stderr).to.equal(true);
    if (dialect === 'postgres') expect(result.stderr).to.include('ECONNREFUSED');
    else expect(result.stderr).to.equal(`unreachable: no SQLite database at ${file}: is DATABASE_URL the wallet server's? (${url})\n`);
    if (file !== undefined) {
      expect(existsSync(file), 'the missing SQLite file was created').to.equal(false);
      expect(existsSync(join(file, '..')), 'the missing SQLite file’s directory was created').to.equal(false);
    }
    expectNoPassword(result);
  });

  if (dialect === 'postgres') {
    it('credentials the server refuses exit 4 (a role that does not exist: SQLSTATE 28000 under trust auth)', async function () {
      this.timeout(60_000);
      const url = new URL(await pgAdminUrl());
      url.username = 'no_such_role_x';
      url.password = '';
      url.pathname = '/postgres';
      // The server's own answer, as the executable's driver gets it.
      const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
      const refused = await client.connect().then(
        () => undefined,
        (err: { code?: string }) => err.code,
      );
      await client.end().catch(() => undefined);
      expect(refused, 'the server refuses the role').to.be.oneOf(['28000', '28P01']);
      const result = await run(['check'], { DATABASE_URL: url.toString() });
      expect(result.code, result.stderr).to.equal(4);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.match(/^authentication: the database refused the credentials \(.*"no_such_role_x".*\) \(postgres:\/\/no_such_role_x@[^ ]+\/postgres\)\n$/);
    });
  }

  it('an empty database exits 5: the wallet schema is missing', async function () {
    this.timeout(60_000);
    let url: string;
    let drop = async () => {};
    if (dialect === 'postgres') ({ url, drop } = await scratchPostgresDatabase());
    else {
      url = freshSqliteUrl();
      writeFileSync(url.slice('sqlite:'.length), '');
    }
    try {
      const result = await run(['check'], { DATABASE_URL: url });
      expect(result).to.deep.equal({
        code: 5,
        stdout: '',
        stderr: `schema: the wallet schema is missing (no migrations applied): run the wallet server’s migrations (\`wallet-backend migrate\`) against this database (${descriptionOf(url)})\n`,
      });
    } finally {
      await drop();
    }
  });

  if (dialect === 'sqlite') {
    it('check never writes: an empty SQLite file is left as it was (0 bytes, no WAL files)', async function () {
      this.timeout(60_000);
      const url = freshSqliteUrl();
      const file = url.slice('sqlite:'.length);
      writeFileSync(file, '');
      const result = await run(['check'], { DATABASE_URL: url });
      expect(result.code, result.stderr).to.equal(5);
      expect(statSync(file).size, 'check wrote to the SQLite file').to.equal(0);
      expect(existsSync(`${file}-wal`), 'check left a WAL file').to.equal(false);
    });
  }

  it('a database without the newest core migration exits 5 naming the missing ledger id', async function () {
    this.timeout(60_000);
    const old = await createTestBackend(dialect, { listen: false });
    let newest: string;
    try {
      const { knex } = old.backend.db;
      const rows = (await knex('wallet_migrations').where({ owner: 'core' }).select('id')) as Array<{ id: string }>;
      newest = rows.map((row) => row.id).sort().at(-1)!;
      // The ledger's newest core id is the last migration this version knows.
      expect(newest).to.equal(ledgerIdOf('core', coreMigrations.at(-1)!));
      expect(await knex('wallet_migrations').where({ id: newest }).delete()).to.equal(1);
    } finally {
      await old.close();
    }
    const result = await run(['check'], { DATABASE_URL: old.databaseUrl });
    expect(result).to.deep.equal({
      code: 5,
      stdout: '',
      stderr: `schema: the wallet schema is older than this version expects (missing ${newest}): run \`wallet-backend migrate\` with a wallet server of this version (${descriptionOf(old.databaseUrl)})\n`,
    });
  });

  it('DATABASE_URL_FILE: a 0600 file with a trailing newline is read; with DATABASE_URL too, or missing, it exits 2 naming the variables and the path', async function () {
    this.timeout(60_000);
    const file = secretFile(`${readyUrl}\n`);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const missing = join(tmpdir(), `wallet-no-such-url-${randomBytes(4).toString('hex')}`);
    const [fromFile, both, fromMissing] = await Promise.all([
      run(['check'], { DATABASE_URL_FILE: file }),
      run(['check'], { DATABASE_URL_FILE: file, DATABASE_URL: readyUrl }),
      run(['check'], { DATABASE_URL_FILE: missing }),
    ]);
    expect(fromFile).to.deep.equal({ code: 0, stdout: okLine(descriptionOf(readyUrl)), stderr: '' });
    expect(both).to.deep.equal({ code: 2, stdout: '', stderr: 'wallet-relay-admission: DATABASE_URL_FILE: DATABASE_URL and DATABASE_URL_FILE are both set; set only one of them\n' });
    expect(fromMissing.code).to.equal(2);
    expect(fromMissing.stdout).to.equal('');
    expect(fromMissing.stderr).to.match(/^wallet-relay-admission: DATABASE_URL_FILE: .+\n$/);
    expect(fromMissing.stderr).to.include(missing);
    expect(fromMissing.stderr).to.include('no such file');
    expectNoPassword(fromFile, both, fromMissing);
    // Refused, the URL itself is not echoed either (on SQLite it holds no password, only the path).
    expect(both.stderr).not.to.include(readyUrl);
  });

  it(`${ENV_FILE} naming DATABASE_URL_FILE is loaded before the URL is looked for`, async function () {
    this.timeout(60_000);
    const envFile = secretFile(`# the relay admission hook\nDATABASE_URL_FILE=${secretFile(`${readyUrl}\n`)}\n`);
    const [spaced, joined] = await Promise.all([run([ENV_FILE, envFile, 'check'], {}), run([`${ENV_FILE}=${envFile}`, 'check'], {})]);
    expect(spaced).to.deep.equal({ code: 0, stdout: okLine(descriptionOf(readyUrl)), stderr: '' });
    expect(joined).to.deep.equal(spaced);
    expectNoPassword(spaced, joined);
  });

  it('strfry with DATABASE_URL_FILE: the start-up check finds the database ready and a premium author’s note is accepted', async function () {
    this.timeout(120_000);
    const p = spawnPlugin({ DATABASE_URL_FILE: secretFile(`${readyUrl}\n`) }, ['strfry']);
    try {
      const note = signed(premium, 1);
      expect(await p.ask(request(note, 'IP4', '127.0.0.1'), 60_000)).to.equal(accepted(note));
      await eventually(
        () => logLines(p.stderr(), READY).length > 0,
        5_000,
        () => `no start-up finding on stderr:\n${p.stderr()}`,
      );
      expect(logLines(p.stderr(), READY)[0]).to.include({ level: 'info', database: descriptionOf(readyUrl) });
      expect(logLines(p.stderr(), NOT_USABLE)).to.deep.equal([]);
      p.child.stdin.end();
      expect(await ended(p)).to.equal(0);
      expect(p.stdout()).to.equal(`${accepted(note)}\n`);
      expectNoPassword({ code: 0, stdout: p.stdout(), stderr: p.stderr() });
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
  });

  it('strfry with an unreachable database logs the start-up finding (cause unreachable), keeps running and refuses what it cannot decide', async function () {
    this.timeout(120_000);
    const { url, file } = unreachableUrl(dialect);
    const p = spawnPlugin({ DATABASE_URL_FILE: secretFile(`${url}\n`) }, ['strfry']);
    try {
      // Before any request: the finding comes from the start-up check alone.
      await eventually(
        () => logLines(p.stderr(), NOT_USABLE).length > 0,
        30_000,
        () => `no start-up finding on stderr:\n${p.stderr()}`,
      );
      const [finding] = logLines(p.stderr(), NOT_USABLE);
      expect(finding).to.include({ level: 'error', cause: 'unreachable', database: descriptionOf(url) });
      expect(finding!.problem).to.be.a('string').and.not.equal('');
      const note = signed(premium, 1);
      const started = Date.now();
      expect(await p.ask(request(note, 'IP4', '127.0.0.1'), 10_000)).to.equal(rejected(note, UNAVAILABLE));
      expect(Date.now() - started, 'inside strfry’s 10 s').to.be.below(9_000);
      expect(p.child.exitCode, 'the plugin keeps running').to.equal(null);
      if (file !== undefined) {
        // The hook's own connection (not only the check) must not make the file it was asked to read.
        expect(existsSync(file), 'the admission hook created the missing SQLite file').to.equal(false);
        expect(existsSync(join(file, '..')), 'the admission hook created the missing SQLite file’s directory').to.equal(false);
      }
      p.child.stdin.end();
      expect(await ended(p)).to.equal(0);
      expect(logLines(p.stderr(), READY)).to.deep.equal([]);
      if (file !== undefined) expect(existsSync(file)).to.equal(false);
      expectNoPassword({ code: 0, stdout: p.stdout(), stderr: p.stderr() });
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
  });
});
