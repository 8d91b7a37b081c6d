import type { Server } from 'node:http';
import { expect } from 'chai';
import express, { type Express } from 'express';
import { eachDialect, seedSession, useTestBackend, type TestClient } from '../harness/index.js';
import { clientOf, CONSUMED, unrevokedSessions } from './embedding.js';

/**
 * The Express 5 recipe of docs/embedding.md ("c) Express"), on a real Express app, and the
 * mistake it warns against: `express.json()` in front of the backend.
 */

async function listen(app: Express): Promise<{ client: TestClient; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  return { client: await clientOf(server), server };
}

eachDialect('embedding in Express 5', (dialect) => {
  let server: Server | undefined;
  // Registered before the backend's own afterEach: the server closes first.
  afterEach(async () => {
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });
  const t = useTestBackend(dialect, { listen: false, settings: { bodyLimitBytes: 1024 } });

  for (const prefix of ['', '/wallet']) {
    it(`the recipe at ${prefix === '' ? 'the root' : prefix}: the backend reads its own bodies, the host's routes keep express.json()`, async () => {
      const app = express();
      app.get('/status', (_req, res) => {
        res.json({ up: true });
      });
      app.post('/orders', express.json(), (req, res) => {
        res.json({ received: req.body as unknown });
      });
      if (prefix === '') app.use(t.backend.callback());
      else app.use(prefix, t.backend.callback());
      let client: TestClient;
      ({ client, server } = await listen(app));

      expect((await client.get('/status')).body).to.deep.equal({ up: true });
      expect((await client.post('/orders', { item: 'coffee' })).body).to.deep.equal({ received: { item: 'coffee' } });

      const health = await client.get(`${prefix}/api/v1/health`);
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok' });
      const { userId, auth } = await seedSession(t.backend);
      const refreshed = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: auth.refresh_token });
      expect(refreshed.status, refreshed.text).to.equal(200);
      expect(refreshed.body.user_id).to.equal(userId);
      const invalid = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: 5 });
      expect(invalid.status).to.equal(400);
      expect(invalid.body.error.code).to.equal('invalid_request');
      const malformed = await client.post(`${prefix}/api/v1/auth/refresh`, undefined, { raw: '{', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal('invalid_json');
      const oversized = await client.post(`${prefix}/api/v1/auth/refresh`, { refresh_token: 'x'.repeat(2048) });
      expect(oversized.status).to.equal(413);
      expect(oversized.body.error.code).to.equal('payload_too_large');
      expect(t.logger.lines.filter((line) => line.level === 'error')).to.deep.equal([]);
    });
  }

  it('behind express.json(): every JSON body is a 500 internal_error with one log line naming the cause', async () => {
    const app = express();
    app.use(express.json());
    app.use(t.backend.callback());
    let client: TestClient;
    ({ client, server } = await listen(app));

    expect((await client.get('/api/v1/health')).status).to.equal(200);
    const { auth } = await seedSession(t.backend);
    const res = await client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
    expect(res.status).to.equal(500);
    expect(res.body.error.code).to.equal('internal_error');
    expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
    // A body express.json() does not read (another media type) still reaches the backend.
    const text = await client.post('/api/v1/auth/refresh', undefined, { raw: 'refresh', headers: { 'content-type': 'text/plain' } });
    expect(text.status).to.equal(415);
    expect(text.body.error.code).to.equal('unsupported_media_type');
    const logged = t.logger.lines.filter((line) => line.level === 'error');
    expect(logged.map((line) => [line.msg, line.code, line.err])).to.deep.equal([['request failed', 'internal_error', CONSUMED]]);
    expect(await unrevokedSessions(t)).to.equal(1);
  });
});
