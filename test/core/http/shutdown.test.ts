import { request, Agent } from 'node:http';
import { expect } from 'chai';
import { defineRoute, type Knex, type WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, eachDialect, rejectionOf, TestClient } from '../../harness/index.js';

/** A route that answers only when released, to hold a request in flight. */
function slowPlugin() {
  let db: Knex | undefined;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const plugin: WalletPlugin = {
    name: 'slow',
    setup(ctx) {
      db = ctx.db.knex;
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/slow',
          summary: 'Answers when released',
          auth: 'none',
          handler: async () => {
            entered();
            await released;
            // The pool must still be open for a request that was in flight when close() began.
            await db!.raw('select 1');
            return { done: true };
          },
        }),
      );
    },
  };
  return { plugin, release, inFlight };
}

eachDialect('graceful shutdown', (dialect) => {
  it('close() lets the request in flight finish, refuses new connections, then closes the pool', async () => {
    const slow = slowPlugin();
    const t = await createTestBackend(dialect, { plugins: [slow.plugin], scheduler: true });
    const pending = t.client.get('/api/v1/slow');
    await slow.inFlight;
    const closing = t.backend.close();
    // New connections are refused while the old request drains.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rejectionOf(new TestClient(t.client.baseUrl).get('/api/v1/health'))).to.be.instanceOf(Error);
    slow.release();
    const response = await pending;
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ done: true });
    await closing;
    expect(await rejectionOf(t.backend.db.knex.raw('select 1'))).to.be.instanceOf(Error);
    // close() is idempotent.
    await t.backend.close();
  });

  it('a keep-alive connection that keeps sending is told Connection: close once close() begins, and the server closes when its answer is out (not at the drain timeout)', async () => {
    const slow = slowPlugin();
    const t = await createTestBackend(dialect, { plugins: [slow.plugin] });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = request(`${t.client.baseUrl}${path}`, { agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      // The connection is kept alive before close().
      expect((await get('/api/v1/health')).connection).to.equal('keep-alive');
      const pending = get('/api/v1/slow');
      await slow.inFlight;
      const started = Date.now();
      const closing = t.backend.close();
      slow.release();
      const answer = await pending;
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body)).to.deep.equal({ done: true });
      expect(answer.connection).to.equal('close');
      await closing;
      // Far below the 10 s drain timeout: the server did not wait for the client to hang up.
      expect(Date.now() - started).to.be.below(5_000);
    } finally {
      agent.destroy();
      await t.backend.close();
    }
  });
});

