import { existsSync } from 'node:fs';
import { expect } from 'chai';
import {
  BootError,
  createWalletBackend,
  defineRoute,
  envNameOf,
  silentLogger,
  validateSettings,
  type PluginMigration,
  type WalletBackendConfig,
  type WalletPlugin,
} from '@wallet/backend-core';
import { freshDatabaseUrl, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../../harness/index.js';

/** A valid configuration on a SQLite file that does not exist yet. */
async function baseConfig(overrides: Partial<WalletBackendConfig> = {}): Promise<WalletBackendConfig> {
  return {
    publicApiUrl: TEST_PUBLIC_API_URL,
    databaseUrl: await freshDatabaseUrl('sqlite'),
    ...TEST_SECRETS,
    logger: silentLogger,
    schedulerEnabled: false,
    ...overrides,
  };
}

/** The problems of a refused boot; fails the test when the backend boots. */
async function refusal(config: WalletBackendConfig): Promise<readonly string[]> {
  return createWalletBackend(config).then(
    async (backend) => {
      await backend.close();
      return expect.fail('booted');
    },
    (err: unknown) => {
      expect(err).to.be.instanceOf(BootError);
      const problems = (err as BootError).problems;
      expect((err as BootError).message).to.include(`(${problems.length} problem`);
      for (const problem of problems) expect((err as BootError).message).to.include(problem);
      return problems;
    },
  );
}

/** Boots, closes, and returns nothing: for configurations that must be accepted. */
async function boots(config: WalletBackendConfig): Promise<void> {
  const backend = await createWalletBackend(config);
  await backend.close();
}

/** A plugin that records whether its setup ran and declares the given routes and capabilities. */
function plugin(
  name: string,
  options: { routes?: Array<[method: 'GET' | 'POST', path: string]>; capabilities?: Record<string, unknown>; migrations?: PluginMigration[] } = {},
): WalletPlugin & { setups: number } {
  const p: WalletPlugin & { setups: number } = {
    name,
    setups: 0,
    ...(options.migrations ? { migrations: options.migrations } : {}),
    setup(ctx) {
      p.setups += 1;
      for (const [method, path] of options.routes ?? []) {
        ctx.routes.add(defineRoute({ method, path, summary: `${name} ${path}`, auth: 'none', handler: () => ({}) }));
      }
      if (options.capabilities) ctx.capabilities.contribute(() => options.capabilities!);
    },
  };
  return p;
}

const migration = (id: string): PluginMigration => ({ id, up: async () => {} });
const sqlitePath = (config: WalletBackendConfig) => config.databaseUrl.slice('sqlite:'.length);

function expectProblem(problems: readonly string[], pattern: RegExp | string): void {
  const found = problems.some((problem) => (typeof pattern === 'string' ? problem === pattern : pattern.test(problem)));
  expect(found, `${String(pattern)} in:\n  ${problems.join('\n  ')}`).to.equal(true);
}

describe('boot: BootError lists every problem at once', () => {
  it('several invalid settings, each named with its environment variable', async () => {
    const spy = plugin('spy');
    const config = await baseConfig({
      publicApiUrl: 'ftp://x',
      jwtSecret: 'short',
      rateLimitMax: 0,
      trustedProxies: ['nonsense'],
      plugins: [spy],
    });
    const problems = await refusal(config);
    expectProblem(problems, /^publicApiUrl \(PUBLIC_API_URL\): .*http/);
    expectProblem(problems, /^jwtSecret \(JWT_SECRET\): .*32/);
    expectProblem(problems, /^rateLimitMax \(RATE_LIMIT_MAX\): .*at least 1/);
    expectProblem(problems, /^trustedProxies\.\d+ \(TRUSTED_PROXIES\): "nonsense"/);
    // Refused before anything ran or connected.
    expect(spy.setups).to.equal(0);
    expect(existsSync(sqlitePath(config))).to.equal(false);
  });

  it('a bad trusted proxy and other cross-setting rules are listed together', async () => {
    const problems = await refusal(
      await baseConfig({ trustedProxies: ['nonsense', '10.0.0.0/33', '127.0.0.1'], accessTokenTtlSec: 7200, refreshTokenTtlSec: 3600, pepperSecret: TEST_SECRETS.jwtSecret }),
    );
    expectProblem(problems, /^trustedProxies\.\d+ \(TRUSTED_PROXIES\): "nonsense"/);
    expectProblem(problems, /^trustedProxies\.\d+ \(TRUSTED_PROXIES\): "10\.0\.0\.0\/33"/);
    expectProblem(problems, /^refreshTokenTtlSec \(REFRESH_TOKEN_TTL_SEC\)/);
    expectProblem(problems, 'jwtSecret and pepperSecret must be different secrets');
    expect(problems).to.have.length(4);
  });

  it('a missing setting names its variable; an unknown one is refused without inventing one', async () => {
    const { databaseUrl: _omitted, ...config } = await baseConfig();
    const problems = await refusal({ ...config, bogusSetting: 1 } as unknown as WalletBackendConfig);
    // Left out entirely, a required setting is missing, not unknown: it is named with its variable.
    expectProblem(problems, /^databaseUrl \(DATABASE_URL\): /);
    expect(problems.filter((problem) => problem.startsWith('databaseUrl')).join('\n')).to.not.include('not a known setting');
    expectProblem(problems, 'bogusSetting: is not a known setting');
  });

  it('duplicate and malformed plugin names', async () => {
    const first = plugin('dup');
    const second = plugin('dup');
    const problems = await refusal(await baseConfig({ plugins: [first, second, plugin('core'), plugin('Bad_Name')] }));
    expectProblem(problems, 'plugin "dup" is registered twice');
    expectProblem(problems, 'plugin "core" is registered twice');
    expectProblem(problems, /^plugin "Bad_Name": name must be lower-case/);
    expect(first.setups + second.setups).to.equal(0);
  });

  it('the same method and path declared twice, including a plugin re-declaring core GET /health', async () => {
    const problems = await refusal(
      await baseConfig({
        plugins: [
          plugin('alpha', { routes: [['GET', '/thing'], ['POST', '/thing']] }),
          plugin('beta', { routes: [['GET', '/thing']] }),
          plugin('gamma', { routes: [['GET', '/health']] }),
          plugin('delta', { routes: [['GET', '/items/{id}']] }),
          plugin('epsilon', { routes: [['GET', '/items/{item_id}']] }),
        ],
      }),
    );
    expect(problems).to.have.members([
      'route GET /api/v1/thing is declared by both alpha and beta',
      'route GET /api/v1/health is declared by both core and gamma',
      'route GET /api/v1/items/{item_id} is declared by both delta and epsilon',
    ]);
  });

  it('clashing, malformed and out-of-order migration ids inside one plugin', async () => {
    const problems = await refusal(
      await baseConfig({
        plugins: [
          plugin('mig', { migrations: [migration('001_a'), migration('001_a')] }),
          plugin('order', { migrations: [migration('002_b'), migration('001_c')] }),
          plugin('shape', { migrations: [migration('init')] }),
        ],
      }),
    );
    expectProblem(problems, 'migration mig/001_a: id declared twice');
    expectProblem(problems, /^migration order\/001_c: ids must increase/);
    expectProblem(problems, 'migration shape/init: id must look like 001_slug');
    expect(problems).to.have.length(3);
  });

  it('the same migration id in two plugins is fine (ids are namespaced)', async () => {
    await boots(await baseConfig({ plugins: [plugin('one', { migrations: [migration('001_init')] }), plugin('two', { migrations: [migration('001_init')] })] }));
  });

  it("a plugin's validateConfig violations, prefixed with its name, next to core's own", async () => {
    let seen: Record<string, unknown> | undefined;
    const tips: WalletPlugin = {
      name: 'tips',
      validateConfig: (settings) => {
        seen = { ...settings };
        return ['TIPS_WALLET is required', 'TIPS_MAX must be positive'];
      },
      setup: () => expect.fail('setup must not run'),
    };
    const thrower: WalletPlugin = {
      name: 'thrower',
      validateConfig: () => {
        throw new Error('cannot read its file');
      },
      setup: () => expect.fail('setup must not run'),
    };
    const problems = await refusal(await baseConfig({ rateLimitMax: 0, plugins: [tips, thrower] }));
    expectProblem(problems, 'tips: TIPS_WALLET is required');
    expectProblem(problems, 'tips: TIPS_MAX must be positive');
    expectProblem(problems, 'thrower: configuration check threw: cannot read its file');
    expectProblem(problems, /^rateLimitMax \(RATE_LIMIT_MAX\)/);
    // With core settings invalid, the plugin sees them as given.
    expect(seen).to.include({ rateLimitMax: 0, publicApiUrl: TEST_PUBLIC_API_URL });
  });

  it('validateConfig sees the defaults applied when core settings are valid', async () => {
    let seen: Record<string, unknown> | undefined;
    const reader: WalletPlugin = { name: 'reader', validateConfig: (settings) => ((seen = { ...settings }), []), setup: () => {} };
    await boots(await baseConfig({ plugins: [reader] }));
    expect(seen).to.include({ rateLimitMax: 120, bodyLimitBytes: 262_144, upstreamTimeoutMs: 5_000 });
  });

  it('two plugins contributing the same capability key, or a plugin claiming core\'s', async () => {
    const problems = await refusal(
      await baseConfig({
        plugins: [
          plugin('a', { capabilities: { feature_x: true } }),
          plugin('b', { capabilities: { feature_x: false, feature_y: 1 } }),
          plugin('c', { capabilities: { chains: [] } }),
        ],
      }),
    );
    expect(problems).to.have.members([
      'capability "feature_x" is contributed by both a and b',
      'capability "chains" is contributed by both core and c',
    ]);
  });

  it('problems of different kinds found before setup all come in one BootError', async () => {
    const problems = await refusal(
      await baseConfig({
        jwtSecret: 'short',
        plugins: [
          plugin('dup'),
          plugin('dup'),
          plugin('mig', { migrations: [migration('001_a'), migration('001_a')] }),
          { name: 'cfg', validateConfig: () => ['needs a key'], setup: () => {} },
        ],
      }),
    );
    expect(problems).to.have.members([
      'jwtSecret (JWT_SECRET): must be at least 32 characters',
      'plugin "dup" is registered twice',
      'migration mig/001_a: id declared twice',
      'cfg: needs a key',
    ]);
  });

  it('setup failures and throwing capability contributors are boot problems, listed with route problems', async () => {
    const problems = await refusal(
      await baseConfig({
        plugins: [
          { name: 'broken', setup: () => { throw new Error('cannot reach its config'); } },
          { name: 'twice', setup: (ctx) => { ctx.chains.provideHeight('btc', { tipHeight: async () => 1 }); ctx.chains.provideHeight('btc', { tipHeight: async () => 2 }); } },
          { name: 'caps', setup: (ctx) => ctx.capabilities.contribute(() => { throw new Error('no caps'); }) },
          plugin('paths', { routes: [['GET', 'no-slash'], ['GET', '/spaces here']] }),
          {
            name: 'limits',
            setup: (ctx) => ctx.routes.add(defineRoute({ method: 'POST', path: '/tiny', summary: 'x', auth: 'none', bodyLimitBytes: 10, handler: () => ({}) })),
          },
        ],
      }),
    );
    expect(problems).to.have.members([
      'broken: setup failed: cannot reach its config',
      'twice: setup failed: a height source for btc is already registered',
      'capability contributor of caps threw: no caps',
      'route GET no-slash of paths: path must start with / and use only URL-safe characters',
      'route GET /spaces here of paths: path must start with / and use only URL-safe characters',
      'route POST /tiny of limits: bodyLimitBytes must be an integer from 1024 to 16777216',
    ]);
  });

  it('a trusted proxy written in IPv4-mapped IPv6 form passes validation, so it boots', async () => {
    const config = await baseConfig({ trustedProxies: ['::ffff:127.0.0.1'] });
    const { publicApiUrl, databaseUrl, jwtSecret, pepperSecret, ipHashSalt, adminKeyIntegritySecret, adminSessionSecret, trustedProxies } = config;
    expect(validateSettings({ publicApiUrl, databaseUrl, jwtSecret, pepperSecret, ipHashSalt, adminKeyIntegritySecret, adminSessionSecret, trustedProxies }).violations).to.deep.equal([]);
    await boots(config);
  });
});

describe('settings', () => {
  const required = { publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: 'sqlite:./unused.db', ...TEST_SECRETS };

  it('validateSettings applies the documented defaults', () => {
    const verdict = validateSettings(required);
    expect(verdict.ok, verdict.violations.join('; ')).to.equal(true);
    expect(verdict.settings).to.include({
      accessTokenTtlSec: 900,
      refreshTokenTtlSec: 2_592_000,
      bodyLimitBytes: 262_144,
      rateLimitMax: 120,
      rateLimitWindowSec: 60,
      challengeTtlSec: 300,
      upstreamTimeoutMs: 5_000,
      databasePoolMax: 10,
      nodeEnv: 'development',
      schedulerEnabled: true,
    });
    expect(verdict.settings!.trustedProxies).to.deep.equal([]);
  });

  it('validateSettings keeps given values and returns every violation', () => {
    expect(validateSettings({ ...required, rateLimitMax: 5 }).settings!.rateLimitMax).to.equal(5);
    const verdict = validateSettings({ ...required, bodyLimitBytes: 10, upstreamTimeoutMs: 1500.5, nodeEnv: 'staging' });
    expect(verdict.ok).to.equal(false);
    expect(verdict.settings).to.equal(undefined);
    expect(verdict.violations.map((line) => line.split(' ')[0])).to.have.members(['bodyLimitBytes', 'upstreamTimeoutMs', 'nodeEnv']);
  });

  it('envNameOf maps setting keys onto environment names', () => {
    expect(envNameOf('publicApiUrl')).to.equal('PUBLIC_API_URL');
    expect(envNameOf('jwtSecret')).to.equal('JWT_SECRET');
    expect(envNameOf('refreshTokenTtlSec')).to.equal('REFRESH_TOKEN_TTL_SEC');
    expect(envNameOf('databasePoolMax')).to.equal('DATABASE_POOL_MAX');
  });
});

describe('boot: registration gates fail closed (spec › General rule 3)', () => {
  it('pay-to-register without price or processor credentials lists each missing setting', async () => {
    const problems = await refusal(await baseConfig({ registrationRequirePayment: true }));
    for (const name of ['REGISTRATION_PRICE', 'BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY']) {
      expect(problems.some((p) => p.includes(name)), name).to.equal(true);
    }
  });

  it('refuses 0 confirmations, a non-positive or malformed price and an unbounded invoice expiry', async () => {
    const problems = await refusal(
      await baseConfig({
        registrationRequirePayment: true,
        registrationPrice: '0',
        registrationConfirmations: 0,
        registrationInvoiceExpiryMinutes: 100_000,
        btcpayUrl: 'https://pay.example',
        btcpayStoreId: 'Store1234567',
        btcpayApiKey: 'k'.repeat(32),
      }),
    );
    expect(problems.some((p) => p.includes('REGISTRATION_PRICE') && p.includes('greater than zero'))).to.equal(true);
    expect(problems.some((p) => p.includes('REGISTRATION_CONFIRMATIONS') && p.includes('0-confirmation is refused'))).to.equal(true);
    expect(problems.some((p) => p.includes('REGISTRATION_INVOICE_EXPIRY_MINUTES'))).to.equal(true);
    const { logger: _logger, ...settings } = await baseConfig();
    for (const price of ['-1', '1e3', '0.1.2', 'abc', '01', '0.0000000000001']) {
      expect(validateSettings({ ...settings, registrationPrice: price }).ok, price).to.equal(false);
    }
    for (const price of ['0.0001', '12', '1.5']) expect(validateSettings({ ...settings, registrationPrice: price }).ok, price).to.equal(true);
  });

  it('requires https in production when payment is on', async () => {
    const problems = await refusal(
      await baseConfig({
        nodeEnv: 'production',
        publicApiUrl: 'http://wallet.example',
        registrationRequirePayment: true,
        registrationPrice: '0.001',
        btcpayUrl: 'http://pay.example',
        btcpayStoreId: 'Store1234567',
        btcpayApiKey: 'k'.repeat(32),
      }),
    );
    expect(problems.some((p) => p.includes('PUBLIC_API_URL') && p.includes('https'))).to.equal(true);
    expect(problems.some((p) => p.includes('BTCPAY_URL') && p.includes('https'))).to.equal(true);
  });

  it('proof-of-work settings are bounded', async () => {
    const problems = await refusal(await baseConfig({ registrationRequirePow: true, powDifficulty: 10, powChallengeTtlSec: 5 }));
    expect(problems.some((p) => p.includes('POW_DIFFICULTY'))).to.equal(true);
    expect(problems.some((p) => p.includes('POW_CHALLENGE_TTL_SEC'))).to.equal(true);
  });
});

describe('boot: chain upstream settings', () => {
  it('refuses Esplora and Electrum together for one chain, and malformed Electrum URLs', async () => {
    const problems = await refusal(
      await baseConfig({ btcEsploraUrl: 'https://mempool.example/api', btcElectrumUrl: 'ssl://electrum.example:50002', ltcElectrumUrl: 'http://electrum.example:50001' }),
    );
    expectProblem(problems, /BTC_ESPLORA_URL\) and btcElectrumUrl \(BTC_ELECTRUM_URL\): choose one upstream per chain/);
    expectProblem(problems, /LTC_ELECTRUM_URL.*tcp:\/\/host:port or ssl:\/\/host:port/);
    const { logger: _logger, ...settings } = await baseConfig();
    for (const url of ['tcp://electrs:70000', 'tcp://user@electrs:50001', 'ssl://electrs:50002/path']) expect(validateSettings({ ...settings, btcElectrumUrl: url }).ok, url).to.equal(false);
    for (const url of ['tcp://127.0.0.1:50001', 'ssl://fulcrum.example:50002', 'tls://[::1]:50002', 'tcp://electrs']) expect(validateSettings({ ...settings, btcElectrumUrl: url }).ok, url).to.equal(true);
  });
});

describe('boot: plugin close handlers', () => {
  const closing = (name: string, log: string[]): WalletPlugin => ({
    name,
    setup(ctx) {
      ctx.onClose(() => {
        log.push(name);
      });
      ctx.onClose(() => {
        throw new Error('a failing handler does not stop the others');
      });
    },
  });

  it('run in reverse registration order when the backend closes, once', async () => {
    const log: string[] = [];
    const backend = await createWalletBackend(await baseConfig({ plugins: [closing('first', log), closing('second', log)] }));
    expect(log).to.deep.equal([]);
    await backend.close();
    await backend.close();
    expect(log).to.deep.equal(['second', 'first']);
  });

  it('run when a later plugin makes the boot fail', async () => {
    const log: string[] = [];
    const broken: WalletPlugin = {
      name: 'broken',
      setup() {
        throw new Error('cannot start');
      },
    };
    await refusal(await baseConfig({ plugins: [closing('first', log), broken] }));
    expect(log).to.deep.equal(['first']);
  });
});
