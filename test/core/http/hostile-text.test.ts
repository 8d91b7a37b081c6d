import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { adminLogin, bootstrapAdmin, eachDialect, seedSession, useTestBackend, type TestBackend, type TestResponse } from '../../harness/index.js';

/**
 * Issue 12 item 2: a NUL character or an out-of-range number must be a 400 with a stable code
 * on both dialects (Postgres used to answer 500: `invalid byte sequence … 0x00`, bigint
 * overflow), refused by the validation layer for every route, with the dialect's error mapping
 * as the safety net behind it.
 */
function hostilePlugin() {
  const calls = { handled: 0 };
  const plugin: WalletPlugin = {
    name: 'hostile-text-test',
    migrations: [
      {
        id: '001_scratch',
        up: async (trx) => {
          await trx.schema.createTable('hostile_scratch', (table) => {
            table.increments('id');
            table.text('name').notNullable();
            table.integer('count');
          });
        },
      },
    ],
    setup(ctx) {
      const scratch = () => ctx.db.knex('hostile_scratch');
      ctx.routes.add(
        defineRoute({
          method: 'POST',
          path: '/hostile/scratch',
          summary: 'Stores a validated name as it is',
          auth: 'none',
          body: v.object({ name: v.string(), count: v.optional(v.pipe(v.number(), v.integer())) }),
          handler: async ({ body }) => {
            calls.handled += 1;
            await scratch().insert({ name: body.name, count: body.count ?? null });
            return { ok: true };
          },
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/hostile/scratch/{name}',
          summary: 'Looks a name up by path',
          auth: 'none',
          params: v.object({ name: v.string() }),
          query: v.object({ also: v.optional(v.string()) }),
          handler: async ({ params, query }) => {
            calls.handled += 1;
            const rows = await scratch().whereIn('name', [params.name, query.also ?? '']).select('name');
            return { found: rows.length };
          },
        }),
      );
      // A plugin that "forgot" validation: the text it stores is decoded from a checked field,
      // the number it stores is parsed from one. Only the dialect's error mapping stands
      // between these and a 500.
      ctx.routes.add(
        defineRoute({
          method: 'POST',
          path: '/hostile/unchecked',
          summary: 'Stores decoded text and a parsed number without checking them',
          auth: 'none',
          body: v.object({ name_b64: v.string(), count_digits: v.pipe(v.string(), v.digits()) }),
          handler: async ({ body }) => {
            calls.handled += 1;
            await scratch().insert({ name: Buffer.from(body.name_b64, 'base64').toString('utf8'), count: Number(body.count_digits) });
            return { ok: true };
          },
        }),
      );
    },
  };
  return { plugin, calls };
}

function expectInvalid(res: TestResponse, detailPath?: string): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.body.error.code, res.text).to.equal('invalid_request');
  expect(res.body.error).to.not.have.property('request_id');
  if (detailPath !== undefined) expect(res.body.error.details.map((d: { path: string }) => d.path), res.text).to.include(detailPath);
}

const JSON_TYPE = { 'content-type': 'application/json' };

eachDialect('hostile text and numbers', (dialect) => {
  const hostile = hostilePlugin();
  const t = useTestBackend(dialect, { plugins: [hostile.plugin] });

  beforeEach(() => {
    hostile.calls.handled = 0;
  });

  const rowCount = async (tb: TestBackend, table: string) => Number((await tb.backend.db.knex(table).count({ n: '*' }))[0]!.n);
  const errorLines = () => t.logger.lines.filter((line) => line.level === 'error');

  it('a NUL in a path parameter is 400 invalid_request before the handler runs (GET /wallet/grin/address/%00/user)', async () => {
    const { auth } = await seedSession(t.backend);
    for (const addr of ['%00', 'grin1%00abc', 'abc%00']) {
      expectInvalid(await t.client.get(`/api/v1/wallet/grin/address/${addr}/user`, { token: auth.access_token }), 'params.addr');
    }
    expectInvalid(await t.client.get('/api/v1/hostile/scratch/a%00b'), 'params.name');
    expect(hostile.calls.handled).to.equal(0);
    expect(errorLines()).to.deep.equal([]);
  });

  it('a NUL in a query parameter is 400 invalid_request', async () => {
    expectInvalid(await t.client.get('/api/v1/hostile/scratch/alice?also=%00'), 'query.also');
    // Even in a parameter the route does not declare, and in a repeated one.
    expectInvalid(await t.client.get('/api/v1/hostile/scratch/alice?stray=x%00'), 'query.stray');
    expectInvalid(await t.client.get('/api/v1/hostile/scratch/alice?also=ok&also=%00'), 'query.also.1');
    expect(hostile.calls.handled).to.equal(0);
    // The same request without the NUL goes through.
    expect((await t.client.get('/api/v1/hostile/scratch/alice?also=bob')).body).to.deep.equal({ found: 0 });
  });

  it('a NUL in a body field, nested or in a JSON key, is 400 invalid_request and nothing is stored', async () => {
    expectInvalid(await t.client.post('/api/v1/hostile/scratch', { name: 'a\u0000b' }), 'body.name');
    expectInvalid(await t.client.post('/api/v1/hostile/scratch', { name: 'ok', extra: [{ deep: '\u0000' }] }), 'body.extra.0.deep');
    const key = await t.client.post('/api/v1/hostile/scratch', undefined, { raw: '{"name":"ok","x\\u0000y":1}', headers: JSON_TYPE });
    expectInvalid(key, 'body.x\\u0000y');
    expect(key.text).to.not.include('\u0000');
    expect(hostile.calls.handled).to.equal(0);
    expect(await rowCount(t, 'hostile_scratch')).to.equal(0);
    expect(errorLines()).to.deep.equal([]);
    // A clean body is stored.
    expect((await t.client.post('/api/v1/hostile/scratch', { name: 'clean' })).status).to.equal(200);
    expect(await rowCount(t, 'hostile_scratch')).to.equal(1);
  });

  it('a NUL in a core route body (/auth/refresh, /auth/logout) is 400 invalid_request, never 500', async () => {
    const { auth } = await seedSession(t.backend);
    for (const path of ['/api/v1/auth/refresh', '/api/v1/auth/logout']) {
      const res = await t.client.post(path, { refresh_token: `${auth.refresh_token}\u0000` }, { token: auth.access_token });
      expectInvalid(res, 'body.refresh_token');
    }
    // The session is untouched: its refresh token still rotates.
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(200);
  });

  it('after_seq beyond bigint (GET /admin/audit?after_seq=99999999999999999999) is 400 invalid_request', async () => {
    const { nostr } = await bootstrapAdmin(t);
    const token = await adminLogin(t, nostr);
    const audit = (after: string) => t.client.get(`/api/v1/admin/audit?after_seq=${after}`, { token });
    expect((await audit('0')).status).to.equal(200);
    for (const after of ['99999999999999999999', '9223372036854775808', '9007199254740993', '1' + '0'.repeat(400)]) {
      expectInvalid(await audit(after), 'query.after_seq');
    }
    // The largest safe integer is still a number the route can answer.
    expect((await audit(String(Number.MAX_SAFE_INTEGER))).status).to.equal(200);
    expect(errorLines()).to.deep.equal([]);
  });

  it('a body number that is not finite or beyond the safe-integer range is 400 invalid_request', async () => {
    // `1e309` parses to Infinity, which v.number() lets through; 2^63 is no exact JS number and beyond bigint.
    for (const raw of ['{"name":"n","count":1e309}', '{"name":"n","count":-1e309}', '{"name":"n","count":9223372036854775808}']) {
      expectInvalid(await t.client.post('/api/v1/hostile/scratch', undefined, { raw, headers: JSON_TYPE }), 'body.count');
    }
    expect(hostile.calls.handled).to.equal(0);
    expect(await rowCount(t, 'hostile_scratch')).to.equal(0);
    expect(errorLines()).to.deep.equal([]);
  });

  it('every public route refuses a NUL in each path parameter with 400 invalid_request', async () => {
    const { auth } = await seedSession(t.backend);
    const document = t.backend.openapi() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    let tried = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.includes('{')) continue;
      for (const [method, operation] of Object.entries(item)) {
        const concrete = path.replace(/\{[^}]+\}/g, 'x%00y');
        const bearer = (operation.security ?? []).length > 0;
        const res = await t.client.request(method.toUpperCase(), concrete, {
          ...(bearer ? { token: auth.access_token } : {}),
          ...(method === 'get' ? {} : { json: {} }),
        });
        expectInvalid(res);
        tried += 1;
      }
    }
    expect(tried).to.be.greaterThan(3);
    expect(errorLines()).to.deep.equal([]);
  });

  it('safety net: a value the database refuses is never a 500, even when a plugin skipped validation', async () => {
    const nul = Buffer.from('a\u0000b').toString('base64');
    const res = await t.client.post('/api/v1/hostile/unchecked', { name_b64: nul, count_digits: '1' });
    const big = await t.client.post('/api/v1/hostile/unchecked', { name_b64: Buffer.from('ok').toString('base64'), count_digits: '99999999999' });
    expect(hostile.calls.handled).to.equal(2);
    expect(errorLines()).to.deep.equal([]);
    if (dialect === 'postgres') {
      // Postgres refuses both (22021 and 22003): 400 invalid_request, and a warning to fix the route.
      for (const refused of [res, big]) expectInvalid(refused);
      expect(await rowCount(t, 'hostile_scratch')).to.equal(0);
      const warnings = t.logger.lines.filter((line) => line.level === 'warn' && line.db_code !== undefined);
      expect(warnings.map((line) => line.db_code).sort()).to.deep.equal(['22003', '22021']);
    } else {
      // SQLite stores what it is given.
      expect([res.status, big.status]).to.deep.equal([200, 200]);
    }
  });
});
