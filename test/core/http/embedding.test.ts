import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, eachDialect, seedSession, TestClient, type TestBackend } from '../../harness/index.js';

/** A plugin route that fails, to see the backend's 500 body inside a host app. */
const failingPlugin: WalletPlugin = {
  name: 'embed-failing',
  setup(ctx) {
    ctx.routes.add(
      defineRoute({
        method: 'GET',
        path: '/embed/fail',
        summary: 'Always fails',
        auth: 'none',
        handler: () => {
          throw new Error('embedded failure detail');
        },
      }),
    );
  },
};

/** Listens on a loopback port; `close()` ends every connection. */
async function serve(handler: RequestListener): Promise<{ client: TestClient; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    client: new TestClient(`http://127.0.0.1:${port}`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

eachDialect('embedding', (dialect) => {
  let t: TestBackend;
  let server: { client: TestClient; close(): Promise<void> } | undefined;

  beforeEach(async () => {
    t = await createTestBackend(dialect, { listen: false, plugins: [failingPlugin] });
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await t.close();
  });

  describe('in a host Koa app (host.use(backend.router.routes()))', () => {
    let seen: string[];

    beforeEach(async () => {
      seen = [];
      const host = new Koa();
      host.silent = true;
      // Host middleware in front of the backend's routes runs for them too.
      host.use(async (ctx, next) => {
        seen.push(`${ctx.method} ${ctx.path}`);
        ctx.set('X-Host', 'yes');
        await next();
      });
      const hostRouter = new Router();
      hostRouter.get('/host/hello', (ctx) => {
        ctx.body = { hello: 'from host' };
      });
      host.use(hostRouter.routes());
      host.use(t.backend.router.routes());
      server = await serve(host.callback());
    });

    it('serves the host route and the backend routes on one server', async () => {
      const hello = await server!.client.get('/host/hello');
      expect(hello.status).to.equal(200);
      expect(hello.body).to.deep.equal({ hello: 'from host' });
      const health = await server!.client.get('/api/v1/health', { headers: { 'x-request-id': 'host-trace-0001' } });
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok' });
      expect(health.headers.get('x-host')).to.equal('yes');
      expect(health.headers.get('x-request-id')).to.equal('host-trace-0001');
      expect(seen).to.deep.equal(['GET /host/hello', 'GET /api/v1/health']);
    });

    it('keeps the JSON error body: the boundary travels with the router', async () => {
      const invalid = await server!.client.post('/api/v1/auth/refresh', { refresh_token: 5 });
      expect(invalid.status).to.equal(400);
      expect(invalid.headers.get('content-type')).to.match(/^application\/json/);
      expect(invalid.body.error.code).to.equal('invalid_request');
      expect(invalid.body.error.details[0].path).to.equal('body.refresh_token');
      expect(invalid.headers.get('x-request-id')).to.be.a('string');

      const malformed = await server!.client.post('/api/v1/auth/refresh', undefined, { raw: '{', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal('invalid_json');

      const unauthorized = await server!.client.get('/api/v1/auth/me');
      expect(unauthorized.status).to.equal(401);
      expect(unauthorized.body.error.code).to.equal('unauthorized');

      const failed = await server!.client.get('/api/v1/embed/fail');
      expect(failed.status).to.equal(500);
      expect(failed.body.error.code).to.equal('internal_error');
      expect(failed.body.error.request_id).to.equal(failed.headers.get('x-request-id'));
      expect(failed.text).to.not.include('embedded failure detail');
      expect(t.logger.lines.some((line) => line.level === 'error' && line.err === 'embedded failure detail')).to.equal(true);
    });

    it('serves authenticated routes with a seeded session', async () => {
      const { userId, auth } = await seedSession(t.backend);
      const me = await server!.client.get('/api/v1/auth/me', { token: auth.access_token });
      expect(me.status).to.equal(200);
      expect(me.body.id).to.equal(userId);
      const refreshed = await server!.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
      expect(refreshed.status).to.equal(200);
      expect(refreshed.body.user_id).to.equal(userId);
    });
  });

  describe('behind a host body parser (the documented mistake)', () => {
    it('fails loudly: a 500 with a request id, and a log line that names the cause', async () => {
      const host = new Koa();
      host.silent = true;
      host.use(async (ctx, next) => {
        // What koa-bodyparser and friends do: drain the stream before the routes run.
        for await (const _chunk of ctx.req) void _chunk;
        await next();
      });
      host.use(t.backend.router.routes());
      server = await serve(host.callback());
      const { auth } = await seedSession(t.backend);
      const res = await server.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
      expect(res.status).to.equal(500);
      expect(res.body.error.code).to.equal('internal_error');
      expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
      expect(t.logger.lines.some((line) => line.level === 'error' && String(line.err).includes('remove the body parser'))).to.equal(true);
      // Nothing was rotated.
      expect((await t.backend.db.knex('sessions').whereNull('revoked_at').select('id')).length).to.equal(1);
    });
  });

  describe('in plain node:http (createServer(backend.callback()))', () => {
    beforeEach(async () => {
      server = await serve(t.backend.callback());
    });

    it('serves /api/v1/health and /api/v1/auth/me with a seeded session', async () => {
      const health = await server!.client.get('/api/v1/health');
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok' });
      const { userId, auth } = await seedSession(t.backend, 'web');
      const me = await server!.client.get('/api/v1/auth/me', { token: auth.access_token });
      expect(me.status).to.equal(200);
      expect(me.body).to.include({ id: userId, username: null, premium_active: false });
    });

    it('answers unknown paths, wrong methods and bad tokens with JSON errors', async () => {
      const missing = await server!.client.get('/api/v1/nope');
      expect(missing.status).to.equal(404);
      expect(missing.body.error.code).to.equal('not_found');
      const wrongMethod = await server!.client.request('PUT', '/api/v1/auth/me');
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.body.error.code).to.equal('method_not_allowed');
      const badToken = await server!.client.get('/api/v1/auth/me', { token: 'a.b.c' });
      expect(badToken.status).to.equal(401);
      expect(badToken.body.error.code).to.equal('unauthorized');
    });
  });
});
