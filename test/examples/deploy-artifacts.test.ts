import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createTestBackend, REPO_ROOT, requireTool, serverNodeFlags } from '../harness/index.js';

/**
 * The deployment artifacts (Dockerfile, .dockerignore, compose.yaml, the systemd unit) are
 * checked here as far as this machine allows: no Docker engine runs in CI, so the Dockerfile is
 * linted for its structure and its HEALTHCHECK command is run for real against a backend; the
 * unit goes through `systemd-analyze verify` when systemd-analyze is installed.
 */
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile → stages of instructions (comments dropped, continuation lines joined). */
function parseDockerfile(text: string): { args: Instruction[]; stages: Stage[] } {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || line === '') continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(current + line);
    current = '';
  }
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: rest! };
    if (instruction.keyword === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args)!;
      stages.push({ image: image!, name, instructions: [] });
    } else if (stages.length === 0) {
      args.push(instruction);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** The workspaces (every directory under packages/ and examples/ with a package.json). */
function workspaces(): string[] {
  return ['packages', 'examples'].flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir))
      .map((name) => `${dir}/${name}`)
      .filter((path) => existsSync(join(REPO_ROOT, path, 'package.json'))),
  );
}

describe('Dockerfile (linted; the image is not built here: no Docker engine)', () => {
  const { args, stages } = parseDockerfile(read('Dockerfile'));
  const build = stages[0]!;
  const runtime = stages.at(-1)!;
  const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  it('has a build stage and a runtime stage from the same Node base image', () => {
    expect(stages.map((s) => s.name)).to.deep.equal(['build', 'runtime']);
    expect(build.image).to.equal(runtime.image);
    const base = args.find((a) => a.keyword === 'ARG' && a.args.startsWith(`${build.image.replace(/^\$\{(\w+)\}$/, '$1')}=`));
    expect(base?.args, 'the base image is an ARG pinned to an exact Node 24 release (engines: ^24.11.0)').to.match(/=node:24\.\d+\.\d+-[\w.-]+$/);
  });

  it('builds with every dependency, then prunes to the production ones', () => {
    const runs = all(build, 'RUN').join('\n');
    expect(runs).to.match(/npm ci\b/);
    expect(runs).to.match(/npm run build/);
    expect(runs).to.match(/npm prune --omit=dev/);
    // Every workspace's manifest is copied before `npm ci`, or npm would not link it.
    const copies = all(build, 'COPY').join('\n');
    for (const workspace of workspaces()) expect(copies, workspace).to.include(`${workspace}/package.json`);
  });

  it('the runtime stage installs and builds nothing, runs the built server as a non-root user', () => {
    for (const run of all(runtime, 'RUN')) {
      expect(run, 'no npm, no compiler in the runtime stage').to.not.match(/\bnpm\b|\bnpx\b|\btsc\b|apt-get install/);
    }
    const copies = all(runtime, 'COPY');
    expect(copies.every((c) => c.startsWith('--from=build ')), 'everything comes from the build stage').to.equal(true);
    expect(copies.some((c) => /\/app\/node_modules\/? /.test(c))).to.equal(true);
    for (const workspace of workspaces()) {
      expect(copies.some((c) => c.includes(`/app/${workspace}/dist/`)), `${workspace}/dist`).to.equal(true);
      expect(copies.some((c) => c.includes(`/app/${workspace}/package.json`)), `${workspace}/package.json`).to.equal(true);
    }
    const users = all(runtime, 'USER');
    expect(users).to.have.length(1);
    expect(users[0]).to.not.match(/^(root|0)(:|$)/);
    expect(all(runtime, 'ENV').join(' ')).to.match(/NODE_ENV=production/).and.match(/HOST=0\.0\.0\.0/);
    expect(all(runtime, 'EXPOSE')).to.deep.equal(['8080']);
    expect(JSON.parse(all(runtime, 'CMD')[0]!), 'the Node flags of start:prod').to.deep.equal(['node', ...serverNodeFlags(), 'examples/server/dist/main.js']);
  });

  it('HEALTHCHECK probes readiness with node (no curl in the slim image), and the command works', async function () {
    this.timeout(20_000);
    const [healthcheck] = all(runtime, 'HEALTHCHECK');
    expect(healthcheck).to.match(/--interval=\d+s/).and.match(/--timeout=\d+s/).and.match(/--start-period=\d+s/);
    const command = JSON.parse(/CMD (\[.*\])$/.exec(healthcheck!)![1]!) as string[];
    expect(command[0]).to.equal('node');
    expect(command.join(' ')).to.include('/api/v1/health/ready').and.not.include('curl');
    // Asynchronous: the backend answering the probe runs in this very process.
    const probe = (port: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, command.slice(1), { env: { PATH: process.env.PATH ?? '', PORT: port }, stdio: 'ignore', timeout: 10_000 });
        child.on('exit', (code) => resolve(code));
      });
    const t = await createTestBackend('sqlite');
    try {
      const port = new URL(t.client.baseUrl).port;
      expect(await probe(port), 'ready backend → healthy').to.equal(0);
      await t.backend.db.knex.destroy();
      expect(await probe(port), 'database gone → unhealthy').to.equal(1);
    } finally {
      await t.close();
    }
    // Nothing listening → unhealthy, not a hang.
    expect(await probe('1')).to.equal(1);
  });

  it('.dockerignore keeps local builds, dependencies, data and secrets out of the context', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const entry of ['.git', '**/node_modules', '**/dist', '**/*.tsbuildinfo', 'data', '**/*.env', 'deploy/secrets']) {
      expect(ignored, entry).to.include(entry);
    }
    // …and nothing the build stage copies.
    for (const copy of all(build, 'COPY')) {
      for (const source of copy.split(/\s+/).slice(0, -1)) {
        expect(existsSync(join(REPO_ROOT, source)), source).to.equal(true);
        expect(ignored, source).to.not.include(source.replace(/\/$/, ''));
      }
    }
  });
});

/** The block of a top-level service in compose.yaml: its lines up to the next service or top-level key. */
function composeService(compose: string, name: string): string {
  const match = new RegExp(`^ {2}${name}:\n((?: {4}.*\n|\\s*\n)*)`, 'm').exec(compose);
  expect(match, `service ${name}`).to.not.equal(null);
  return match![1]!;
}

/** The backend's secrets: each given as NAME_FILE from a Docker secret, none as an environment value. */
const BACKEND_SECRETS = ['DATABASE_URL', 'JWT_SECRET', 'PEPPER_SECRET', 'IP_HASH_SALT', 'ADMIN_KEY_INTEGRITY_SECRET', 'ADMIN_SESSION_SECRET'];

describe('compose.yaml', () => {
  const compose = read('compose.yaml');

  it('runs the backend after a healthy Postgres, with a volume, a Docker secret and an env file kept out of git', () => {
    expect(compose).to.match(/^ {2}db:\n/m).and.match(/^ {2}backend:\n/m);
    expect(compose, 'the Postgres image is pinned to a minor release').to.match(/image: postgres:\d+\.\d+-\w+/);
    expect(compose).to.include('pg_isready');
    expect(compose).to.match(/- pgdata:\/var\/lib\/postgresql\/data/).and.match(/^volumes:\n {2}pgdata:/m);
    expect(compose).to.include('POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password');
    expect(compose).to.match(/^secrets:\n {2}postgres_password:\n {4}file: deploy\/secrets\/postgres_password$/m);
    expect(compose).to.match(/condition: service_healthy/);
    expect(compose).to.match(/env_file:\n\s+- deploy\/wallet\.env/);
    expect(compose).to.match(/stop_grace_period: (\d+)s/);
    expect(Number(/stop_grace_period: (\d+)s/.exec(compose)![1])).to.be.at.least(25);
    expect(compose).to.include('"127.0.0.1:8080:8080"');
    const ignored = spawnSync('git', ['check-ignore', 'deploy/wallet.env', 'deploy/secrets/postgres_password'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(ignored.stdout.trim().split('\n')).to.have.length(2);
  });

  it('gives the backend every secret, DATABASE_URL included, as a Docker secret file, never as an environment value', () => {
    const backend = composeService(compose, 'backend');
    const secretNames = BACKEND_SECRETS.map((name) => name.toLowerCase());
    for (const [index, name] of BACKEND_SECRETS.entries()) {
      const file = secretNames[index]!;
      expect(backend, `${name}_FILE`).to.include(`${name}_FILE: /run/secrets/${file}\n`);
      expect(backend, `the backend mounts ${file}`).to.match(new RegExp(`^ {6}- ${file}$`, 'm'));
      expect(compose, `the ${file} secret's file`).to.match(new RegExp(`^ {2}${file}:\n {4}file: deploy/secrets/${file}$`, 'm'));
      expect(backend, `${name} itself is not in the environment`).to.not.match(new RegExp(`^ +${name}:`, 'm'));
      const ignored = spawnSync('git', ['check-ignore', '-q', `deploy/secrets/${file}`], { cwd: REPO_ROOT });
      expect(ignored.status, `deploy/secrets/${file} is git-ignored`).to.equal(0);
    }
  });

  it('bounds memory, processes and logs of both containers', () => {
    for (const name of ['db', 'backend']) {
      const service = composeService(compose, name);
      expect(service, `${name} mem_limit`).to.match(/^ {4}mem_limit: \d+[mg]$/m);
      expect(Number(/^ {4}pids_limit: (\d+)$/m.exec(service)?.[1]), `${name} pids_limit`).to.be.within(20, 1000);
      expect(service, `${name} logging`).to.match(/^ {4}logging: \*logging$/m);
    }
    const anchor = /^x-logging: &logging\n((?: {2}.*\n)+)/m.exec(compose)?.[1];
    expect(anchor, 'the logging anchor').to.be.a('string');
    expect(anchor).to.match(/driver: json-file/).and.match(/max-size: "\d+m"/).and.match(/max-file: "\d+"/);
    const backendMemory = /^ {4}mem_limit: (\d+)m$/m.exec(composeService(compose, 'backend'))?.[1];
    expect(Number(backendMemory), 'room above the 256 MB heap cap').to.be.at.least(384);
  });

  it('the env example names every variable production requires, and sets no secret compose gives as a file', () => {
    const example = read('deploy/wallet.env.example');
    for (const name of ['NODE_ENV', 'PUBLIC_API_URL']) expect(example, name).to.match(new RegExp(`^${name}=`, 'm'));
    for (const name of BACKEND_SECRETS) {
      expect(example, `${name} is named, commented out`).to.match(new RegExp(`^#${name}=`, 'm'));
      // Set in the env file AND as NAME_FILE by compose, the start would be refused.
      expect(example, `${name} is not set`).to.not.match(new RegExp(`^${name}(_FILE)?=`, 'm'));
    }
  });
});

describe('systemd unit (deploy/wallet-backend.service)', () => {
  const unit = read('deploy/wallet-backend.service');
  const has = (line: string) => expect(unit.split('\n'), line).to.include(line);

  it('runs the built server as its own user, from an environment file, restarting on failure, hardened', () => {
    for (const line of [
      'User=wallet-backend',
      'EnvironmentFile=/etc/wallet-backend/wallet.env',
      `ExecStart=/usr/bin/node ${serverNodeFlags().join(' ')} /opt/wallet-backend/examples/server/dist/main.js`,
      // The start job ends after the migrations: `systemctl start` returns with the schema current.
      'Type=exec',
      'ExecStartPre=/usr/bin/node /opt/wallet-backend/examples/cli/dist/main.js migrate',
      'Restart=on-failure',
      'KillSignal=SIGTERM',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'ReadWritePaths=/var/lib/wallet-backend',
      'StateDirectory=wallet-backend',
      'CapabilityBoundingSet=',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
      'SystemCallFilter=@system-service',
    ]) {
      has(line);
    }
    expect(unit, 'V8 needs W^X mappings').to.not.match(/^MemoryDenyWriteExecute=yes/m);
    expect(Number(/^TimeoutStopSec=(\d+)s$/m.exec(unit)?.[1])).to.be.at.least(25);
  });

  it('bounds memory and tasks', () => {
    const megabytes = (key: string) => Number(new RegExp(`^${key}=(\\d+)M$`, 'm').exec(unit)?.[1]);
    expect(megabytes('MemoryMax'), 'MemoryMax above the 256 MB heap cap').to.be.within(384, 2048);
    expect(megabytes('MemoryHigh'), 'MemoryHigh below MemoryMax').to.be.below(megabytes('MemoryMax'));
    expect(Number(/^TasksMax=(\d+)$/m.exec(unit)?.[1]), 'TasksMax').to.be.within(20, 1000);
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  const installed = analyze.status === 0;

  it('passes `systemd-analyze verify` with no warning', function () {
    // In CI (WALLET_CI=1, .ci/run installs it) a missing tool fails instead.
    requireTool(this, installed, {
      skipped: '      systemd-analyze not installed (apt-get install systemd): the unit was not verified',
      ciError: 'systemd-analyze is not installed but WALLET_CI=1 (apt-get install systemd)',
    });
    const dir = mkdtempSync(join(tmpdir(), 'wallet-unit-'));
    try {
      let text = unit;
      // verify checks that ExecStart's program exists: use this machine's node if it lives elsewhere.
      if (!existsSync('/usr/bin/node')) {
        console.log(`      /usr/bin/node absent: verifying with ExecStart=${process.execPath}`);
        text = text.replace(/^(ExecStart(?:Pre)?)=\/usr\/bin\/node /gm, `$1=${process.execPath} `);
      }
      const path = join(dir, 'wallet-backend.service');
      writeFileSync(path, text);
      const result = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
      expect(result.status, result.stderr).to.equal(0);
      expect(`${result.stdout}${result.stderr}`.trim(), 'no warnings').to.equal('');
      const security = spawnSync('systemd-analyze', ['security', '--offline=yes', path], { encoding: 'utf8' });
      const exposure = /Overall exposure level for \S+: (\d+\.\d+)/.exec(security.stdout)?.[1];
      if (exposure === undefined) {
        console.log(`      systemd-analyze security --offline unsupported here (${analyze.stdout.split('\n')[0]}): exposure not scored`);
      } else {
        expect(Number(exposure), 'systemd-analyze security exposure (0 best, 10 worst)').to.be.at.most(2);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
