import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { expect } from 'chai';
import { createWalletBackend, type WalletBackend, type WalletPlugin } from '@wallet/backend-core';
import { captureLogger } from '@wallet/backend-core/testing';
import { createTestBackend, eachDialect, freshDatabaseUrl, TEST_PUBLIC_API_URL, TEST_SECRETS, TestClient, type DialectName } from '../../harness/index.js';

/** A plugin with one migration of its own, as a newly installed feature would bring. */
const notesPlugin: WalletPlugin = {
  name: 'notes',
  migrations: [
    {
      id: '001_notes',
      up: async (trx) => {
        await trx.schema.createTable('notes_readiness', (t) => t.string('id', 40).primary());
      },
    },
  ],
  setup() {},
};

/** A backend that is created but NOT migrated, served through its callback (start() refuses an unmigrated database). */
async function unmigrated(databaseUrl: string, plugins: WalletPlugin[] = []) {
  const logger = captureLogger();
  const backend = await createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl, nodeEnv: 'test', ...TEST_SECRETS, logger, plugins, schedulerEnabled: false });
  const server = createHttpServer(backend.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const client = new TestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return { backend, client, logger, close: () => closeAll(server, backend) };
}

async function closeAll(server: Server, backend: WalletBackend): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await backend.close();
}

/** Asks readiness and measures how long the answer took. */
async function ready(client: TestClient) {
  const started = Date.now();
  const response = await client.get('/api/v1/health/ready');
  return { ...response, ms: Date.now() - started };
}

function expectNotReady(response: { status: number; body: any; text: string }, check: 'database' | 'migrations') {
  expect(response.status, response.text).to.equal(503);
  expect(response.body.error.code).to.equal('not_ready');
  expect(response.body.error.details).to.have.length(1);
  expect(response.body.error.details[0].path).to.equal(check);
  expect(response.body.error.request_id).to.be.a('string');
}

eachDialect('readiness (GET /api/v1/health/ready)', (dialect: DialectName) => {
  it('answers 200 {status: ready} on a migrated backend, unlimited and without a token, next to liveness', async () => {
    const t = await createTestBackend(dialect, { settings: { rateLimitMax: 2 } });
    try {
      for (let i = 0; i < 4; i += 1) {
        const response = await ready(t.client);
        expect(response.status, response.text).to.equal(200);
        expect(response.body).to.deep.equal({ status: 'ready' });
      }
      expect((await t.client.get('/api/v1/health')).body).to.deep.equal({ status: 'ok' });
    } finally {
      await t.close();
    }
  });

  it('answers 503 not_ready (migrations) on a database not migrated yet, and 200 once migrate() ran; liveness stays 200', async () => {
    const u = await unmigrated(await freshDatabaseUrl(dialect));
    try {
      const before = await ready(u.client);
      expectNotReady(before, 'migrations');
      expect(before.body.error.details[0].message).to.match(/^\d+ of \d+ migrations pending/);
      expect((await u.client.get('/api/v1/health')).status).to.equal(200);
      await u.backend.migrate();
      expect((await ready(u.client)).status).to.equal(200);
    } finally {
      await u.close();
    }
  });

  it('answers 503 not_ready when a plugin brings a migration not applied yet, naming the count', async () => {
    const first = await createTestBackend(dialect);
    const databaseUrl = first.databaseUrl;
    await first.close();
    const u = await unmigrated(databaseUrl, [notesPlugin]);
    try {
      const response = await ready(u.client);
      expectNotReady(response, 'migrations');
      expect(response.body.error.details[0].message).to.match(/^1 of \d+ migrations pending/);
      expect(await u.backend.migrate()).to.deep.equal(['notes/001_notes']);
      expect((await ready(u.client)).status).to.equal(200);
    } finally {
      await u.close();
    }
  });

  it('answers 503 not_ready (database) at once when the pool is closed, with no driver text in the body', async () => {
    const t = await createTestBackend(dialect);
    try {
      await t.backend.db.knex.destroy();
      const response = await ready(t.client);
      expectNotReady(response, 'database');
      expect(response.ms).to.be.below(1_500);
      expect(response.text).to.not.match(/pool|knex|ECONN|sqlite|postgres/i);
      expect(t.logger.lines.some((line) => line.msg === 'request failed' && line.code === 'not_ready')).to.equal(true);
      expect((await t.client.get('/api/v1/health')).status).to.equal(200);
    } finally {
      await t.close();
    }
  });

  it('answers 503 not_ready (database) within the 2 s bound when the database holds the check (busy connection)', async function () {
    this.timeout(15_000);
    const t = await createTestBackend(dialect, { settings: { databasePoolMax: 1 } });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => {};
    const holding = new Promise<void>((resolve) => (entered = resolve));
    // The only connection is taken by a transaction that does not end: the check waits for it.
    const blocker = t.backend.db.knex.transaction(async () => {
      entered();
      await held;
    });
    try {
      await holding;
      const response = await ready(t.client);
      expectNotReady(response, 'database');
      expect(response.body.error.details[0].message).to.equal('no answer from the database within 2000 ms');
      expect(response.ms).to.be.within(1_900, 3_500);
    } finally {
      release();
      await blocker;
    }
    // Once the connection is free again, the backend is ready again.
    expect((await ready(t.client)).status).to.equal(200);
    await t.close();
  });
});

describe('readiness with an unreachable Postgres', () => {
  const sockets = new Set<Socket>();
  // Accepts TCP and never says a word: a host that swallows the connection.
  const silent = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  before(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('a refused port answers 503 not_ready (database) at once', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const u = await unmigrated(`postgres://postgres@127.0.0.1:${port}/wallet`);
    try {
      const response = await ready(u.client);
      expectNotReady(response, 'database');
      expect(response.ms).to.be.below(1_900);
      expect(response.text).to.not.include('ECONNREFUSED');
    } finally {
      await u.close();
    }
  });

  it('a server that never answers gives 503 not_ready (database) within the 2 s bound, not a hang', async function () {
    this.timeout(15_000);
    const { port } = silent.address() as AddressInfo;
    const u = await unmigrated(`postgres://postgres@127.0.0.1:${port}/wallet`);
    try {
      const response = await ready(u.client);
      expectNotReady(response, 'database');
      expect(response.body.error.details[0].message).to.equal('no answer from the database within 2000 ms');
      expect(response.ms).to.be.within(1_900, 3_500);
    } finally {
      for (const socket of sockets) socket.destroy();
      await u.close();
    }
  });
});
