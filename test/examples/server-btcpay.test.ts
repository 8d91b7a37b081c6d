import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '@wallet/backend-core';
import { startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freshDatabaseUrl, SECRETS_ENV, TestClient, useFakes } from '../harness/index.js';
import { btcpayEnv, FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake, INVOICE_PERMISSIONS } from '../fakes/greenfield.js';

const FAILED = 'btcpay check failed; payments will answer 503 until it is fixed';
const PASSED = 'btcpay check passed';

eachDialect('reference server: BTCPay checked at start-up', (dialect) => {
  const [btcpay] = useFakes(new GreenfieldFake());
  let dataDir = '';
  let running: RunningServer | undefined;
  let lines: string[] = [];
  beforeEach(() => {
    btcpay.mode = 'normal';
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    btcpay.proxyReply = undefined;
    btcpay.hold = undefined;
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-server-btcpay-'));
    lines = [];
  });
  afterEach(async () => {
    btcpay.hold = undefined;
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (over: Record<string, string> = {}) => {
    running = await startServer(
      {
        DATA_DIR: dataDir,
        PORT: '0',
        DATABASE_URL: await freshDatabaseUrl(dialect),
        ...SECRETS_ENV,
        ...btcpayEnv(btcpay),
        ...over,
      },
      { write: (line) => lines.push(line) },
    );
    return new TestClient(running.url);
  };
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const warnings = () => parsed().filter((line) => line.msg === FAILED);
  /** The check runs in the background: its lines come after startServer resolved, when BTCPay answers. */
  const checked = async (timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!parsed().some((line) => line.msg === FAILED || line.msg === PASSED)) {
      if (Date.now() > deadline) expect.fail(`no btcpay check line within ${timeoutMs} ms:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('a key without a needed permission is a warning line per problem; the server starts anyway; the key is never logged', async () => {
    btcpay.permissions = [`btcpay.store.canviewinvoices:${FAKE_STORE_ID}`];
    const client = await start();
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    await checked();
    expect(warnings().map((line) => [line.level, line.problem])).to.deep.equal([
      ['warn', `BTCPAY_API_KEY: the key lacks btcpay.store.cancreateinvoice for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`],
    ]);
    expect(lines.join('\n')).not.to.include(FAKE_API_KEY);
  });

  it('an unreachable BTCPay is a warning, not a refused start', async () => {
    btcpay.mode = 'down';
    const client = await start();
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    await checked();
    expect(warnings()).to.have.length(1);
  });

  it('a sound BTCPay set-up logs that the check passed, and no warning', async () => {
    await start();
    await checked();
    expect(parsed().filter((line) => line.msg === PASSED)).to.have.length(1);
    expect(warnings()).to.deep.equal([]);
  });

  it('startServer does not wait for the check: it resolves and serves while BTCPay has not answered yet', async () => {
    let release!: () => void;
    btcpay.hold = new Promise<void>((resolve) => (release = resolve));
    const client = await start({ UPSTREAM_TIMEOUT_MS: '30000' });
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    expect(parsed().filter((line) => line.msg === FAILED || line.msg === PASSED)).to.deep.equal([]);
    release();
    await checked();
    expect(parsed().filter((line) => line.msg === PASSED)).to.have.length(1);
    expect(warnings()).to.deep.equal([]);
  });

  it('a BTCPAY_URL with a user name or password refuses the start, naming the setting and never the password', async () => {
    const err = await start({ BTCPAY_URL: btcpay.url.replace('http://', 'http://wallet:hunter2@') }).then(
      () => expect.fail('the server started'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(BootError);
    expect((err as BootError).problems).to.deep.equal(['btcpayUrl (BTCPAY_URL): must not carry a user name or password (user:pass@); BTCPay authenticates with BTCPAY_API_KEY']);
    expect(`${(err as Error).message}\n${lines.join('\n')}`).not.to.include('hunter2');
  });
});
