import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '@wallet/server';
import { startWebWallet } from '../../examples/web-wallet/serve.mjs';
import { EsploraFake } from '../fakes/esplora.js';
import { launchChromium, watchPage } from '../harness/browser.js';
import { eachDialect, freePort, freshDatabaseUrl, SECRETS_ENV, useFakes } from '../harness/index.js';

const SCREENSHOTS = fileURLToPath(new URL('../../docs/images/', import.meta.url));

eachDialect('examples/web-wallet in headless Chromium, against the reference server', (dialect) => {
  const [esplora] = useFakes(new EsploraFake());
  let browser: Browser;
  let api: RunningServer;
  let wallet: { url: string; close(): Promise<void> };
  let dataDir: string;
  const problems: string[] = [];

  before(async function () {
    this.timeout(60_000);
    browser = await launchChromium(this);
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-web-'));
    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    wallet = await startWebWallet({ apiUrl });
    api = await startServer(
      {
        DATA_DIR: dataDir,
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        PUBLIC_API_URL: apiUrl,
        DATABASE_URL: await freshDatabaseUrl(dialect),
        ...SECRETS_ENV,
        CORS_ORIGINS: wallet.url,
        FEATURE_TIPS: 'true',
        TIP_SHARE_BASE: `${wallet.url}/tip/`,
        BTC_ESPLORA_URL: esplora.url,
      },
      { write: () => undefined },
    );
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    await wallet?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(path = '/'): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    // A refused request is logged by Chromium as a failed resource (the test provokes one); anything else is a problem (a CSP violation is "Refused to …").
    watchPage(page, problems, (text) => text.startsWith('Failed to load resource: the server responded with a status of 400'));
    await page.goto(`${wallet.url}${path}`);
    return page;
  }

  const shoot = async (page: Page, name: string) => {
    if (process.env.WALLET_UPDATE_SCREENSHOTS !== '1' || dialect !== 'sqlite') return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `web-wallet-${name}.png`), fullPage: true });
  };

  it('registers with a key made in the page, sets a username, creates a public tip and opens its claim link', async function () {
    this.timeout(60_000);
    const page = await open();
    await shoot(page, '1-start');
    await page.click('#register');
    // Locators, not evaluated strings: the page's CSP refuses eval, as it should.
    await page.locator('#session', { hasText: /^Logged in/ }).waitFor({ timeout: 10_000 });
    expect(await page.textContent('#session')).to.match(/^Logged in: account [0-9a-f-]{36}, npub key [0-9a-f]{12}…$/);

    // Bad input shows the API's own message and code, and nothing is set.
    await page.fill('#username', 'no spaces allowed');
    await page.click('#username-form button');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).to.equal('A username is 3 to 30 characters: a-z, 0-9 and underscore. [username_invalid]');
    expect(await page.textContent('#username-result')).to.equal('');

    const username = `web${Date.now().toString(36)}`;
    await page.fill('#username', username);
    await page.click('#username-form button');
    await page.locator('#username-result', { hasText: /\S/ }).waitFor();
    expect(await page.textContent('#username-result')).to.equal(`Your username is ${username}.`);
    await shoot(page, '2-username');
    // The server has it: the public lookup answers for the handle.
    expect((await fetch(`${api.url}/api/v1/usernames/${username}`)).status).to.equal(200);

    await page.fill('#amount', '25000');
    await page.click('#tip-form button');
    await page.waitForSelector('#claim-link:not([hidden]), #error:not([hidden])');
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    const link = (await page.getAttribute('#claim-link', 'href'))!;
    expect(link).to.match(new RegExp(`^${wallet.url.replace(/[.]/g, '\\.')}/tip/[^#]+#[0-9a-f]{64}$`));
    await shoot(page, '3-tip');

    await page.click('#claim-link');
    await page.waitForSelector('#tip-view:not([hidden])');
    expect(await page.textContent('#tip-asset')).to.equal('BTC');
    expect(await page.textContent('#tip-amount')).to.equal('25000');
    expect(await page.textContent('#tip-status')).to.equal('draft');
    expect(await page.textContent('#tip-claimable')).to.match(/^not yet/);
    expect(await page.textContent('#tip-secret')).to.equal('32 bytes, kept in this page');
    await shoot(page, '4-claim-link');
    expect(problems, 'no page error and no console error (a CSP violation is one)').to.deep.equal([]);
    await page.close();
  });
});
