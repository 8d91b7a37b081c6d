/**
 * The yardstick for `npm run bench`: plain Koa + knex doing the same work as the reference
 * server's /health and /auth/me (verify the JWT, read the live session and the user), with
 * none of the backend's kit. Reads DATABASE_URL, JWT_SECRET, JWT_ISSUER and PORT.
 */
import { createServer } from 'node:http';
import { jwtVerify } from 'jose';
import Koa from 'koa';
import knexFactory from 'knex';

const databaseUrl = process.env.DATABASE_URL!;
const sqlite = databaseUrl.startsWith('sqlite:');
const knex = knexFactory(
  sqlite
    ? { client: 'better-sqlite3', connection: { filename: databaseUrl.slice('sqlite:'.length) }, useNullAsDefault: true, pool: { min: 1, max: 1 } }
    : { client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } },
);
const key = new TextEncoder().encode(process.env.JWT_SECRET!);
const issuer = process.env.JWT_ISSUER!;

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/api/v1/health') {
    ctx.body = { status: 'ok' };
    return;
  }
  if (ctx.path !== '/api/v1/auth/me') {
    ctx.status = 404;
    return;
  }
  const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
  if (!token) return void (ctx.status = 401);
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer, audience: 'wallet-backend:user' });
  const now = new Date();
  const session = await knex('sessions')
    .where({ id: payload.sid as string, user_id: payload.sub! })
    .whereNull('revoked_at')
    .where('expires_at', '>', sqlite ? now.toISOString() : now)
    .first();
  if (!session) return void (ctx.status = 401);
  const user = await knex('users').select('id', 'username', 'nostr_pubkey', 'premium_until', 'created_at').where({ id: payload.sub! }).first();
  ctx.body = user;
});

const server = createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void knex.destroy().then(() => process.exit(0))));
