import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { coreErrors, defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, eachDialect, seedSession, seedUser, sendRaw, type RawAnswer, type TestBackend } from '../../harness/index.js';

const failingPlugin: WalletPlugin = {
  name: 'direct-failing',
  setup(ctx) {
    ctx.routes.add(
      defineRoute({
        method: 'GET',
        path: '/direct/fail',
        summary: 'Always fails',
        auth: 'none',
        handler: () => {
          throw new Error('direct failure detail');
        },
      }),
    );
    ctx.routes.add(
      defineRoute({
        method: 'GET',
        path: '/direct/unwritable',
        summary: 'Refuses with a header value Node will not write',
        auth: 'none',
        rateLimit: false,
        handler: () => {
          throw coreErrors.create.rate_limited({ headers: { 'Retry-After': 'one\ntwo' } });
        },
      }),
    );
  },
};

/** One request on a fresh connection, with this test's request id (answers carry it). */
const send = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) => sendRaw(port, method, path, { 'x-request-id': 'direct-test-0001', ...headers }, body);

eachDialect('the direct listener (start(), callback())', (dialect) => {
  let t: TestBackend;
  let koaServer: Server;
  let directPort: number;
  let koaPort: number;
  let koaContexts: number;

  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [failingPlugin], settings: { bodyLimitBytes: 2_048 } });
    directPort = Number(new URL(t.client.baseUrl).port);
    // Koa's own path to the same backend, as a host serving `backend.app` has it.
    koaServer = createServer(t.backend.app.callback());
    await new Promise<void>((resolve) => koaServer.listen(0, '127.0.0.1', resolve));
    koaPort = (koaServer.address() as AddressInfo).port;
    koaContexts = 0;
    const app = t.backend.app as unknown as { createContext: (...args: unknown[]) => unknown };
    const createContext = app.createContext.bind(app);
    app.createContext = (...args: unknown[]) => {
      koaContexts++;
      return createContext(...args);
    };
  });
  afterEach(async () => {
    koaServer.closeAllConnections();
    await new Promise<void>((resolve) => koaServer.close(() => resolve()));
    await t.close();
  });

  /** Sends the same request through both and expects the same answer; returns it. */
  async function same(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
    const viaKoa = await send(koaPort, method, path, headers, body);
    const direct = await send(directPort, method, path, headers, body);
    // Connection is compared too (every request here asks to close, so it shows only a difference in kind).
    expect(direct, `${method} ${path}`).to.deep.equal(viaKoa);
    return direct;
  }

  it('answers every kind of table hit as Koa does, byte for byte, without a Koa context', async () => {
    const { auth } = await seedSession(t.backend);
    await seedUser(t.backend, { username: 'direct_alice', nostrPubkey: 'a'.repeat(64) });
    const koaBefore = koaContexts;
    const cases: Array<[string, string, Record<string, string>?, string?]> = [
      ['GET', '/api/v1/health'],
      ['GET', '/api/v1/auth/me', { authorization: `Bearer ${auth.access_token}` }],
      ['GET', '/api/v1/auth/me'],
      ['GET', '/api/v1/auth/me', { authorization: 'Bearer not-a-token' }],
      ['GET', '/.well-known/nostr.json?name=direct_alice'],
      ['GET', '/.well-known/nostr.json?name=direct_alice&name=other'],
      ['GET', '/api/v1/.well-known/nostr.json?name=%00'],
      ['OPTIONS', '/.well-known/nostr.json'],
      ['GET', '/api/v1/usernames/direct_alice'],
      ['GET', '/api/v1/usernames/nobody_here'],
      ['GET', '/api/v1/users/not-a-uuid/keys'],
      ['GET', `/api/v1/users/${auth.user_id}/keys?x=%00`],
      ['POST', '/api/v1/auth/refresh', { 'content-type': 'application/json' }, '{not json'],
      ['POST', '/api/v1/auth/refresh', { 'content-type': 'application/json' }, JSON.stringify({ refresh_token: 5 })],
      ['POST', '/api/v1/auth/logout', { 'content-type': 'application/json' }, JSON.stringify({ refresh_token: 'unknown' })],
      ['POST', '/api/v1/auth/refresh', { 'content-type': 'application/json' }, JSON.stringify({ refresh_token: 'x'.repeat(4_000) })],
      ['GET', '/api/v1/direct/fail'],
    ];
    const statuses = new Set<number>();
    for (const [method, path, headers, body] of cases) statuses.add((await same(method, path, headers, body)).status);
    // Every case went through Koa once (its own server) and never through Koa on the direct listener.
    expect(koaContexts - koaBefore).to.equal(cases.length);
    // The cases cover success, no content, refusals of each layer and a server error.
    expect([...statuses].sort()).to.deep.equal([200, 204, 400, 401, 413, 500]);
  });

  it('leaves to Koa what the table does not answer: 404, 405, HEAD, odd spellings, a query Koa reads differently', async () => {
    const cases: Array<[string, string]> = [
      ['GET', '/api/v1/nothing-here'],
      ['DELETE', '/api/v1/health'],
      ['HEAD', '/api/v1/health'],
      ['GET', '/API/v1/health'],
      ['GET', '/api/v1/health/'],
      ['GET', '/api/v1/health?a=b%20c#frag'],
    ];
    for (const [method, path] of cases) {
      const before = koaContexts;
      await same(method, path);
      // Served by Koa on both servers.
      expect(koaContexts - before, `${method} ${path}`).to.equal(2);
    }
  });

  it('steps aside for middleware a host put in front of the backend (CORS in the reference server): Koa serves every request', async () => {
    const app = t.backend.app;
    app.middleware.unshift(async (ctx, next) => {
      ctx.set('X-Host-Layer', 'seen');
      await next();
    });
    const server = createServer(t.backend.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const before = koaContexts;
      const answer = await send((server.address() as AddressInfo).port, 'GET', '/api/v1/health');
      expect(answer.status).to.equal(200);
      expect(answer.headers['x-host-layer']).to.equal('seen');
      expect(koaContexts - before).to.equal(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('an answer Node refuses to write is logged, its connection closed, and the server goes on serving', async () => {
    const outcome = await send(directPort, 'GET', '/api/v1/direct/unwritable').then(
      (answer) => `answered ${answer.status}`,
      (err: Error) => err.message,
    );
    expect(outcome).to.match(/socket hang up|ECONNRESET/);
    const failure = t.logger.lines.find((line) => line.msg === 'the response could not be written');
    expect(failure, 'the failure is logged').to.not.equal(undefined);
    expect(String(failure!.err)).to.include('Retry-After');
    expect(t.logger.lines.filter((line) => line.msg === 'request' && line.path === '/api/v1/direct/unwritable')).to.have.length(1);
    expect((await send(directPort, 'GET', '/api/v1/health')).status).to.equal(200);
  });

  it('logs one line per request: its id, method, path without the query, status and code', async () => {
    t.logger.lines.length = 0;
    await send(directPort, 'GET', '/api/v1/users/not-a-uuid/keys?secret=1');
    const lines = t.logger.lines.filter((line) => line.msg === 'request');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ request_id: 'direct-test-0001', method: 'GET', path: '/api/v1/users/not-a-uuid/keys', status: 400, code: 'invalid_request' });
  });
});
