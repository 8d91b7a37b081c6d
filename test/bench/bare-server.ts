/**
 * The yardstick for `npm run bench`: plain Koa + knex doing, for every benched endpoint, the same
 * database queries, writes and crypto as the reference server's services (packages/core/src/…,
 * packages/grin-relay/src/…) with the same libraries (jose, knex, @noble/*, core's crypto
 * functions), but none of the backend's kit: no routing table, validation kit, logger, rate
 * limiter or error boundary. Success bodies have the wallet's shapes so a ratio is meaningful.
 * Every response also carries what the spec and the project's rules owe on every route, written
 * the plain Koa way: the request id (`X-Request-Id`, the client's when well formed, else a UUID),
 * `Cache-Control: no-store` on success and one JSON log line on stdout (unless
 * `BARE_PER_REQUEST=off`).
 *
 * Reads DATABASE_URL, JWT_SECRET, PUBLIC_API_URL (the JWT issuer and the signed `service`),
 * PEPPER_SECRET, IP_HASH_SALT, PORT, and optionally GRIN_NODE_URL, GRIN_NODE_API_SECRET,
 * GRIN_SCAN_PAGE_SIZE. Once bound it prints ONE line on stdout:
 * `{"msg":"bare ready","pid":<pid>,"url":"http://127.0.0.1:<port>"}`.
 */
import { randomUUID } from 'node:crypto';
import { keepWorkerHeapBounds } from '../../examples/server/src/heap-flags.js';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { jwtVerify, SignJWT } from 'jose';
import Koa from 'koa';
import knexFactory, { type Knex } from 'knex';
import {
  createPeppers,
  hash160,
  looksLikeSlatepackAddress,
  MESSAGE_NETWORKS,
  parseRewindHash,
  randomHex,
  recoverMessageSigner,
} from '../../packages/core/src/crypto/index.js';
import { hmacKey } from '../../packages/core/src/auth/tokens.js';
import { requestIdFrom } from '../../packages/core/src/http/request-id.js';
import { SQLITE_PRAGMAS } from '../../packages/core/src/storage/connect.js';
import { normaliseKey, type ReceivingKey, type SubmittedKey } from '../../packages/core/src/directory/key-forms.js';
import { Nip05Cache } from '../../packages/core/src/directory/nip05-cache.js';
import { systemClock } from '../../packages/core/src/clock/index.js';
import { GrinChainService, GrinNodeClient, GrinScanPool } from '../../packages/core/src/chains/grin/index.js';
import { extensionLoginMessage, SIGNED_TIMESTAMP_SKEW_SEC } from '../../packages/core/src/identity/messages.js';
import { toRelayEntry, type StoredRelayEntry } from '../../packages/grin-relay/src/entry.js';
import { isWellFormedSlatepack } from '../../packages/grin-relay/src/slatepack.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`bare server: ${name} is required`);
  return value;
};

const databaseUrl = env('DATABASE_URL');
const sqlite = databaseUrl.startsWith('sqlite:');
// The same pool shapes as core's storage/connect.ts, and its pragmas.
const knex = knexFactory(
  sqlite
    ? {
        client: 'better-sqlite3',
        connection: { filename: databaseUrl.slice('sqlite:'.length) },
        useNullAsDefault: true,
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
            for (const pragma of SQLITE_PRAGMAS) conn.pragma(pragma);
            done(null, conn);
          },
        },
      }
    : { client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } },
);
const time = (date: Date): Date | string => (sqlite ? date.toISOString() : date);
const readTime = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));

const SERVICE = env('PUBLIC_API_URL');
// Imported once, as core's TokenService does (auth/tokens.ts).
const JWT_KEY = await hmacKey(env('JWT_SECRET'));
const peppers = createPeppers(env('PEPPER_SECRET'), env('IP_HASH_SALT'));
const ACCESS_TTL_SEC = 900;
const REFRESH_TTL_SEC = 30 * 86_400;
const RELAY_EXPIRY_MS = 168 * 3_600_000;
const AUDIENCE = 'wallet-backend:user';
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USERNAME = /^[a-z0-9_]{3,30}$/;
const ASSETS = ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const;
const PLATFORMS = new Set(['extension', 'web', 'nostr']);

type Platform = 'extension' | 'web' | 'nostr';
interface Claims {
  sub: string;
  sid: string;
  platform: Platform;
}

/** A refusal: answered with its status and a minimal error body. */
class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

// --- tokens and sessions (auth/tokens.ts, auth/session-service.ts, auth/session-repo.ts) ---

async function signToken(sub: string, sid: string, typ: 'access' | 'refresh', platform: Platform): Promise<string> {
  const nowSec = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid, typ, platform })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(SERVICE)
    .setAudience(AUDIENCE)
    .setIssuedAt(nowSec)
    .setExpirationTime(nowSec + (typ === 'access' ? ACCESS_TTL_SEC : REFRESH_TTL_SEC))
    .setJti(randomHex(16))
    .sign(JWT_KEY);
}

async function verifyToken(token: string, expected: 'access' | 'refresh'): Promise<Claims | null> {
  try {
    const { payload } = await jwtVerify(token, JWT_KEY, { algorithms: ['HS256'], issuer: SERVICE, audience: AUDIENCE, currentDate: new Date() });
    const { sub, sid, typ, platform } = payload as Record<string, unknown>;
    if (typ !== expected || typeof sub !== 'string' || typeof sid !== 'string') return null;
    if (typeof platform !== 'string' || !PLATFORMS.has(platform)) return null;
    return { sub, sid, platform: platform as Platform };
  } catch {
    return null;
  }
}

async function prepareSession(userId: string, platform: Platform) {
  const now = new Date();
  const sessionId = randomUUID();
  const [accessToken, refreshToken] = await Promise.all([signToken(userId, sessionId, 'access', platform), signToken(userId, sessionId, 'refresh', platform)]);
  return {
    row: {
      id: sessionId,
      user_id: userId,
      platform,
      refresh_token_hash: peppers.pepper(refreshToken),
      created_at: time(now),
      expires_at: time(new Date(now.getTime() + REFRESH_TTL_SEC * 1000)),
      revoked_at: null,
    },
    response: {
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TTL_SEC,
      refresh_expires_in: REFRESH_TTL_SEC,
      user_id: userId,
      platform,
    },
  };
}

async function startSession(executor: Knex | Knex.Transaction, userId: string, platform: Platform) {
  const { row, response } = await prepareSession(userId, platform);
  await executor('sessions').insert(row);
  return response;
}

/** The bearer guard: a valid access token whose session is live. */
async function authenticate(ctx: Koa.Context): Promise<string> {
  const token = BEARER.exec(ctx.get('authorization'))?.[1];
  if (token === undefined) throw new Refused(401, 'unauthorized');
  const claims = await verifyToken(token, 'access');
  if (claims === null) throw new Refused(401, 'unauthorized');
  const session = (await knex('sessions')
    .where({ id: claims.sid, user_id: claims.sub })
    .whereNull('revoked_at')
    .where('expires_at', '>', time(new Date()))
    .first()) as { user_id: string } | undefined;
  if (session === undefined) throw new Refused(401, 'unauthorized');
  return session.user_id;
}

async function refresh(body: Record<string, unknown>) {
  const token = body.refresh_token;
  if (typeof token !== 'string') throw new Refused(400, 'invalid_request');
  const claims = await verifyToken(token, 'refresh');
  if (claims === null) throw new Refused(401, 'invalid_refresh_token');
  const { row, response } = await prepareSession(claims.sub, claims.platform);
  const at = row.created_at;
  const guard = (qb: Knex.QueryBuilder) =>
    qb
      .where({ refresh_token_hash: peppers.pepper(token), user_id: claims.sub, id: claims.sid, platform: claims.platform })
      .whereNull('revoked_at')
      .where('expires_at', '>', at)
      // The wallet's rotation share-locks the user's row and requires it not suspended (session-repo.ts).
      .whereExists((user) => {
        const live = user.select(1).from('users').where({ id: claims.sub }).whereNull('suspended_at');
        if (!sqlite) live.forShare();
      });
  // transitionOneAndInsert: on SQLite a transaction of the two statements, on Postgres one statement.
  let revoked: number;
  if (sqlite) {
    revoked = await knex.transaction(async (trx) => {
      const rows = (await trx('sessions').where(guard).update({ revoked_at: at }).returning('*')) as unknown[];
      if (rows.length > 1) throw new Error('sessions: a conditional statement touched several rows');
      if (rows.length === 1) await trx('sessions').insert(row);
      return rows.length;
    });
  } else {
    const update = knex('sessions').where(guard).update({ revoked_at: at }).returning('*').toSQL();
    const columns = Object.keys(row);
    const result = (await knex.raw(
      `with transitioned as (${update.sql}), inserted as (insert into sessions (${columns.join(', ')}) select ${columns.map(() => '?').join(', ')} from transitioned) select * from transitioned`,
      [...update.bindings, ...Object.values(row)] as Knex.RawBinding[],
    )) as { rows: unknown[] };
    revoked = result.rows.length;
  }
  if (revoked === 0) throw new Refused(401, 'invalid_refresh_token');
  return response;
}

// --- users and the directory (users/repo.ts, directory/*) ---

async function me(ctx: Koa.Context) {
  const userId = await authenticate(ctx);
  const row = (await knex('users').select('id', 'username', 'nostr_pubkey', 'premium_until', 'created_at').where({ id: userId }).first()) as
    | { id: string; username: string | null; nostr_pubkey: string | null; premium_until: unknown; created_at: unknown }
    | undefined;
  if (row === undefined) throw new Refused(401, 'unauthorized');
  const premiumUntil = row.premium_until === null || row.premium_until === undefined ? null : readTime(row.premium_until);
  return {
    id: row.id,
    username: row.username,
    nostr_pubkey: row.nostr_pubkey,
    premium_until: premiumUntil?.toISOString() ?? null,
    premium_active: premiumUntil !== null && premiumUntil > new Date(),
    created_at: readTime(row.created_at).toISOString(),
  };
}

interface KeyInfo {
  asset: string;
  key_type: string;
  public_key: string;
  public_spend_key: string | null;
  proven: boolean;
}

async function listKeys(userId: string): Promise<KeyInfo[]> {
  const rows = (await knex('user_keys').where({ user_id: userId }).orderBy([{ column: 'asset' }, { column: 'key_type' }])) as Array<KeyInfo & { proven_at: unknown }>;
  return rows.map((row) => ({ asset: row.asset, key_type: row.key_type, public_key: row.public_key, public_spend_key: row.public_spend_key, proven: row.proven_at !== null }));
}

function receivingKey(rows: readonly KeyInfo[], asset: string): KeyInfo | null {
  if (asset !== 'grin') return rows.find((row) => row.asset === asset && row.key_type === 'primary') ?? null;
  const address = rows.find((row) => row.asset === 'grin' && row.key_type === 'slatepack_address');
  if (address !== undefined) return address;
  const primary = rows.find((row) => row.asset === 'grin' && row.key_type === 'primary');
  return primary !== undefined && looksLikeSlatepackAddress(primary.public_key) ? primary : null;
}

const userByName = async (username: string) =>
  (await knex('users').select('id', 'nostr_pubkey').where({ username }).first()) as { id: string; nostr_pubkey: string | null } | undefined;

async function byUsername(requested: string) {
  const lowered = requested.toLowerCase();
  const normalised = USERNAME.test(lowered) ? lowered : null;
  const username = normalised ?? lowered.slice(0, 64);
  const user = normalised === null ? undefined : await userByName(normalised);
  if (user === undefined) return { registered: false, username, user_id: null, keys: [] };
  const rows = await listKeys(user.id);
  return { registered: true, username, user_id: user.id, keys: ASSETS.flatMap((asset) => receivingKey(rows, asset) ?? []) };
}

/**
 * NIP-05 answers kept as the wallet keeps them (core's cache, the same TTL: NIP05_CACHE_TTL_SEC,
 * default 30 s), so this route's ratio measures the framework, not the cache.
 */
const nip05Cache = new Nip05Cache(() => Number(process.env.NIP05_CACHE_TTL_SEC ?? 30) * 1000, systemClock);

async function nip05(name: string | string[] | undefined) {
  const empty = { names: {}, relays: {} };
  if (typeof name !== 'string') return empty;
  const lowered = name.toLowerCase();
  if (!USERNAME.test(lowered)) return empty;
  return nip05Cache.lookup(lowered, async () => {
    const user = await userByName(lowered);
    if (user?.nostr_pubkey == null) return empty;
    return { names: { [lowered]: user.nostr_pubkey }, relays: {} };
  });
}

// --- extension login (identity/extension-service.ts), returning users and plain registration ---

async function extensionLogin(body: Record<string, unknown>, clientIp: string) {
  const { pubkey_hash, seed_fingerprint, keys, timestamp, signature } = body;
  if (typeof pubkey_hash !== 'string' || typeof seed_fingerprint !== 'string' || typeof signature !== 'string' || typeof timestamp !== 'number' || !Array.isArray(keys)) {
    throw new Refused(400, 'invalid_request');
  }
  if (body.rotation_signature !== undefined) throw new Refused(400, 'not_benched');
  const pubkeyHash = pubkey_hash.toLowerCase();
  const recovered = recoverMessageSigner(utf8ToBytes(extensionLoginMessage(SERVICE, pubkeyHash, timestamp)), signature, MESSAGE_NETWORKS['btc-mainnet']);
  const signer = recovered === null ? null : secp256k1.Point.fromBytes(recovered.publicKey).toBytes(true);
  if (signer === null || bytesToHex(hash160(signer)) !== pubkeyHash) throw new Refused(401, 'proof_invalid');
  if (Math.abs(Math.floor(Date.now() / 1000) - timestamp) > SIGNED_TIMESTAMP_SKEW_SEC) throw new Refused(401, 'proof_expired');
  const signerHex = bytesToHex(signer);
  const normalised = (keys as SubmittedKey[]).map((key) => normaliseKey(key, 'mainnet'));
  const btc = normalised.find((key) => key.asset === 'btc');
  if (btc !== undefined && btc.publicKey !== signerHex) throw new Refused(400, 'key_mismatch');
  const stored: ReceivingKey[] = [...normalised.filter((key) => key.asset !== 'btc'), { asset: 'btc', keyType: 'primary', publicKey: signerHex, publicSpendKey: null }];
  const peppered = peppers.pepper(pubkeyHash);
  const seed = peppers.pepper(seed_fingerprint.toLowerCase());
  const byPubkeyHash = async (executor: Knex | Knex.Transaction) =>
    (await executor('users').select('id', 'pubkey_hash', 'seed_fingerprint', 'nostr_pubkey').where({ pubkey_hash: peppered }).first()) as { id: string } | undefined;
  const provenOwner = async (executor: Knex | Knex.Transaction) =>
    (await executor('user_keys').select('user_id').where({ asset: 'btc', public_key: signerHex }).whereIn('key_type', ['primary']).whereNotNull('proven_at').first()) as
      | { user_id: string }
      | undefined;
  // No registration gates are configured in the bench: the precheck has nothing to run.
  if ((await byPubkeyHash(knex)) === undefined) await provenOwner(knex);
  return knex.transaction(async (trx) => {
    const now = time(new Date());
    const expires = new Date((timestamp + 2 * SIGNED_TIMESTAMP_SKEW_SEC) * 1000);
    const spent = (await trx('spent_proofs')
      .insert({ proof_key: `extension:${peppered}:${timestamp}`, expires_at: time(expires) })
      .onConflict(['proof_key'])
      .ignore()
      .returning('*')) as unknown[];
    if (spent.length === 0) throw new Refused(401, 'proof_replayed');
    let userId: string;
    const known = await byPubkeyHash(trx);
    if (known !== undefined) {
      await trx('users').where({ id: known.id }).whereNull('seed_fingerprint').update({ seed_fingerprint: seed, updated_at: now });
      userId = known.id;
    } else {
      const holder = await provenOwner(trx);
      if (holder !== undefined && (await trx('users').where({ id: holder.user_id }).whereNull('pubkey_hash').update({ pubkey_hash: peppered, updated_at: now })) === 1) {
        userId = holder.user_id;
      } else {
        userId = randomUUID();
        await trx('users').insert({ id: userId, pubkey_hash: peppered, seed_fingerprint: seed, nostr_pubkey: null, created_at: now, updated_at: now });
      }
    }
    for (const key of stored) {
      const proven = key.asset === 'btc';
      if (proven) {
        await trx('user_keys')
          .where({ asset: key.asset, key_type: key.keyType, public_key: key.publicKey })
          .whereNot({ user_id: userId })
          .whereNotNull('proven_at')
          .update({ proven_at: null, updated_at: now });
      }
      await trx('user_keys')
        .insert({ id: randomUUID(), user_id: userId, asset: key.asset, key_type: key.keyType, public_key: key.publicKey, public_spend_key: key.publicSpendKey, created_at: now, updated_at: now, proven_at: proven ? now : null })
        .onConflict(['user_id', 'asset', 'key_type'])
        .merge({
          public_key: key.publicKey,
          public_spend_key: key.publicSpendKey,
          updated_at: now,
          proven_at: proven ? now : knex.raw('CASE WHEN user_keys.public_key = ? THEN user_keys.proven_at ELSE NULL END', [key.publicKey]),
        })
        .returning('*');
    }
    await trx('login_events').insert({ id: randomUUID(), user_id: userId, platform: 'extension', ip_hash: peppers.hashIp(clientIp), fingerprint: seed, created_at: now });
    return startSession(trx, userId, 'extension');
  });
}

// --- the Grin relay (packages/grin-relay/src/service.ts) ---

async function relayCreate(ctx: Koa.Context, body: Record<string, unknown>) {
  const senderId = await authenticate(ctx);
  const { recipient_user_id, slate_id, slatepack, amount_nanogrin } = body;
  if (typeof recipient_user_id !== 'string' || !UUID.test(recipient_user_id) || typeof slate_id !== 'string' || !UUID.test(slate_id)) throw new Refused(400, 'invalid_request');
  if (typeof slatepack !== 'string' || !isWellFormedSlatepack(slatepack)) throw new Refused(400, 'invalid_request');
  if ((typeof amount_nanogrin !== 'number' && typeof amount_nanogrin !== 'string') || BigInt(amount_nanogrin) <= 0n) throw new Refused(400, 'invalid_request');
  const recipientId = recipient_user_id.toLowerCase();
  if (recipientId === senderId) throw new Refused(400, 'relay_recipient_self');
  const now = new Date();
  return knex.transaction(async (trx) => {
    if ((await trx('users').select('id').where({ id: recipientId }).first()) === undefined) throw new Refused(400, 'relay_recipient_unknown');
    const rows = (await trx('grin_relay_entries')
      .insert({
        id: randomUUID(),
        slate_id: slate_id.toLowerCase(),
        sender_user_id: senderId,
        recipient_user_id: recipientId,
        slatepack,
        response_slatepack: null,
        amount_nanogrin: BigInt(amount_nanogrin).toString(),
        status: 'pending_recipient',
        tx_hash: null,
        created_at: time(now),
        updated_at: time(now),
        expires_at: time(new Date(now.getTime() + RELAY_EXPIRY_MS)),
      })
      .onConflict(['slate_id'])
      .ignore()
      .returning('*')) as unknown[];
    const row = rows[0];
    if (row === undefined) throw new Refused(409, 'relay_slate_exists');
    return toRelayEntry(row as unknown as StoredRelayEntry);
  });
}

// --- the Grin scan (chains/grin/service.ts, node-client.ts, scan-pool.ts) ---

const grinNodeUrl = process.env.GRIN_NODE_URL;
// As the reference server does at boot: under its --max-semi-space-size the scan worker would otherwise get 16 MB of young space.
keepWorkerHeapBounds();
const scanPool = new GrinScanPool();
// The wallet's own Grin service (node client, scan gate, worker pool): the page read and the scan are the work being compared.
const grinService =
  grinNodeUrl === undefined
    ? null
    : new GrinChainService(new GrinNodeClient({ url: grinNodeUrl, apiSecret: process.env.GRIN_NODE_API_SECRET || undefined, timeoutMs: 10_000 }), 'mainnet', Number(process.env.GRIN_SCAN_PAGE_SIZE ?? 1_000), scanPool);

async function grinScan(ctx: Koa.Context, body: Record<string, unknown>) {
  await authenticate(ctx);
  if (grinService === null) throw new Refused(400, 'chain_disabled');
  const start = body.start_index ?? 1;
  if (typeof body.rewind_hash !== 'string' || parseRewindHash(body.rewind_hash) === null || typeof start !== 'number') throw new Refused(400, 'invalid_request');
  return grinService.scan({ rewind_hash: body.rewind_hash, start_index: start, max: typeof body.max === 'number' ? body.max : undefined });
}

// --- HTTP ---

async function readJson(ctx: Koa.Context): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 200_000) throw new Refused(413, 'body_too_large');
    chunks.push(chunk);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw new Refused(400, 'invalid_json');
  }
}

const USER_KEYS = /^\/api\/v1\/users\/([^/]+)\/keys$/;
const USERNAME_LOOKUP = /^\/api\/v1\/usernames\/([^/]+)$/;

// --- what every response owes, whatever the route: the spec's request id, no-store, one log line ---

/**
 * `BARE_PER_REQUEST=off` leaves it out: the yardstick as it was until 2026-11-28, kept so a
 * route's ratio can be reported both ways (docs/decisions.md, "The bench's yardstick owes what
 * every response owes").
 */
const perRequest = process.env.BARE_PER_REQUEST !== 'off';

let pendingLines = '';
let flushTimer: NodeJS.Timeout | undefined;
const flushLines = () => {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  const chunk = pendingLines;
  pendingLines = '';
  if (chunk !== '') process.stdout.write(chunk);
};
/** A JSON line per request to stdout, written in batches (16 KB or 100 ms), as pino's asynchronous destination would. */
function logRequest(fields: { request_id: string; method: string; path: string; status: number; ms: number }): void {
  pendingLines += `${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: 'request', ...fields })}\n`;
  if (pendingLines.length >= 16_384) flushLines();
  else if (flushTimer === undefined) flushTimer = setTimeout(flushLines, 100).unref();
}
process.once('exit', flushLines);

const app = new Koa();
if (perRequest) {
  app.use(async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(ctx.get('X-Request-Id'));
    ctx.set('X-Request-Id', requestId);
    await next();
    if (ctx.status < 300) ctx.set('Cache-Control', 'no-store');
    logRequest({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 });
  });
}
app.use(async (ctx) => {
  try {
    const { path, method } = ctx;
    if (method === 'GET' && path === '/api/v1/health') {
      ctx.body = { status: 'ok' };
    } else if (method === 'GET' && path === '/api/v1/auth/me') {
      ctx.body = await me(ctx);
    } else if (method === 'GET' && (path === '/.well-known/nostr.json' || path === '/api/v1/.well-known/nostr.json')) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = await nip05(ctx.query.name);
    } else if (method === 'GET' && USERNAME_LOOKUP.test(path)) {
      ctx.body = await byUsername(decodeURIComponent(USERNAME_LOOKUP.exec(path)![1]!));
    } else if (method === 'GET' && USER_KEYS.test(path)) {
      const userId = decodeURIComponent(USER_KEYS.exec(path)![1]!);
      if (!UUID.test(userId)) throw new Refused(400, 'invalid_request');
      ctx.body = { user_id: userId.toLowerCase(), keys: await listKeys(userId.toLowerCase()) };
    } else if (method === 'POST' && path === '/api/v1/auth/refresh') {
      ctx.body = await refresh(await readJson(ctx));
    } else if (method === 'POST' && path === '/api/v1/auth/extension') {
      ctx.body = await extensionLogin(await readJson(ctx), ctx.socket.remoteAddress ?? '');
    } else if (method === 'POST' && path === '/api/v1/wallet/grin/relay/create') {
      ctx.body = await relayCreate(ctx, await readJson(ctx));
    } else if (method === 'POST' && path === '/api/v1/wallet/grin/scan') {
      ctx.body = await grinScan(ctx, await readJson(ctx));
    } else {
      ctx.status = 404;
      ctx.body = { error: { code: 'not_found', message: 'Not found' } };
    }
  } catch (err) {
    if (err instanceof Refused) {
      ctx.status = err.status;
      ctx.body = { error: { code: err.code, message: err.code } };
      return;
    }
    ctx.status = 500;
    ctx.body = { error: { code: 'internal', message: (err as Error).message } };
    process.stderr.write(`bare server: ${(err as Error).stack ?? String(err)}\n`);
  }
});

const server = createServer({ keepAliveTimeout: 5_000 }, app.callback());
server.listen(Number(env('PORT')), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ msg: 'bare ready', pid: process.pid, url: `http://127.0.0.1:${port}` })}\n`);
});
server.on('error', (err) => {
  process.stderr.write(`bare server: ${err.message}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => {
  server.close(() => void Promise.all([knex.destroy(), scanPool.close()]).then(() => process.exit(0)));
  server.closeAllConnections();
});
