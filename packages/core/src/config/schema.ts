import * as v from 'valibot';
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
  /** Keys the MACs over admin keys and the setup latch; separate from the database URL (spec, General rule 4). */
  adminKeyIntegritySecret: v.optional(secret()),
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
  /** Bound on any single upstream call (chain nodes, price feed, payment processor). */
  upstreamTimeoutMs: v.optional(intInRange(100, 120_000), 5_000),
  /** Run the background scheduler in this process (turn off on API-only replicas). */
  schedulerEnabled: v.optional(v.boolean('must be true or false'), true),
}, 'is not a known setting');

export type SettingsInput = v.InferInput<typeof settingsSchema>;
export type Settings = v.InferOutput<typeof settingsSchema>;
