import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '@wallet/backend-core';
import { DEV_SECRETS_FILE, startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freePort, freshDatabaseUrl, REPO_ROOT, spawnEntry, TestClient, TEST_SECRETS } from '../harness/index.js';

const PRODUCTION_SECRETS = {
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  PEPPER_SECRET: TEST_SECRETS.pepperSecret,
  IP_HASH_SALT: TEST_SECRETS.ipHashSalt,
  ADMIN_KEY_INTEGRITY_SECRET: TEST_SECRETS.adminKeyIntegritySecret,
  ADMIN_SESSION_SECRET: TEST_SECRETS.adminSessionSecret,
};

eachDialect('reference server', (dialect) => {
  let dataDir: string;
  let running: RunningServer | undefined;
  let lines: string[];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-server-'));
    lines = [];
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    running = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect), ...env }, { write: (l) => lines.push(l) });
    return new TestClient(running.url);
  };

  it('mounts the Grin relay by default; FEATURE_GRIN_RELAY=false takes its routes away; a malformed value refuses the boot', async () => {
    let client = await start({});
    expect((await client.get('/api/v1/capabilities')).body.grin_relay).to.include({ enabled: true, expiry_hours: 168 });
    expect((await client.get('/api/v1/wallet/grin/relay/pending')).status).to.equal(401);
    await running!.close();
    client = await start({ FEATURE_GRIN_RELAY: 'false', GRIN_RELAY_EXPIRY_HOURS: '72' });
    expect((await client.get('/api/v1/capabilities')).body.grin_relay).to.deep.equal({ enabled: false });
    expect((await client.get('/api/v1/wallet/grin/relay/pending')).status).to.equal(404);
    await running!.close();
    running = undefined;
    const refused = await start({ FEATURE_GRIN_RELAY: 'maybe', GRIN_RELAY_EXPIRY_HOURS: '0' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(refused).to.be.instanceOf(BootError);
    expect(refused.problems).to.include.members([
      'grin-relay: enabled (FEATURE_GRIN_RELAY) must be true or false',
      'grin-relay: expiryHours (GRIN_RELAY_EXPIRY_HOURS) must be a whole number of hours from 1 to 2160',
    ]);
  });

  it('mounts tips off by default (400 tips_off); FEATURE_TIPS needs a chain and TIP_SHARE_BASE, or the boot is refused', async () => {
    let client = await start({});
    expect((await client.get('/api/v1/capabilities')).body.tips).to.equal(false);
    const off = await client.get('/api/v1/tips/social/00000000-0000-4000-8000-000000000000/public');
    expect([off.status, off.body.error.code]).to.deep.equal([400, 'tips_off']);
    await running!.close();
    running = undefined;
    const refused = await start({ FEATURE_TIPS: 'true', FEATURE_TARGETED_TIPS: 'yes' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(refused.problems).to.include.members([
      'tips: tips (FEATURE_TIPS) need at least one of btc, ltc, xmr or wow chain access configured',
      'tips: shareBase (TIP_SHARE_BASE) is required when tips are on',
    ]);
    const capRefused = await start({ FEATURE_TIPS: 'true', TIP_SHARE_BASE: 'https://wallet.example/tip/', LTC_ESPLORA_URL: 'http://127.0.0.1:9/', TIP_MAX_UNCONFIRMED_PER_SENDER: '0' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(capRefused.problems).to.deep.equal(['tips: maxUnconfirmedPerSender (TIP_MAX_UNCONFIRMED_PER_SENDER) must be a whole number from 1 to 1000']);
    client = await start({ FEATURE_TIPS: 'true', FEATURE_TARGETED_TIPS: 'true', TIP_SHARE_BASE: 'https://wallet.example/tip/', LTC_ESPLORA_URL: 'http://127.0.0.1:9/', TIP_MAX_UNCONFIRMED_PER_SENDER: '3' });
    expect((await client.get('/api/v1/capabilities')).body).to.include({ tips: true, targeted_tips: true });
    expect((await client.get('/api/v1/capabilities')).body.tip_assets).to.deep.equal(['ltc']);
  });

  it('mounts premium off by default (400 premium_off, status answers); PREMIUM_ENABLED needs the relay, the premium-post policy, BTCPay and a plan, or the boot is refused', async () => {
    let client = await start({});
    expect((await client.get('/api/v1/capabilities')).body).to.include({ premium_relay: false });
    const off = await client.post('/api/v1/premium/invoice', { plan: 'month' });
    expect(off.status).to.equal(401);
    await running!.close();
    running = undefined;
    const refused = await start({ PREMIUM_ENABLED: 'true', PREMIUM_PLANS: 'month:30:0,month:0:1', RELAY_WRITE_POLICY: 'closed' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(refused.problems).to.include.members([
      'premium: writePolicy (RELAY_WRITE_POLICY) must be one of premium-post, open',
      'premium: plans (PREMIUM_PLANS): "month:30:0": the amount must be a positive decimal (at most 8 decimals)',
      'premium: plans (PREMIUM_PLANS): plan id "month" is used twice',
      'premium: plans (PREMIUM_PLANS): "month:0:1": days must be a whole number from 1 to 3660',
      'premium: premium (PREMIUM_ENABLED) needs the relay on: set relayUrl (RELAY_URL)',
      'premium: premium (PREMIUM_ENABLED) needs the premium-post write policy (RELAY_WRITE_POLICY=premium-post)',
      'premium: premium (PREMIUM_ENABLED) needs the payment processor: btcpayUrl (BTCPAY_URL) is missing',
    ]);
    client = await start({
      PREMIUM_ENABLED: 'true',
      PREMIUM_PLANS: 'month:30:0.0001, year:365:0.001',
      RELAY_URL: 'wss://relay.example',
      RELAY_WRITE_POLICY: 'premium-post',
      BTCPAY_URL: 'http://127.0.0.1:9',
      BTCPAY_STORE_ID: 'Store1234567890',
      BTCPAY_API_KEY: 'an-api-key-of-some-length',
    });
    expect((await client.get('/api/v1/capabilities')).body).to.deep.include({
      premium_relay: true,
      premium: { currency: 'BTC', relay_url: 'wss://relay.example', plans: [{ id: 'month', days: 30, amount: '0.0001' }, { id: 'year', days: 365, amount: '0.001' }] },
    });
  });

  it('METRICS_LISTEN opens the metrics listener, named in the "listening" line, and stops it with the server', async () => {
    const port = await freePort();
    const client = await start({ METRICS_LISTEN: String(port) });
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    const listening = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'listening')!;
    expect(listening.metrics).to.equal(`http://127.0.0.1:${port}/metrics`);
    const page = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(page).to.match(/^wallet_http_requests_total\{method="GET",route="\/api\/v1\/health",status="200"\} 1$/m);
    await running!.close();
    running = undefined;
    const after = await fetch(`http://127.0.0.1:${port}/metrics`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(after).to.equal('refused');
  });

  it('serves /api/v1/health with no configuration, generating development secrets once', async () => {
    const client = await start({});
    expect((await client.get('/api/v1/health')).body).to.deep.equal({ status: 'ok' });
    const secretsPath = join(dataDir, DEV_SECRETS_FILE);
    expect(statSync(secretsPath).mode & 0o777).to.equal(0o600);
    const first = readFileSync(secretsPath, 'utf8');
    expect(lines.filter((l) => l.includes('generated development secrets'))).to.have.length(1);
    expect(lines.some((l) => l.includes('"msg":"listening"'))).to.equal(true);

    await running!.close();
    lines = [];
    running = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect) }, { write: (l) => lines.push(l) });
    expect(readFileSync(secretsPath, 'utf8')).to.equal(first);
    expect(lines.some((l) => l.includes('generated development secrets'))).to.equal(false);
  });

  it('a development secrets file from an older release gains the new secrets and keeps the old ones', async () => {
    const secretsPath = join(dataDir, DEV_SECRETS_FILE);
    const old = { jwtSecret: 'j'.repeat(40), pepperSecret: 'p'.repeat(40), ipHashSalt: 'i'.repeat(40), adminKeyIntegritySecret: 'a'.repeat(40) };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(secretsPath, JSON.stringify(old), { mode: 0o600 });
    await start({});
    const upgraded = JSON.parse(readFileSync(secretsPath, 'utf8'));
    expect(upgraded).to.include(old);
    expect(upgraded.adminSessionSecret).to.be.a('string').with.length.of.at.least(32);
    expect(statSync(secretsPath).mode & 0o777).to.equal(0o600);
  });

  it('a development secrets file with no usable secret refuses the start', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, DEV_SECRETS_FILE), JSON.stringify({ jwtSecret: 'short' }));
    const err = await start({}).then(() => expect.fail('started'), (e: unknown) => e as Error);
    expect(err.message).to.include('holds no usable secret');
  });

  it('logs one line per request with method, path, status and ms; never tokens, query strings or client IPs', async () => {
    const client = await start({});
    await client.get('/api/v1/health?secret=zzz', { headers: { authorization: 'Bearer sekrit.token.value' } });
    await client.post('/api/v1/auth/refresh', { refresh_token: 'sekrit-refresh' });
    const requests = lines.filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
    expect(requests).to.have.length(2);
    expect(requests[0]).to.include({ method: 'GET', path: '/api/v1/health', status: 200 });
    expect(requests[0].ms).to.be.a('number');
    expect(requests[1]).to.include({ method: 'POST', path: '/api/v1/auth/refresh', status: 400 });
    const text = requests.map((r) => JSON.stringify(r)).join('\n');
    for (const secret of ['sekrit', 'zzz', '127.0.0.1', '::1']) expect(text).to.not.include(secret);
  });

  it('refuses to start in production without real secrets, listing every missing one', async () => {
    const err = await start({ NODE_ENV: 'production', RATE_LIMIT_MAX: 'lots' }).then(
      () => expect.fail('started'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(BootError);
    const problems = (err as BootError).problems.join('\n');
    for (const name of ['PUBLIC_API_URL', 'JWT_SECRET', 'PEPPER_SECRET', 'IP_HASH_SALT', 'ADMIN_KEY_INTEGRITY_SECRET', 'ADMIN_SESSION_SECRET', 'RATE_LIMIT_MAX']) expect(problems).to.include(name);
    expect(() => statSync(join(dataDir, DEV_SECRETS_FILE))).to.throw();
  });

  it('starts in production with real secrets and never writes development secrets', async () => {
    const client = await start({ NODE_ENV: 'production', PUBLIC_API_URL: 'https://wallet.example.test', ...PRODUCTION_SECRETS });
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    expect(() => statSync(join(dataDir, DEV_SECRETS_FILE))).to.throw();
  });
});

describe('reference server binary', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-server-bin-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with no configuration, serves, and exits 0 on SIGTERM', async () => {
    const server = spawnEntry('examples/server/src/main.ts', [], { cwd: dataDir, env: { PORT: '0' } });
    try {
      await server.waitFor('"msg":"listening"');
      const url = JSON.parse(server.stdout().split('\n').find((l) => l.includes('"msg":"listening"'))!).url as string;
      expect((await new TestClient(url).get('/api/v1/health')).status).to.equal(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(server.stdout()).to.include('shutting down');
      expect(statSync(join(dataDir, 'data', 'wallet.db')).isFile()).to.equal(true);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('a SIGTERM that arrives while the server boots is answered by a clean stop once it is up (exit 0), not by dying', async () => {
    const server = spawnEntry('examples/server/src/main.ts', [], { cwd: dataDir, env: { PORT: '0' } });
    try {
      // The first line is written by the running main(), after its signal handlers exist.
      await server.waitFor('"msg"');
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(server.stdout()).to.include('"msg":"stopped"');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('logs only JSON: "listening" carries the release version, and "stopped" is the last line after SIGTERM', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'examples/server/package.json'), 'utf8')) as { version: string };
    const server = spawnEntry('examples/server/src/main.ts', [], { cwd: dataDir, env: { PORT: '0' } });
    try {
      await server.waitFor('"msg":"listening"');
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      const listening = lines.find((line) => line.msg === 'listening')!;
      expect(listening).to.include({ version, node: process.version });
      expect(version).to.match(/^\d+\.\d+\.\d+/);
      expect(lines.map((line) => line.msg).slice(-2)).to.deep.equal(['shutting down', 'stopped']);
      expect(lines.at(-1)!.ms).to.be.a('number');
      expect(server.stderr()).to.equal('');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('a start that fails on an unreachable database is logged as JSON (driver warning and "start failed"), the password masked', async () => {
    const port = await freePort();
    const server = spawnEntry('examples/server/src/main.ts', [], { cwd: dataDir, env: { PORT: '0', DATABASE_URL: `postgres://wallet:hunter2-not-logged@127.0.0.1:${port}/wallet` } });
    expect(await server.exited).to.equal(1);
    const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'database driver warning')).to.include({ level: 'warn', component: 'database' });
    expect(lines.find((line) => line.msg === 'start failed')).to.include({ level: 'error' });
    expect(server.stdout() + server.stderr()).not.to.include('hunter2');
  });

  it('exits 1 with every problem on stderr when production configuration is incomplete', async () => {
    const server = spawnEntry('examples/server/src/main.ts', [], { cwd: dataDir, env: { NODE_ENV: 'production', PORT: 'nope' } });
    expect(await server.exited).to.equal(1);
    for (const name of ['PORT', 'PUBLIC_API_URL', 'JWT_SECRET', 'PEPPER_SECRET', 'IP_HASH_SALT']) expect(server.stderr()).to.include(name);
  });
});
