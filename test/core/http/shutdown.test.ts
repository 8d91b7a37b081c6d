import { expect } from 'chai';
import { defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, eachDialect, rejectionOf, TestClient } from '../../harness/index.js';

/** A route that answers only when released, to hold a request in flight. */
function slowPlugin() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const plugin: WalletPlugin = {
    name: 'slow',
    setup(ctx) {
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/slow',
          summary: 'Answers when released',
          auth: 'none',
          handler: async () => {
            entered();
            await released;
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
});
