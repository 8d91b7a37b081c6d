import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { BootError } from '@wallet/backend-core';
import { FILE_ENV_NAMES, loadServerConfig, readSecretFiles, startServer, type RunningServer } from '@wallet/server';
import { freshSqliteUrl, REPO_ROOT, spawnEntry, TestClient, TEST_SECRETS } from '../harness/index.js';

const SECRETS_BY_ENV = {
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  PEPPER_SECRET: TEST_SECRETS.pepperSecret,
  IP_HASH_SALT: TEST_SECRETS.ipHashSalt,
  ADMIN_KEY_INTEGRITY_SECRET: TEST_SECRETS.adminKeyIntegritySecret,
  ADMIN_SESSION_SECRET: TEST_SECRETS.adminSessionSecret,
};

describe('reference server: secrets from files (NAME_FILE)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'wallet-secret-files-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes each secret into its own file (with a trailing newline, as `echo` would) and returns the NAME_FILE variables. */
  const secretFiles = (values: Record<string, string>, ending = '\n'): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) {
      const path = join(dir, name.toLowerCase());
      writeFileSync(path, value + ending, { mode: 0o600 });
      env[`${name}_FILE`] = path;
    }
    return env;
  };

  it('covers every secret and every URL that can carry credentials', () => {
    expect(FILE_ENV_NAMES).to.include.members([
      ...Object.keys(SECRETS_BY_ENV),
      'BTCPAY_API_KEY',
      'PRICE_FEED_API_KEY',
      'GRIN_NODE_API_SECRET',
      'DATABASE_URL',
      'XMR_DAEMON_URL',
      'GRIN_NODE_URL',
    ]);
    expect(FILE_ENV_NAMES).not.to.include('PUBLIC_API_URL');
  });

  it('reads each NAME_FILE into NAME with trailing line breaks removed (LF and CRLF), other whitespace kept', () => {
    const lf = readSecretFiles(secretFiles({ JWT_SECRET: 'jwt-from-file', GRIN_NODE_API_SECRET: ' spaced ' }));
    expect(lf.problems).to.deep.equal([]);
    expect(lf.env.JWT_SECRET).to.equal('jwt-from-file');
    expect(lf.env.GRIN_NODE_API_SECRET).to.equal(' spaced ');
    const crlf = readSecretFiles(secretFiles({ PEPPER_SECRET: 'pepper' }, '\r\n\n'));
    expect(crlf.env.PEPPER_SECRET).to.equal('pepper');
    const bare = readSecretFiles(secretFiles({ IP_HASH_SALT: 'salt' }, ''));
    expect(bare.env.IP_HASH_SALT).to.equal('salt');
  });

  it('production boots on secrets and DATABASE_URL given only as files (Kubernetes-style symlinked file too)', async () => {
    const databaseUrl = await freshSqliteUrl();
    const env = secretFiles({ ...SECRETS_BY_ENV, DATABASE_URL: databaseUrl });
    // Kubernetes mounts a secret as a symlink to a file in a hidden directory.
    mkdirSync(join(dir, '..data'));
    writeFileSync(join(dir, '..data', 'jwt'), `${TEST_SECRETS.jwtSecret}\n`);
    symlinkSync(join(dir, '..data', 'jwt'), join(dir, 'jwt-link'));
    env.JWT_SECRET_FILE = join(dir, 'jwt-link');
    const config = loadServerConfig({ NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', DATA_DIR: dir, ...env });
    expect(config.problems).to.deep.equal([]);
    expect(config.backend.jwtSecret).to.equal(TEST_SECRETS.jwtSecret);
    expect(config.backend.databaseUrl).to.equal(databaseUrl);

    const lines: string[] = [];
    let running: RunningServer | undefined;
    try {
      running = await startServer({ NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', DATA_DIR: dir, PORT: '0', ...env }, { write: (l) => lines.push(l) });
      expect((await new TestClient(running.url).get('/api/v1/health')).status).to.equal(200);
    } finally {
      await running?.close();
    }
    for (const secret of Object.values(SECRETS_BY_ENV)) expect(lines.join('\n')).not.to.include(secret);
  });

  it('NAME and NAME_FILE both set: the boot is refused naming both, once', () => {
    const env = { NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', DATA_DIR: dir, ...SECRETS_BY_ENV, ...secretFiles({ JWT_SECRET: 'other-value' }) };
    const config = loadServerConfig(env);
    expect(config.problems).to.deep.equal(['JWT_SECRET_FILE: JWT_SECRET and JWT_SECRET_FILE are both set; set only one of them']);
  });

  it('a missing file, a directory, an empty file: each refused naming the variable and the path, never a content', async () => {
    const missing = join(dir, 'nope');
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    const { ADMIN_SESSION_SECRET: _s, JWT_SECRET: _j, PEPPER_SECRET: _p, ...rest } = SECRETS_BY_ENV;
    const env = { NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', DATA_DIR: dir, PORT: '0', DATABASE_URL: await freshSqliteUrl(), ...rest, JWT_SECRET_FILE: missing, PEPPER_SECRET_FILE: dir, ADMIN_SESSION_SECRET_FILE: empty };
    const refused = await startServer(env, { write: () => undefined }).then(
      (running) => running.close().then(() => expect.fail('booted')),
      (err: unknown) => err as BootError,
    );
    expect(refused).to.be.instanceOf(BootError);
    // One line per refused file; no follow-on "required" line for the same secret.
    expect(refused.problems).to.deep.equal([
      `JWT_SECRET_FILE: cannot read ${missing} (no such file)`,
      `PEPPER_SECRET_FILE: cannot read ${dir}: not a regular file`,
      `ADMIN_SESSION_SECRET_FILE: ${empty} is empty`,
    ]);
  });

  it('an unreadable file (mode 000) is refused naming the path, not the content', () => {
    const path = join(dir, 'locked');
    writeFileSync(path, 'top-secret-content-0123456789abcdef0123456789');
    chmodSync(path, 0o000);
    const expected = [`JWT_SECRET_FILE: cannot read ${path} (permission denied)`];
    if (process.getuid?.() !== 0) {
      const result = readSecretFiles({ JWT_SECRET_FILE: path });
      expect(result.problems).to.deep.equal(expected);
      expect(result.env.JWT_SECRET).to.equal(undefined);
      return;
    }
    // root reads a mode-000 file anyway: read it as nobody (65534), through the same code.
    chmodSync(dir, 0o755);
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const script = `import { readSecretFiles } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'examples/server/src/env.ts')).href)};
      process.stdout.write(JSON.stringify(readSecretFiles({ JWT_SECRET_FILE: ${JSON.stringify(path)} })));`;
    const run = spawnSync(process.execPath, ['--import', tsx, '--conditions=wallet-source', '--input-type=module', '-e', script], { uid: 65534, gid: 65534, cwd: tmpdir(), encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const result = JSON.parse(run.stdout) as { problems: string[]; env: Record<string, string> };
    expect(result.problems).to.deep.equal(expected);
    expect(result.env.JWT_SECRET).to.equal(undefined);
    expect(run.stdout).not.to.include('top-secret');
  });

  it('a file too large to be a secret is refused', () => {
    const path = join(dir, 'huge');
    writeFileSync(path, 'x'.repeat(70_000));
    expect(readSecretFiles({ PEPPER_SECRET_FILE: path }).problems).to.deep.equal([`PEPPER_SECRET_FILE: ${path} is larger than 65536 bytes; is it the right file?`]);
  });

  it('in development a refused file is never papered over by a generated development secret', () => {
    const config = loadServerConfig({ DATA_DIR: dir, JWT_SECRET_FILE: join(dir, 'absent') });
    expect(config.problems).to.deep.equal([`JWT_SECRET_FILE: cannot read ${join(dir, 'absent')} (no such file)`]);
    expect(config.backend.jwtSecret).to.equal(undefined);
  });

  it('the binary refuses to start on a bad NAME_FILE: exit 1, the path on stderr, never the secret', async () => {
    const files = secretFiles(SECRETS_BY_ENV);
    const server = spawnEntry('examples/server/src/main.ts', [], {
      cwd: dir,
      env: { NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', PORT: '0', ...files, IP_HASH_SALT: 'set-twice-0123456789abcdef0123456789' },
    });
    expect(await server.exited).to.equal(1);
    expect(server.stderr()).to.include('IP_HASH_SALT_FILE: IP_HASH_SALT and IP_HASH_SALT_FILE are both set');
    expect(server.stderr() + server.stdout()).not.to.include(TEST_SECRETS.ipHashSalt);
  });
});
