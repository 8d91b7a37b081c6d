import { KeyObject } from 'node:crypto';
import { expect } from 'chai';
import type { PluginContext, PublicSettingsInput, WalletPlugin } from '@wallet/backend-core';
import { erasurePlugin } from '@wallet/erasure';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { SECRET_SETTINGS, settingsSchema, withoutSecrets } from '../../../packages/core/src/config/index.js';
import { eachDialect, useTestBackend, TEST_SECRETS } from '../../harness/index.js';

/**
 * No plugin ever sees a secret (docs/architecture.md#security-model): not in `ctx.settings`, not
 * in `validateConfig`'s argument, not behind any object the plugin context reaches. The walk
 * follows every own data property (getters are never called), Map and Set entries and
 * prototypes, and looks for each secret's text in strings and its bytes in binary data; a
 * `KeyObject` anywhere is a key a plugin could export.
 */

const NOWHERE = 'http://127.0.0.1:9';
/** Every secret setting, each set to a distinct value that occurs nowhere else. */
const SECRETS: Record<(typeof SECRET_SETTINGS)[number], string> = {
  ...TEST_SECRETS,
  btcpayApiKey: 'probe-btcpay-api-key-5f1c2e9a7b',
  grinNodeApiSecret: 'probe-grin-node-secret-8d3a61c0',
  priceFeedApiKey: 'probe-price-feed-key-2b7e94d1',
};

/** Paths from `root` under which one of the secrets is held, as `path: secret name`. */
function secretsHeldBy(root: unknown, rootName: string): string[] {
  const needles = Object.entries(SECRETS).map(([name, text]) => ({ name, text, bytes: Buffer.from(text, 'utf8') }));
  const found: string[] = [];
  const seen = new Set<object>();
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: rootName }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      for (const needle of needles) if (value.includes(needle.text)) found.push(`${path}: ${needle.name}`);
      continue;
    }
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
    if (seen.has(value)) continue;
    seen.add(value);
    if (value instanceof KeyObject) {
      found.push(`${path}: a KeyObject`);
      continue;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
      const bytes = value instanceof ArrayBuffer ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      for (const needle of needles) if (bytes.includes(needle.bytes)) found.push(`${path}: ${needle.name} (bytes)`);
      continue;
    }
    if (value instanceof Map) for (const [key, entry] of value) stack.push({ value: key, path: `${path}<key>` }, { value: entry, path: `${path}<entry>` });
    if (value instanceof Set) for (const entry of value) stack.push({ value: entry, path: `${path}<member>` });
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor !== undefined && 'value' in descriptor) stack.push({ value: descriptor.value, path: `${path}.${String(key)}` });
    }
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== null && prototype !== Object.prototype && prototype !== Function.prototype) stack.push({ value: prototype, path: `${path}.<prototype>` });
  }
  return found;
}

describe('secret settings are named once', () => {
  it('every setting whose name says secret, salt, key or password is in SECRET_SETTINGS, and every entry is a setting', () => {
    const keys = Object.keys(settingsSchema.entries);
    const secretLooking = keys.filter((key) => /secret|salt|apikey|password|token(?!ttl)/i.test(key) && !/TtlSec$/.test(key));
    expect(secretLooking.sort()).to.deep.equal([...SECRET_SETTINGS].sort());
    for (const key of SECRET_SETTINGS) expect(keys, key).to.include(key);
  });
});

eachDialect('plugins never see a secret', (dialect) => {
  let captured: PluginContext | undefined;
  let checked: Readonly<PublicSettingsInput> | undefined;
  let setupArguments: unknown[] = [];
  const probe: WalletPlugin = {
    name: 'probe',
    validateConfig(settings) {
      checked = settings;
      return [];
    },
    // A plain function, so `arguments` shows whatever else the backend passes.
    setup: function (ctx: PluginContext) {
      captured = ctx;
      // eslint-disable-next-line prefer-rest-params
      setupArguments = [...arguments];
    },
  };
  const t = useTestBackend(dialect, () => ({
    plugins: [
      grinRelayPlugin({}),
      tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }),
      premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
      erasurePlugin({ enabled: true }),
      probe,
    ],
    settings: {
      ...SECRETS,
      btcpayUrl: NOWHERE,
      btcpayStoreId: 'ProbeStore00000001',
      btcEsploraUrl: NOWHERE,
      ltcEsploraUrl: NOWHERE,
      xmrLwsUrl: NOWHERE,
      xmrDaemonUrl: NOWHERE,
      grinNodeUrl: NOWHERE,
      priceFeed: 'coingecko',
      priceFeedUrl: NOWHERE,
      metricsListen: '127.0.0.1:0',
    },
  }));

  it('the walk finds a secret where one is held: core’s own session service (the host’s, not a plugin’s)', () => {
    expect(secretsHeldBy(t.backend.sessions, 'backend.sessions').join('\n')).to.include('jwtSecret');
    expect(secretsHeldBy({ deep: [new Map([['k', { key: Buffer.from(`x${SECRETS.btcpayApiKey}y`) }]])] }, 'planted')).to.deep.equal(['planted.deep.0<entry>.key: btcpayApiKey (bytes)']);
  });

  it("a plugin's setup gets the plugin context and nothing else: core's extensions go only to core's own features", () => {
    expect(setupArguments).to.have.length(1);
    expect(setupArguments[0]).to.equal(captured);
  });

  it('the settings a plugin reads carry the database URL without its password', () => {
    expect(withoutSecrets({ databaseUrl: 'postgres://wallet:s3cr%40t@db:5432/wallet?schema=w' }).databaseUrl).to.equal('postgres://wallet:***@db:5432/wallet?schema=w');
    expect(withoutSecrets({ databaseUrl: 'postgres://wallet@db/wallet' }).databaseUrl).to.equal('postgres://wallet@db/wallet');
    expect(withoutSecrets({ databaseUrl: 'sqlite:./data/wallet.db' }).databaseUrl).to.equal('sqlite:./data/wallet.db');
    // The test database takes no password: its URL reaches the plugin as given.
    expect(captured!.settings.databaseUrl).to.equal(t.databaseUrl);
  });

  it('validateConfig gets the settings without a secret, and which secrets are set', () => {
    expect(checked).to.not.equal(undefined);
    expect(secretsHeldBy(checked, 'validateConfig(settings)')).to.deep.equal([]);
    expect(Object.keys(checked!)).to.not.include.members([...SECRET_SETTINGS]);
    expect([...checked!.configuredSecrets].sort()).to.deep.equal([...SECRET_SETTINGS].sort());
  });

  it('the services a plugin shares with core are frozen views: replacing a method (the admin login’s signature check, the pepper) is refused, and there is no class prototype to patch', () => {
    const ctx = captured!;
    const views = { 'auth.challenges': ctx.auth.challenges, 'auth.signedActions': ctx.auth.signedActions, 'auth.sessions': ctx.auth.sessions, crypto: ctx.crypto, processor: ctx.processor, chains: ctx.chains, 'chains.grin()': ctx.chains.grin() };
    for (const [name, view] of Object.entries(views)) {
      expect(Object.isFrozen(view), name).to.equal(true);
      expect(Object.getPrototypeOf(view), name).to.equal(Object.prototype);
    }
    expect(() => Object.assign(ctx.auth.signedActions, { verify: () => Promise.resolve({}) })).to.throw(TypeError);
    expect(() => Object.assign(ctx.crypto, { pepper: (value: string) => value })).to.throw(TypeError);
    expect(ctx.crypto.pepper('x')).to.match(/^[0-9a-f]{64}$/);
  });

  it('no object the plugin context reaches holds a secret, with every chain, BTCPay and the price feed on', () => {
    expect(captured).to.not.equal(undefined);
    // Every reader is built, so the walk reaches what each one holds.
    for (const asset of ['btc', 'ltc'] as const) expect(captured!.chains.utxo(asset), asset).to.not.equal(null);
    expect(captured!.chains.cryptonote('xmr')).to.not.equal(null);
    expect(captured!.chains.grin()).to.not.equal(null);
    expect(captured!.processor).to.not.equal(null);
    const readers = { utxo: captured!.chains.utxo('btc'), cryptonote: captured!.chains.cryptonote('xmr'), grin: captured!.chains.grin() };
    expect(secretsHeldBy({ ctx: captured, readers }, 'plugin')).to.deep.equal([]);
  });
});
