import { expect } from 'chai';
import Fastify, { type FastifyInstance } from 'fastify';
import type { WalletBackend } from '@wallet/backend-core';
import { eachDialect, seedSession, useTestBackend, type TestClient } from '../harness/index.js';
import { clientOf, CONSUMED, recipeBlockAfter, unrevokedSessions } from './embedding.js';

/**
 * The Fastify 5 recipe of docs/embedding.md ("d) Fastify"), on a real Fastify app: the backend is
 * handed the raw request in a route-level onRequest hook, before Fastify's content-type parsers
 * read the body, with the reply hijacked. And the naive catch-all the recipe warns against, to
 * keep the warning true.
 */

/** The recipe's mount, as docs/embedding.md shows it. */
function mountWalletBackend(app: FastifyInstance, wallet: WalletBackend, prefix = ''): void {
  const handle = wallet.callback();
  app.all(
    `${prefix}/api/v1/*`,
    {
      onRequest(request, reply, done) {
        reply.hijack();
        request.raw.url = request.raw.url!.slice(prefix.length);
        handle(request.raw, reply.raw);
        done();
      },
    },
    () => {},
  );
}

describe('embedding in Fastify 5: the recipe in docs/embedding.md', () => {
  it('mounts the way mountWalletBackend here does', () => {
    const recipe = recipeBlockAfter('### d) Fastify');
    for (const line of ['app.all(', '`${prefix}/api/v1/*`', 'onRequest(request, reply, done) {', 'reply.hijack();', 'request.raw.url = request.raw.url!.slice(prefix.length);', 'handle(request.raw, reply.raw);', 'done();']) {
      expect(recipe, line).to.include(line);
    }
  });
});

async function listen(app: FastifyInstance): Promise<TestClient> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return clientOf(app.server);
}

/** A host with routes of its own that need Fastify's JSON parsing. */
function hostApp(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/status', async () => ({ up: true }));
  app.post('/orders', async (request) => ({ received: request.body }));
  return app;
}

eachDialect('embedding in Fastify 5', (dialect) => {
  let app: FastifyInstance | undefined;
  // Registered before the backend's own afterEach: the app closes first.
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  const t = useTestBackend(dialect, { listen: false, settings: { bodyLimitBytes: 1024 } });

  for (const prefix of ['', '/wallet']) {
    describe(`the recipe, mounted at ${prefix === '' ? 'the root' : prefix}`, () => {
      let client: TestClient;
      beforeEach(async () => {
        app = hostApp();
        mountWalletBackend(app, t.backend, prefix);
        client = await listen(app);
      });

      it('serves the backend: health, JSON bodies, its own 400/404/413/415 answers', async () => {
        const health = await client.get(`${prefix}/api/v1/health`);
        expect(health.status).to.equal(200);
        expect(health.body).to.deep.equal({ status: 'ok' });
        expect(health.headers.get('x-request-id')).to.be.a('string');

        const { userId, auth } = await seedSession(t.backend);
        const refreshed = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: auth.refresh_token });
        expect(refreshed.status, refreshed.text).to.equal(200);
        expect(refreshed.body.user_id).to.equal(userId);

        const invalid = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: 5 });
        expect(invalid.status).to.equal(400);
        expect(invalid.body.error.code).to.equal('invalid_request');
        expect(invalid.body.error.details[0].path).to.equal('body.refresh_token');

        const malformed = await client.post(`${prefix}/api/v1/auth/refresh`, undefined, { raw: '{', headers: { 'content-type': 'application/json' } });
        expect(malformed.status).to.equal(400);
        expect(malformed.body.error.code).to.equal('invalid_json');

        // Fastify would answer these itself (its body limit, its 415) if its parsers ran first.
        const oversized = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: 'x'.repeat(2048) });
        expect(oversized.status).to.equal(413);
        expect(oversized.body.error.code).to.equal('payload_too_large');
        const text = await client.post(`${prefix}/api/v1/auth/refresh`, undefined, { raw: 'refresh', headers: { 'content-type': 'text/plain' } });
        expect(text.status).to.equal(415);
        expect(text.body.error.code).to.equal('unsupported_media_type');

        const missing = await client.get(`${prefix}/api/v1/nope`);
        expect(missing.status).to.equal(404);
        expect(missing.body.error.code).to.equal('not_found');
        const wrongMethod = await client.request('PUT', `${prefix}/api/v1/auth/me`);
        expect(wrongMethod.status).to.equal(405);
        expect(wrongMethod.body.error.code).to.equal('method_not_allowed');

        // Nothing was rotated by the refused refreshes; the one that succeeded rotated once.
        expect(await unrevokedSessions(t)).to.equal(1);
        expect(t.logger.lines.filter((line) => line.level === 'error')).to.deep.equal([]);
      });

      it("keeps the host's own routes, with Fastify's JSON parsing", async () => {
        const status = await client.get('/status');
        expect(status.status).to.equal(200);
        expect(status.body).to.deep.equal({ up: true });
        const order = await client.post('/orders', { item: 'coffee' });
        expect(order.status).to.equal(200);
        expect(order.body).to.deep.equal({ received: { item: 'coffee' } });
        const elsewhere = await client.get('/api/v2/health');
        expect(elsewhere.status).to.equal(404);
        expect(elsewhere.body.error).to.not.have.property('code'); // Fastify's own 404, not the backend's
      });
    });
  }

  describe('the naive catch-all the recipe warns against', () => {
    it('answers 500 to a POST with a body: Fastify parsed it first; the log line names the cause', async () => {
      app = hostApp();
      const handle = t.backend.callback();
      app.all('/api/v1/*', (request, reply) => {
        reply.hijack();
        handle(request.raw, reply.raw);
      });
      const client = await listen(app);
      expect((await client.get('/api/v1/health')).status).to.equal(200);
      const { auth } = await seedSession(t.backend);
      const res = await client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
      expect(res.status).to.equal(500);
      expect(res.body.error.code).to.equal('internal_error');
      const octets = await client.post('/api/v1/auth/refresh', undefined, { raw: 'x', headers: { 'content-type': 'application/octet-stream' } });
      expect(octets.status).to.equal(415);
      expect(octets.body.code).to.equal('FST_ERR_CTP_INVALID_MEDIA_TYPE'); // Fastify's answer, not the backend's
      const logged = t.logger.lines.filter((line) => line.level === 'error');
      expect(logged.map((line) => line.err)).to.deep.equal([CONSUMED]);
      expect(await unrevokedSessions(t)).to.equal(1);
    });
  });
});
