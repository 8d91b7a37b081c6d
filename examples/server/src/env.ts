import { envNameOf, readSecretFiles as readNamedSecretFiles, type SecretFiles, type SettingsInput } from '@wallet/backend-core';

export type Kind = 'string' | 'int' | 'bool' | 'list';

/**
 * How each core setting is read from its environment variable (named by `envNameOf`:
 * `publicApiUrl` ⇄ `PUBLIC_API_URL`). `satisfies` keeps this table complete: a new setting
 * without an entry here does not compile.
 */
const SETTING_KINDS = {
  publicApiUrl: 'string',
  databaseUrl: 'string',
  databasePoolMax: 'int',
  nodeEnv: 'string',
  jwtSecret: 'string',
  pepperSecret: 'string',
  ipHashSalt: 'string',
  adminKeyIntegritySecret: 'string',
  adminSessionSecret: 'string',
  adminSessionTtlSec: 'int',
  accessTokenTtlSec: 'int',
  refreshTokenTtlSec: 'int',
  challengeTtlSec: 'int',
  challengeSweepIntervalSec: 'int',
  trustedProxies: 'list',
  bodyLimitBytes: 'int',
  rateLimitWindowSec: 'int',
  rateLimitMax: 'int',
  rateLimitStorage: 'string',
  upstreamTimeoutMs: 'int',
  chainNetwork: 'string',
  restoreIpThreshold: 'int',
  restoreFailThreshold: 'int',
  restoreWindowSec: 'int',
  loginEventRetentionDays: 'int',
  retentionSweepIntervalSec: 'int',
  nip05CacheTtlSec: 'int',
  nip05Relays: 'list',
  registrationRequirePow: 'bool',
  powDifficulty: 'int',
  powChallengeTtlSec: 'int',
  registrationRequireInvite: 'bool',
  registrationRequirePayment: 'bool',
  registrationPrice: 'string',
  registrationCurrency: 'string',
  registrationConfirmations: 'int',
  registrationInvoiceExpiryMinutes: 'int',
  btcpayUrl: 'string',
  btcpayStoreId: 'string',
  btcpayApiKey: 'string',
  priceFeed: 'string',
  priceFeedUrl: 'string',
  priceFeedApiKey: 'string',
  priceRefreshSec: 'int',
  priceCurrencies: 'list',
  btcEsploraUrl: 'string',
  ltcEsploraUrl: 'string',
  btcElectrumUrl: 'string',
  ltcElectrumUrl: 'string',
  xmrLwsUrl: 'string',
  xmrDaemonUrl: 'string',
  wowLwsUrl: 'string',
  wowDaemonUrl: 'string',
  grinNodeUrl: 'string',
  grinNodeApiSecret: 'string',
  grinScanPageSize: 'int',
  schedulerEnabled: 'bool',
  metricsListen: 'string',
} as const satisfies Record<keyof Required<SettingsInput>, Kind>;

export type Env = Record<string, string | undefined>;

/** A value as the schema should see it; text that is not of the kind passes through unchanged so the schema names the problem. */
function convert(kind: Kind, raw: string): unknown {
  const value = raw.trim();
  switch (kind) {
    case 'int':
      return /^-?\d+$/.test(value) ? Number(value) : value;
    case 'bool':
      if (/^(true|1|yes|on)$/i.test(value)) return true;
      if (/^(false|0|no|off)$/i.test(value)) return false;
      return value;
    case 'list':
      return value === '' ? [] : value.split(',').map((item) => item.trim()).filter((item) => item !== '');
    default:
      return raw;
  }
}

/** Core settings present in the environment; absent variables are left out so defaults apply. */
export function settingsFromEnv(env: Env): Partial<SettingsInput> {
  const settings: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(SETTING_KINDS)) {
    const raw = env[envNameOf(key)];
    if (raw !== undefined && raw !== '') settings[key] = convert(kind, raw);
  }
  return settings as Partial<SettingsInput>;
}

/** A plugin option from its environment variable: undefined when unset or empty, else converted like a core setting. */
export function optionFromEnv(env: Env, name: string, kind: Kind): unknown {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : convert(kind, raw);
}

/** The environment variable of every core setting, for docs and `config check`. */
export const SETTING_ENV_NAMES: readonly string[] = Object.keys(SETTING_KINDS).map(envNameOf);

/**
 * The settings that may be given as `NAME_FILE` (a path whose content is the value): every
 * secret, and every URL that can carry credentials (DATABASE_URL's password, a daemon's login).
 */
const FILE_SETTINGS = [
  'jwtSecret',
  'pepperSecret',
  'ipHashSalt',
  'adminKeyIntegritySecret',
  'adminSessionSecret',
  'btcpayApiKey',
  'priceFeedApiKey',
  'grinNodeApiSecret',
  'databaseUrl',
  'btcpayUrl',
  'priceFeedUrl',
  'btcEsploraUrl',
  'ltcEsploraUrl',
  'btcElectrumUrl',
  'ltcElectrumUrl',
  'xmrLwsUrl',
  'xmrDaemonUrl',
  'wowLwsUrl',
  'wowDaemonUrl',
  'grinNodeUrl',
] as const satisfies readonly (keyof SettingsInput)[];

/** The environment variables that also accept `NAME_FILE`. */
export const FILE_ENV_NAMES: readonly string[] = FILE_SETTINGS.map(envNameOf);

export type { SecretFiles };

/**
 * Reads every `NAME_FILE` of FILE_ENV_NAMES (Docker and Kubernetes secrets, systemd
 * credentials) by core's rule (`readSecretFiles` of `@wallet/backend-core`, which the relay
 * admission executable follows too).
 */
export function readSecretFiles(env: Env): SecretFiles {
  return readNamedSecretFiles(env, FILE_ENV_NAMES);
}
