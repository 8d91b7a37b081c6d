import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freshDatabaseUrl, SECRETS_ENV, TestClient } from '../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake, INVOICE_PERMISSIONS } from '../fakes/greenfield.js';

eachDialect('reference server: BTCPay checked at start-up', (dialect) => {
  const btcpay = new GreenfieldFake();
  before(() => btcpay.start());
  after(() => btcpay.close());
  let dataDir = '';
  let running: RunningServer | undefined;
  let lines: string[] = [];
  beforeEach(() => {
    btcpay.mode = 'normal';
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-server-btcpay-'));
    lines = [];
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    running = await startServer(
      {
        DATA_DIR: dataDir,
        PORT: '0',
        DATABASE_URL: await freshDatabaseUrl(dialect),
        ...SECRETS_ENV,
        REGISTRATION_REQUIRE_PAYMENT: 'true',
        REGISTRATION_PRICE: '0.0001',
        BTCPAY_URL: btcpay.url,
        BTCPAY_STORE_ID: FAKE_STORE_ID,
        BTCPAY_API_KEY: FAKE_API_KEY,
        UPSTREAM_TIMEOUT_MS: '300',
      },
      { write: (line) => lines.push(line) },
    );
    return new TestClient(running.url);
  };
  const warnings = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'btcpay check failed; payments will answer 503 until it is fixed');

  it('a key without a needed permission is a warning line per problem; the server starts anyway; the key is never logged', async () => {
    btcpay.permissions = [`btcpay.store.canviewinvoices:${FAKE_STORE_ID}`];
    const client = await start();
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    expect(warnings().map((line) => [line.level, line.problem])).to.deep.equal([
      ['warn', `BTCPAY_API_KEY: the key lacks btcpay.store.cancreateinvoice for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`],
    ]);
    expect(lines.join('\n')).not.to.include(FAKE_API_KEY);
  });

  it('an unreachable BTCPay is a warning, not a refused start', async () => {
    btcpay.mode = 'down';
    const client = await start();
    expect((await client.get('/api/v1/health')).status).to.equal(200);
    expect(warnings()).to.have.length(1);
  });

  it('a sound BTCPay set-up logs no warning', async () => {
    await start();
    expect(warnings()).to.deep.equal([]);
  });
});
