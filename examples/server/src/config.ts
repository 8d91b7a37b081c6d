import { resolve } from 'node:path';
import { envNameOf, type LogLevel, type WalletBackendConfig, type WalletPlugin } from '@wallet/backend-core';
import { grinRelayPlugin, type GrinRelayOptions } from '@wallet/grin-relay';
import { erasurePlugin, type ErasureOptions } from '@wallet/erasure';
import { premiumPlugin, type PremiumOptions } from '@wallet/premium';
import { tipsPlugin, type TipsOptions } from '@wallet/tips';
import { optionFromEnv, readSecretFiles, settingsFromEnv, type Env } from './env.js';
import { loadDevSecrets, SECRET_KEYS } from './secrets.js';

export interface ServerConfig {
  /** Everything createWalletBackend needs except the logger. */
  backend: WalletBackendConfig;
  host: string;
  port: number;
  dataDir: string;
  logLevel: LogLevel;
  /** Time limits of the HTTP listener (Node's server timeouts), in milliseconds. */
  http: HttpTimeouts;
  /** Cross-origin access to the API for browser wallets on other origins; off (undefined) by default. */
  cors: CorsSettings | undefined;
  /** Serve the operator console (@wallet/admin-console) at `/admin-console/`: ADMIN_CONSOLE_ENABLED, off by default. */
  adminConsole: boolean;
  /** Problems found while reading the environment itself (core validates the rest). */
  problems: string[];
  /** Things the operator should hear about (generated development secrets). */
  notices: string[];
}

const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error', 'silent']);

export interface HttpTimeouts {
  /** Whole request, headers and body, from the first byte (Node's `requestTimeout`; its default is 300 s). */
  requestTimeoutMs: number;
  /** Request headers complete (Node's `headersTimeout`); at most `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /**
   * On SIGTERM, how long the listener keeps accepting and answering (every answer saying
   * `Connection: close`) before it stops: time for a load balancer to take the process out of
   * rotation, so no request is sent on a connection the server is closing. 0: stop at once.
   */
  shutdownDelayMs: number;
}

export interface CorsSettings {
  /** Exact origins (`https://wallet.example.com`) allowed to call the API from a browser. */
  origins: string[];
}

/**
 * CORS_ORIGINS: comma-separated exact origins, each `scheme://host[:port]` as a browser sends it
 * in `Origin` (no path, no trailing slash, no default port, no wildcard). Unset or empty: off.
 */
export function corsFromEnv(env: Env, problems: string[]): CorsSettings | undefined {
  const text = (env.CORS_ORIGINS ?? '').trim();
  if (text === '') return undefined;
  const origins: string[] = [];
  for (const item of text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')) {
    let origin: string | undefined;
    try {
      const url = new URL(item);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === item) {
      if (!origins.includes(origin)) origins.push(origin);
    } else {
      const hint = origin === undefined ? '' : ` (did you mean ${origin}?)`;
      problems.push(`CORS_ORIGINS: "${item}" is not an exact origin such as https://wallet.example.com: scheme, host and a non-default port only, no path, trailing slash or wildcard${hint}`);
    }
  }
  return origins.length > 0 ? { origins } : undefined;
}

/**
 * ADMIN_CONSOLE_ENABLED: `true` serves the operator console page at `/admin-console/` on this
 * server's own origin (the admin API still needs an admin's signed login). Unset, empty or
 * `false`: off. Anything else is a problem (never silently off or on).
 */
export function adminConsoleFromEnv(env: Env, problems: string[]): boolean {
  const value = optionFromEnv(env, 'ADMIN_CONSOLE_ENABLED', 'bool');
  if (value === undefined || typeof value === 'boolean') return value === true;
  problems.push(`ADMIN_CONSOLE_ENABLED: "${String(value)}" must be true or false`);
  return false;
}

/** The listener's time limits: environment variable, default and bounds, in seconds. */
const HTTP_TIMEOUTS = [
  { key: 'requestTimeoutMs', env: 'HTTP_REQUEST_TIMEOUT_SEC', defaultSec: 30, min: 1, max: 3_600 },
  { key: 'headersTimeoutMs', env: 'HTTP_HEADERS_TIMEOUT_SEC', defaultSec: 10, min: 1, max: 3_600 },
  { key: 'keepAliveTimeoutMs', env: 'HTTP_KEEP_ALIVE_TIMEOUT_SEC', defaultSec: 5, min: 1, max: 3_600 },
  { key: 'shutdownDelayMs', env: 'SHUTDOWN_DELAY_SEC', defaultSec: 0, min: 0, max: 300 },
] as const;

/** The HTTP listener's timeouts from the environment; a malformed or out-of-range value is a problem, and its default is used meanwhile. */
export function httpTimeoutsFromEnv(env: Env, problems: string[]): HttpTimeouts {
  const timeouts = {} as Record<keyof HttpTimeouts, number>;
  for (const { key, env: name, defaultSec, min, max } of HTTP_TIMEOUTS) {
    const text = (env[name] ?? '').trim();
    if (text === '') {
      timeouts[key] = defaultSec * 1_000;
    } else if (/^\d{1,5}$/.test(text) && Number(text) >= min && Number(text) <= max) {
      timeouts[key] = Number(text) * 1_000;
    } else {
      problems.push(`${name}: "${text}" must be a whole number of seconds from ${min} to ${max}`);
      timeouts[key] = defaultSec * 1_000;
    }
  }
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    problems.push('HTTP_HEADERS_TIMEOUT_SEC: must not exceed HTTP_REQUEST_TIMEOUT_SEC (the headers are part of the request)');
    timeouts.headersTimeoutMs = timeouts.requestTimeoutMs;
  }
  return timeouts;
}

/**
 * The feature plugins and their options from the environment. A malformed value passes through
 * as text, so the plugin's own configuration check names it and the boot is refused.
 */
export function pluginsFromEnv(env: Env): WalletPlugin[] {
  return [
    grinRelayPlugin({
      enabled: optionFromEnv(env, 'FEATURE_GRIN_RELAY', 'bool'),
      expiryHours: optionFromEnv(env, 'GRIN_RELAY_EXPIRY_HOURS', 'int'),
      sweepIntervalSec: optionFromEnv(env, 'GRIN_RELAY_SWEEP_INTERVAL_SEC', 'int'),
    } as GrinRelayOptions),
    tipsPlugin({
      enabled: optionFromEnv(env, 'FEATURE_TIPS', 'bool'),
      targeted: optionFromEnv(env, 'FEATURE_TARGETED_TIPS', 'bool'),
      shareBase: optionFromEnv(env, 'TIP_SHARE_BASE', 'string'),
      maxUnconfirmedPerSender: optionFromEnv(env, 'TIP_MAX_UNCONFIRMED_PER_SENDER', 'int'),
    } as TipsOptions),
    premiumPlugin({
      enabled: optionFromEnv(env, 'PREMIUM_ENABLED', 'bool'),
      plans: optionFromEnv(env, 'PREMIUM_PLANS', 'string'),
      currency: optionFromEnv(env, 'PREMIUM_CURRENCY', 'string'),
      relayUrl: optionFromEnv(env, 'RELAY_URL', 'string'),
      writePolicy: optionFromEnv(env, 'RELAY_WRITE_POLICY', 'string'),
      confirmations: optionFromEnv(env, 'PREMIUM_CONFIRMATIONS', 'int'),
      invoiceExpiryMinutes: optionFromEnv(env, 'PREMIUM_INVOICE_EXPIRY_MINUTES', 'int'),
      maxPendingInvoices: optionFromEnv(env, 'PREMIUM_MAX_PENDING_INVOICES', 'int'),
    } as PremiumOptions),
    erasurePlugin({
      enabled: optionFromEnv(env, 'FEATURE_ERASURE', 'bool'),
      gracePeriodHours: optionFromEnv(env, 'ERASURE_GRACE_PERIOD_HOURS', 'int'),
      loginEvents: optionFromEnv(env, 'ERASURE_LOGIN_EVENTS', 'string'),
    } as ErasureOptions),
  ];
}

/**
 * Environment → configuration for the reference server and the CLI. With no environment at
 * all it gives a working development setup: SQLite under ./data, 127.0.0.1:8080, secrets
 * generated once into the data directory. With NODE_ENV=production nothing is invented:
 * PUBLIC_API_URL and every secret must be given.
 */
export function loadServerConfig(givenEnv: Env, options: { createDevSecrets?: boolean } = {}): ServerConfig {
  // The one place NAME_FILE is read: everything below sees the secret as NAME.
  const files = readSecretFiles(givenEnv);
  const env = files.env;
  const problems: string[] = [...files.problems];
  const notices: string[] = [];
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR ?? 'data');
  const host = env.HOST ?? '127.0.0.1';
  const portText = env.PORT ?? '8080';
  const port = /^\d{1,5}$/.test(portText) && Number(portText) <= 65_535 ? Number(portText) : NaN;
  if (Number.isNaN(port)) problems.push(`PORT: "${portText}" is not a port number (0-65535)`);
  let logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.has(logLevel)) {
    problems.push(`LOG_LEVEL: must be one of ${[...LOG_LEVELS].join(', ')}`);
    logLevel = 'info';
  }
  const http = httpTimeoutsFromEnv(env, problems);
  const cors = corsFromEnv(env, problems);
  const adminConsole = adminConsoleFromEnv(env, problems);

  const settings = settingsFromEnv(env);
  settings.nodeEnv ??= (env.NODE_ENV as 'development' | 'production' | 'test' | undefined) ?? 'development';
  settings.databaseUrl ??= `sqlite:${resolve(dataDir, 'wallet.db')}`;

  if (production) {
    if (settings.publicApiUrl === undefined) problems.push('PUBLIC_API_URL: required in production (the canonical URL wallets sign against)');
    for (const key of SECRET_KEYS) {
      if (settings[key] === undefined && !files.failed.has(envNameOf(key))) problems.push(`${key.replace(/([A-Z])/g, '_$1').toUpperCase()}: required in production; development secrets are never used there`);
    }
  } else {
    settings.publicApiUrl ??= `http://${host.includes(':') ? `[${host}]` : host}:${Number.isNaN(port) ? 8080 : port}`;
    // A secret whose file was refused stays unset: the boot is refused, never run on a development secret.
    const missing = SECRET_KEYS.filter((key) => settings[key] === undefined && !files.failed.has(envNameOf(key)));
    if (missing.length > 0) {
      const dev = loadDevSecrets(dataDir, { create: options.createDevSecrets ?? true });
      if (dev.secrets) {
        for (const key of missing) settings[key] = dev.secrets[key];
        if (dev.created) notices.push(`generated development secrets into ${dev.path}: fine for development, never for production (set NODE_ENV=production and real secrets there)`);
      } else {
        notices.push(`development secrets will be generated into ${dev.path} on first start`);
        for (const key of missing) settings[key] = `placeholder-${key}-${'x'.repeat(32)}`;
      }
    }
  }

  return {
    backend: { ...settings, plugins: pluginsFromEnv(env) } as WalletBackendConfig,
    host,
    port,
    dataDir,
    logLevel,
    http,
    cors,
    adminConsole,
    problems,
    notices,
  };
}
