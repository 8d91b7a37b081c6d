import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { eachDialect, useTestBackend, type TestResponse } from '../../harness/index.js';

const THROWN_TEXT = 'kit-test exploded: secret internal detail 7f3a';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Routes that exercise every step of the pipeline; `calls` counts handler runs per route. */
function kitPlugin() {
  const calls = { echo: 0, boom: 0, scratch: 0 };
  const plugin: WalletPlugin = {
    name: 'kit-test',
    migrations: [
      {
        id: '001_scratch',
        up: async (trx) => {
          await trx.schema.createTable('kit_scratch', (table) => {
            table.increments('id');
            table.string('name', 100).notNullable().unique();
          });
        },
      },
    ],
    setup(ctx) {
      ctx.routes.add(
        defineRoute({
          method: 'POST',
          path: '/kit/echo',
          summary: 'Echo a validated body',
          auth: 'none',
          body: v.object({
            name: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')),
            count: v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1')),
            tags: v.array(v.string('must be a string'), 'must be a list'),
          }),
          handler: ({ body }) => {
            calls.echo += 1;
            return { received: body };
          },
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'POST',
          path: '/kit/boom',
          summary: 'Throws a plain Error',
          auth: 'none',
          handler: () => {
            calls.boom += 1;
            throw new Error(THROWN_TEXT);
          },
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'POST',
          path: '/kit/scratch',
          summary: 'Inserts into a unique column without checking first',
          auth: 'none',
          body: v.object({ name: v.string() }),
          handler: async ({ body }) => {
            calls.scratch += 1;
            await ctx.db.knex('kit_scratch').insert({ name: body.name });
            return { ok: true };
          },
        }),
      );
    },
  };
  return { plugin, calls };
}

function expectError(res: TestResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body.error.code, res.text).to.equal(code);
  expect(res.body.error.message).to.be.a('string').and.not.equal('');
  if (status < 500) expect(res.body.error).to.not.have.property('request_id');
}

/** POSTs raw bytes with chunked transfer encoding (no Content-Length), as a streaming client would. */
function postChunked(url: string, chunks: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

eachDialect('HTTP kit: routing, request ids, body, validation, errors', (dialect) => {
  const kit = kitPlugin();
  const t = useTestBackend(dialect, { plugins: [kit.plugin], settings: { bodyLimitBytes: 1024 } });
  const valid = { name: 'alice', count: 2, tags: ['a', 'b'] };

  beforeEach(() => {
    kit.calls.echo = 0;
    kit.calls.boom = 0;
    kit.calls.scratch = 0;
  });

  it('an unknown path is a JSON 404 not_found carrying X-Request-Id', async () => {
    for (const [method, path] of [['GET', '/nope'], ['GET', '/api/v1/nope'], ['POST', '/api/v1/kit/echo/extra']] as const) {
      const res = await t.client.request(method, path);
      expectError(res, 404, 'not_found');
      expect(res.headers.get('x-request-id'), path).to.match(UUID);
    }
  });

  it('a wrong method on a known path is a JSON 405 method_not_allowed', async () => {
    const res = await t.client.request('DELETE', '/api/v1/health');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('x-request-id')).to.match(UUID);
    const get = await t.client.request('GET', '/api/v1/kit/echo');
    expectError(get, 405, 'method_not_allowed');
    expect(kit.calls.echo).to.equal(0);
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const echoed = await t.client.get('/api/v1/health', { headers: { 'x-request-id': 'abc12345-req' } });
    expect(echoed.status).to.equal(200);
    expect(echoed.headers.get('x-request-id')).to.equal('abc12345-req');
    for (const bad of ['bad id!', 'short', 'x'.repeat(129), 'abc/12345678', '"quoted-id-1"']) {
      const res = await t.client.get('/api/v1/health', { headers: { 'x-request-id': bad } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-request-id'), bad).to.match(UUID);
    }
    // Also on error answers, and in the log line of the request.
    const missing = await t.client.get('/api/v1/nope', { headers: { 'x-request-id': 'trace.0001_xyz' } });
    expect(missing.headers.get('x-request-id')).to.equal('trace.0001_xyz');
    expect(t.logger.lines.some((line) => line.msg === 'request' && line.request_id === 'trace.0001_xyz' && line.status === 404)).to.equal(true);
  });

  it('a body over bodyLimitBytes is 413 payload_too_large, declared or streamed, and the handler never runs', async () => {
    const big = JSON.stringify({ ...valid, name: 'x'.repeat(2000) });
    expect(Buffer.byteLength(big)).to.be.above(2000);
    expectError(await t.client.post('/api/v1/kit/echo', undefined, { raw: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    const streamed = await postChunked(`${t.client.baseUrl}/api/v1/kit/echo`, [big.slice(0, 700), big.slice(700, 1400), big.slice(1400)]);
    expect(streamed.status).to.equal(413);
    expect(streamed.body.error.code).to.equal('payload_too_large');
    // At the limit is fine.
    const fits = JSON.stringify({ ...valid, name: 'y'.repeat(1024 - JSON.stringify({ ...valid, name: '' }).length) });
    expect(Buffer.byteLength(fits)).to.equal(1024);
    expect((await t.client.post('/api/v1/kit/echo', undefined, { raw: fits, headers: { 'content-type': 'application/json' } })).status).to.equal(200);
    expect(kit.calls.echo).to.equal(1);
  });

  it('a body that is not declared as JSON is 415 unsupported_media_type', async () => {
    const raw = JSON.stringify(valid);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      expectError(await t.client.post('/api/v1/kit/echo', undefined, { raw, headers: { 'content-type': type } }), 415, 'unsupported_media_type');
    }
    // Bytes (unlike a string) make fetch send no Content-Type at all.
    expectError(await t.client.post('/api/v1/kit/echo', undefined, { raw: new TextEncoder().encode(raw) }), 415, 'unsupported_media_type');
    // Parameters and +json media types are accepted.
    const ok = await t.client.post('/api/v1/kit/echo', undefined, { raw, headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' } });
    expect(ok.status).to.equal(200);
    expect(kit.calls.echo).to.equal(1);
  });

  it('malformed JSON (or bytes that are not UTF-8) is 400 invalid_json', async () => {
    for (const raw of ['{"name": ', '{name: "a"}', "{'a':1}", '[1,]']) {
      expectError(await t.client.post('/api/v1/kit/echo', undefined, { raw, headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    }
    const latin1 = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]);
    expectError(await t.client.post('/api/v1/kit/echo', undefined, { raw: latin1, headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expect(kit.calls.echo).to.equal(0);
  });

  it('a schema failure is 400 invalid_request listing every bad field', async () => {
    const res = await t.client.post('/api/v1/kit/echo', { name: '', count: 1.5, tags: ['ok', 7, null] });
    expectError(res, 400, 'invalid_request');
    const details = res.body.error.details as Array<{ path: string; message: string }>;
    for (const detail of details) expect(Object.keys(detail).sort()).to.deep.equal(['message', 'path']);
    expect(details.map((d) => d.path).sort()).to.deep.equal(['body.count', 'body.name', 'body.tags.1', 'body.tags.2']);
    expect(details.find((d) => d.path === 'body.count')!.message).to.equal('must be an integer');
    expect(details.find((d) => d.path === 'body.name')!.message).to.equal('must not be empty');

    const missing = await t.client.post('/api/v1/kit/echo', { count: 'x' });
    expectError(missing, 400, 'invalid_request');
    expect(missing.body.error.details.map((d: { path: string }) => d.path).sort()).to.deep.equal(['body.count', 'body.name', 'body.tags']);

    const empty = await t.client.post('/api/v1/kit/echo');
    expectError(empty, 400, 'invalid_request');
    expect(empty.body.error.details).to.deep.equal([{ path: 'body', message: empty.body.error.details[0].message }]);
    expect(kit.calls.echo).to.equal(0);
  });

  it('the handler runs only for a request that passed every step', async () => {
    const json = { 'content-type': 'application/json' };
    const refusals = [
      await t.client.post('/api/v1/kit/echo', undefined, { raw: 'x'.repeat(2000), headers: json }),
      await t.client.post('/api/v1/kit/echo', undefined, { raw: JSON.stringify(valid), headers: { 'content-type': 'text/csv' } }),
      await t.client.post('/api/v1/kit/echo', undefined, { raw: '{', headers: json }),
      await t.client.post('/api/v1/kit/echo', { ...valid, count: 0 }),
    ];
    expect(refusals.map((r) => r.status)).to.deep.equal([413, 415, 400, 400]);
    expect(refusals.map((r) => r.body.error.code)).to.deep.equal(['payload_too_large', 'unsupported_media_type', 'invalid_json', 'invalid_request']);
    expect(kit.calls.echo).to.equal(0);
    const ok = await t.client.post('/api/v1/kit/echo', valid);
    expect(ok.status).to.equal(200);
    expect(ok.body).to.deep.equal({ received: valid });
    expect(ok.headers.get('cache-control')).to.equal('no-store');
    expect(kit.calls.echo).to.equal(1);
  });

  it('a plain Error from a handler is 500 internal_error with a generic message, the request id, and an error log line', async () => {
    const res = await t.client.post('/api/v1/kit/boom');
    expectError(res, 500, 'internal_error');
    expect(kit.calls.boom).to.equal(1);
    expect(res.body.error.message).to.equal('Internal server error.');
    expect(res.text).to.not.include('exploded');
    expect(res.text).to.not.include('7f3a');
    const requestId = res.headers.get('x-request-id');
    expect(requestId).to.match(UUID);
    expect(res.body.error.request_id).to.equal(requestId);
    expect(res.body.error).to.not.have.property('details');

    const errors = t.logger.lines.filter((line) => line.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ msg: 'request failed', code: 'internal_error', request_id: requestId, err: THROWN_TEXT });
    const access = t.logger.lines.filter((line) => line.msg === 'request' && line.request_id === requestId);
    expect(access).to.have.length(1);
    expect(access[0]).to.include({ method: 'POST', path: '/api/v1/kit/boom', status: 500 });
  });

  it('a unique-column collision that reaches the edge is 409 conflict, never 500, and the table keeps one row', async () => {
    expect((await t.client.post('/api/v1/kit/scratch', { name: 'same' })).status).to.equal(200);
    const again = await t.client.post('/api/v1/kit/scratch', { name: 'same' });
    expectError(again, 409, 'conflict');
    expect(kit.calls.scratch).to.equal(2);
    const rows = await t.backend.db.knex('kit_scratch').select('name');
    expect(rows).to.deep.equal([{ name: 'same' }]);
    expect(t.logger.lines.filter((line) => line.level === 'error')).to.deep.equal([]);
    // A different name still goes in.
    expect((await t.client.post('/api/v1/kit/scratch', { name: 'other' })).status).to.equal(200);
    expect(await t.backend.db.knex('kit_scratch').count({ n: '*' }).then(([row]) => Number(row!.n))).to.equal(2);
  });
});
