import * as v from 'valibot';
import { parseListenAddress } from '../metrics/index.js';
import { isAddressOrCidr } from './rules.js';

const MIN_SECRET_LENGTH = 32;

const secret = () =>
  v.pipe(v.string('is required (a secret string)'), v.minLength(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`));

const intInRange = (min: number, max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const httpUrl = v.pipe(
  v.string('is required (an http or https URL)'),
  v.url('must be an absolute URL'),
  v.check((value) => /^https?:\/\//i.test(value), 'must use http or https'),
  v.check((value) => !/[?#]/.test(value), 'must not carry a query or fragment'),
);

/** A URL's user and password (`user:pass@`), when it parses. */
const hasUserInfo = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
};

/** BTCPay's base URL: the API key is its credential, and fetch refuses a URL with `user:pass@` anyway. */
const btcpayUrl = v.pipe(httpUrl, v.check((value) => !hasUserInfo(value), 'must not carry a user name or password (user:pass@); BTCPay authenticates with BTCPAY_API_KEY'));

/** An Electrum server: `tcp://host:port`, or `ssl://host:port` (also `tls://`) for TLS. */
const electrumUrl = v.pipe(
  v.string('is required (tcp://host:port or ssl://host:port)'),
  v.regex(/^(tcp|ssl|tls):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?\/?$/, 'must be tcp://host:port or ssl://host:port'),
  v.check((value) => {
    const port = /:(\d{1,5})\/?$/.exec(value)?.[1];
    return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
  }, 'must name a port between 1 and 65535'),
);

const DAY_SEC = 86_400;

/**
 * The backend's settings. Every key maps one-to-one onto an environment variable of the
 * reference server (`publicApiUrl` ⇄ `PUBLIC_API_URL`); features bring their own settings in
 * their plugin's options. Defaults are recorded in docs/decisions.md.
 */
export const settingsSchema = v.strictObject({
  /** Canonical public URL of the API root, without `/api/v1`; NIP-98 proofs are checked against it, never against the Host header. */
  publicApiUrl: httpUrl,
  /** `postgres://…` (production) or `sqlite:<path>` (embedded default). */
  databaseUrl: v.pipe(
    v.string('is required (postgres://… or sqlite:<path>)'),
    v.check((value) => /^(postgres|postgresql):\/\//.test(value) || /^sqlite:/.test(value), 'must start with postgres:// or sqlite:'),
  ),
  /** Upper bound of the Postgres pool (SQLite always runs one writer connection). */
  databasePoolMax: v.optional(intInRange(1, 100), 10),
  nodeEnv: v.optional(v.picklist(['development', 'production', 'test'], 'must be development, production or test'), 'development'),
  /** Signs user access and refresh JWTs (HS256). */
  jwtSecret: secret(),
  /** Keys the HMAC that peppers identity hashes and refresh-token hashes. */
  pepperSecret: secret(),
  /** Keys the HMAC that turns client IPs into the only form ever stored. */
  ipHashSalt: secret(),
  /** Keys the MACs over admin keys, the setup latch, operator settings and the audit chain; separate from the database URL (spec, General rule 4). */
  adminKeyIntegritySecret: secret(),
  /** Keys the HMAC of admin session tokens: admin sessions have their own secret (spec › rule 8). */
  adminSessionSecret: secret(),
  adminSessionTtlSec: v.optional(intInRange(300, DAY_SEC), 3_600),
  accessTokenTtlSec: v.optional(intInRange(60, DAY_SEC), 900),
  refreshTokenTtlSec: v.optional(intInRange(3_600, 365 * DAY_SEC), 30 * DAY_SEC),
  challengeTtlSec: v.optional(intInRange(30, 3_600), 300),
  challengeSweepIntervalSec: v.optional(intInRange(1, DAY_SEC), 60),
  /** Addresses or CIDR blocks of reverse proxies whose X-Forwarded-For is believed. Empty: the socket address is the client. */
  trustedProxies: v.optional(
    v.array(v.pipe(v.string('must be a list of strings'), v.check(isAddressOrCidr, (issue) => `"${String(issue.input)}" is not an IP address or CIDR block`))),
    [],
  ),
  bodyLimitBytes: v.optional(intInRange(1_024, 16 * 1_048_576), 262_144),
  /** The unauthenticated-surface limiter: at most `rateLimitMax` requests per client IP per window. */
  rateLimitWindowSec: v.optional(intInRange(1, DAY_SEC), 60),
  rateLimitMax: v.optional(intInRange(1, 1_000_000), 120),
  /**
   * Where the limiter counts: `memory` (one process) or `database` (the backend's own database,
   * shared by every process on it: several processes behind one load balancer).
   */
  rateLimitStorage: v.optional(v.picklist(['memory', 'database'], 'must be memory or database'), 'memory'),
  /** Bound on any single upstream call (chain nodes, price feed, payment processor). */
  upstreamTimeoutMs: v.optional(intInRange(100, 120_000), 5_000),
  /**
   * Which network every chain's keys and addresses belong to: slatepack HRP (`grin`/`tgrin`),
   * Monero/Wownero address tags, and later the chain adapters. `regtest` uses test-network
   * keys and, for Monero/Wownero, mainnet address tags (as monerod --regtest does).
   */
  chainNetwork: v.optional(v.picklist(['mainnet', 'testnet', 'stagenet', 'regtest'], 'must be mainnet, testnet, stagenet or regtest'), 'mainnet'),
  /** check-restore governor: attempts per client IP per window before 429. */
  restoreIpThreshold: v.optional(intInRange(1, 100_000), 30),
  /** check-restore governor: failed attempts per seed fingerprint per window before 429. */
  restoreFailThreshold: v.optional(intInRange(1, 100_000), 5),
  restoreWindowSec: v.optional(intInRange(60, 7 * DAY_SEC), 3_600),
  /** Login events older than this are deleted by the retention sweep. */
  loginEventRetentionDays: v.optional(intInRange(1, 3_650), 90),
  retentionSweepIntervalSec: v.optional(intInRange(60, DAY_SEC), 3_600),
  /**
   * How long this process keeps a NIP-05 answer, in seconds (0: no cache). Its own writes
   * (username set, Nostr key linked, account erased) clear it at once; another process's
   * writes are seen within this bound.
   */
  nip05CacheTtlSec: v.optional(intInRange(0, 3_600), 30),
  /** Relay URLs published for every name in the NIP-05 document. */
  nip05Relays: v.optional(
    v.array(v.pipe(v.string('must be a list of relay URLs'), v.check((value) => /^wss?:\/\/[^\s]+$/.test(value), (issue) => `"${String(issue.input)}" is not a ws:// or wss:// URL`))),
    [],
  ),
  /** Registration gates for NEW identities (spec › Authentication 7); all off = self-hosting, nothing asked. */
  registrationRequirePow: v.optional(v.boolean('must be true or false'), false),
  /** Proof-of-work difficulty: the solver tries about half this many hashes on average. */
  powDifficulty: v.optional(intInRange(1_000, 10_000_000), 50_000),
  powChallengeTtlSec: v.optional(intInRange(30, 3_600), 300),
  registrationRequireInvite: v.optional(v.boolean('must be true or false'), false),
  registrationRequirePayment: v.optional(v.boolean('must be true or false'), false),
  /** Price of registration as a positive decimal string in `registrationCurrency`. */
  registrationPrice: v.optional(v.pipe(v.string('must be a decimal string'), v.regex(/^(?:0|[1-9]\d{0,11})(?:\.\d{1,12})?$/, 'must be a positive decimal such as 0.0001'), v.check((value) => Number(value) > 0, 'must be greater than zero'))),
  registrationCurrency: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3,5}$/, 'must be a currency code such as BTC, SATS or USD')), 'BTC'),
  /** Confirmations the processor waits for before an invoice is Settled (BTCPay speed policies: 1, 2 or 6; 0 is refused). */
  registrationConfirmations: v.optional(v.pipe(v.number('must be a number'), v.check((value) => value === 1 || value === 2 || value === 6, 'must be 1, 2 or 6 (0-confirmation is refused)')), 1),
  registrationInvoiceExpiryMinutes: v.optional(intInRange(5, 1_440), 30),
  /** BTCPay Server (Greenfield API): base URL, store id and API key (`Authorization: token …`). */
  btcpayUrl: v.optional(btcpayUrl),
  btcpayStoreId: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{8,64}$/, 'must be a BTCPay store id'))),
  btcpayApiKey: v.optional(v.pipe(v.string('must be a string'), v.minLength(16, 'must be at least 16 characters'))),
  /** Esplora REST base (e.g. https://mempool.space/api or your electrs' HTTP port); unset = BTC chain access off. */
  btcEsploraUrl: v.optional(httpUrl),
  /** Esplora-compatible Litecoin REST base; unset = LTC chain access off. */
  ltcEsploraUrl: v.optional(httpUrl),
  /** Electrum server for BTC (electrs, Fulcrum, ElectrumX), e.g. ssl://electrum.example:50002; instead of btcEsploraUrl. */
  btcElectrumUrl: v.optional(electrumUrl),
  /** Electrum server for LTC (electrum-ltc servers); instead of ltcEsploraUrl. */
  ltcElectrumUrl: v.optional(electrumUrl),
  /** Fiat price feed: `coingecko`, or `off` (GET /prices answers 404). */
  priceFeed: v.optional(v.picklist(['off', 'coingecko'], 'must be off or coingecko'), 'off'),
  priceFeedUrl: v.optional(httpUrl, 'https://api.coingecko.com/api/v3'),
  /** CoinGecko demo API key (header x-cg-demo-api-key); optional. */
  priceFeedApiKey: v.optional(v.pipe(v.string(), v.minLength(8, 'must be at least 8 characters'))),
  priceRefreshSec: v.optional(intInRange(60, DAY_SEC), 300),
  priceCurrencies: v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(/^[a-z]{3,5}$/, 'must be lower-case currency codes such as usd'))), v.minLength(1, 'must name at least one currency')), ['usd', 'eur']),
  /** monero-lws REST base for XMR account calls (e.g. http://127.0.0.1:8443/basic); unset = XMR chain access off. */
  xmrLwsUrl: v.optional(httpUrl),
  /** monerod RPC (e.g. http://127.0.0.1:18081) for height and confirmations; required with xmrLwsUrl. */
  xmrDaemonUrl: v.optional(httpUrl),
  /** Light-wallet server for Wownero (monero-lws API); unset = WOW chain access off. */
  wowLwsUrl: v.optional(httpUrl),
  /** wownerod RPC (e.g. http://127.0.0.1:34568); required with wowLwsUrl. */
  wowDaemonUrl: v.optional(httpUrl),
  /** Grin node foreign API (v2 JSON-RPC), e.g. http://127.0.0.1:3413; unset = Grin chain access off. */
  grinNodeUrl: v.optional(httpUrl),
  /** Contents of the node's `.foreign_api_secret` (basic auth user `grin`); unset when the node has auth off. */
  grinNodeApiSecret: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  /** Outputs a Grin scan request reads from the node at most (one page; the answer says where to resume). */
  grinScanPageSize: v.optional(intInRange(1, 10_000), 1_000),
  /** Run the background scheduler in this process (turn off on API-only replicas). */
  schedulerEnabled: v.optional(v.boolean('must be true or false'), true),
  /**
   * Prometheus metrics on a listener of their own (`GET /metrics`), never on the API's port:
   * a port alone binds to 127.0.0.1, `host:port` wherever it says. Unset: no metrics at all.
   */
  metricsListen: v.optional(
    v.pipe(
      v.string('must be a port or host:port'),
      v.check((value) => parseListenAddress(value) !== null, 'must be a port or host:port such as 9464, 127.0.0.1:9464 or [::1]:9464'),
    ),
  ),
}, 'is not a known setting');

export type SettingsInput = v.InferInput<typeof settingsSchema>;
export type Settings = v.InferOutput<typeof settingsSchema>;
