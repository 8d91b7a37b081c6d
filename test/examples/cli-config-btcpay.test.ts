import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '@wallet/cli';
import { captureIo, eachDialect, freshDatabaseUrl, SECRETS_ENV, useFakes } from '../harness/index.js';
import { btcpayEnv, FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake, INVOICE_PERMISSIONS } from '../fakes/greenfield.js';

eachDialect('wallet-backend config check: BTCPay', (dialect) => {
  const [btcpay] = useFakes(new GreenfieldFake());
  let dataDir = '';
  let env: Record<string, string> = {};
  beforeEach(async () => {
    btcpay.mode = 'normal';
    btcpay.permissions = [...INVOICE_PERMISSIONS];
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-btcpay-'));
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: await freshDatabaseUrl(dialect),
      ...SECRETS_ENV,
      ...btcpayEnv(btcpay),
    };
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = async (over: Record<string, string> = {}, json = false) => {
    const io = captureIo({ ...env, ...over });
    const code = await runCli(['config', 'check', ...(json ? ['--json'] : [])], io);
    expect([...io.stdout, ...io.stderr].join('\n')).not.to.include(FAKE_API_KEY);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };

  it('a key that can create and view invoices on the store passes, and says so', async () => {
    const { code, stdout, stderr } = await run();
    expect(code).to.equal(0);
    expect(stdout.at(-1)).to.equal(`btcpay: the key can create and view invoices on store ${FAKE_STORE_ID}`);
    expect(stderr).to.deep.equal([]);
    expect(btcpay.received.some((req) => req.path === '/api/v1/api-keys/current')).to.equal(true);
  });

  it('a missing permission, a wrong key and an unreachable BTCPay each fail the check (exit 1) with a line naming the setting', async () => {
    btcpay.permissions = [`btcpay.store.cancreateinvoice:${FAKE_STORE_ID}`];
    const missing = await run();
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.deep.equal([
      'error: BTCPay check failed (1 problem)',
      `  - BTCPAY_API_KEY: the key lacks btcpay.store.canviewinvoices for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`,
    ]);
    expect(missing.stdout.join('\n')).not.to.include('configuration is valid');

    const wrongKey = await run({ BTCPAY_API_KEY: 'a-wrong-key-0123456789' });
    expect(wrongKey.code).to.equal(1);
    expect(wrongKey.stderr[1]).to.equal('  - BTCPAY_API_KEY: BTCPay refused the key (401): it is mistyped, revoked or from another BTCPay Server');
    expect(wrongKey.stderr.join('\n')).not.to.include('a-wrong-key-0123456789');

    btcpay.mode = 'down';
    const down = await run();
    expect(down.code).to.equal(1);
    expect(down.stderr[1]).to.equal(`  - BTCPAY_URL: cannot reach ${new URL(btcpay.url).origin} (connection refused, unknown host, TLS error or a redirect)`);
  });

  it('--json: one document on stdout, exit code as without it', async () => {
    const ok = await run({}, true);
    expect(ok.code).to.equal(0);
    expect(ok.stdout).to.have.length(1);
    const document = JSON.parse(ok.stdout[0]!);
    expect(document).to.deep.include({ valid: true, environment: 'development', btcpay: { ok: true, store_name: null, problems: [] } });
    expect(document.database).to.match(/^(sqlite|postgres)/);

    btcpay.permissions = ['btcpay.store.canviewinvoices'];
    const failed = await run({}, true);
    expect(failed.code).to.equal(1);
    expect(failed.stdout).to.have.length(1);
    expect(JSON.parse(failed.stdout[0]!)).to.deep.include({
      valid: false,
      btcpay: { ok: false, store_name: null, problems: [`BTCPAY_API_KEY: the key lacks btcpay.store.cancreateinvoice for store ${FAKE_STORE_ID} (grant it on that store, or unscoped)`] },
    });

    const invalid = await run({ BTCPAY_STORE_ID: 'p6store' }, true);
    expect(invalid.code).to.equal(1);
    const refused = JSON.parse(invalid.stdout[0]!);
    expect(refused).to.include({ valid: false, btcpay: null });
    expect(refused.problems.join('\n')).to.include('BTCPAY_STORE_ID');
  });

  it('without BTCPay configured nothing is asked and the check is as before', async () => {
    btcpay.received.length = 0;
    const { code, stdout } = await run({ REGISTRATION_REQUIRE_PAYMENT: 'false', BTCPAY_URL: '', BTCPAY_STORE_ID: '', BTCPAY_API_KEY: '' }, true);
    expect(code).to.equal(0);
    expect(JSON.parse(stdout[0]!)).to.include({ valid: true, btcpay: null });
    expect(btcpay.received).to.deep.equal([]);
  });
});
