import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '@wallet/server';
import { launchChromium, watchPage } from '../harness/browser.js';
import { eachDialect, freePort, freshDatabaseUrl, SECRETS_ENV } from '../harness/index.js';

const SCREENSHOTS = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A NIP-07 provider for the page: `window.nostr` forwards to functions exposed from Node, so the
 * secret key never enters the page, as with a real extension.
 */
const NIP07 = `window.nostr = {
  getPublicKey: () => window.__testNip07GetPublicKey(),
  signEvent: (event) => window.__testNip07SignEvent(event),
};`;

eachDialect('admin console in headless Chromium, against the reference server', (dialect) => {
  let browser: Browser;
  let api: RunningServer;
  let apiUrl: string;
  let dataDir: string;
  const owner = generateSecretKey();
  let ownerToken: string;
  const problems: string[] = [];
  /** Tokens the page got from POST /admin/login, newest last (to check that logout ends the session). */
  const pageTokens: string[] = [];

  before(async function () {
    this.timeout(60_000);
    browser = await launchChromium(this);
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-console-'));
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    api = await startServer(
      { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_API_URL: apiUrl, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV, ADMIN_CONSOLE_ENABLED: 'true' },
      { write: () => undefined },
    );
    await api.backend.setup.bootstrap(getPublicKey(owner));
    ownerToken = await apiLogin(owner);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(problems.splice(0), 'no page error, no console error (a CSP violation is one), no failed console file').to.deep.equal([]);
  });

  /** The admin login of docs/admin.md, done from Node (computed here, not taken from the page). */
  async function apiLogin(secret: Uint8Array): Promise<string> {
    const { nonce } = (await (await fetch(`${apiUrl}/api/v1/admin/login-challenge`)).json()) as { nonce: string };
    const event = finalizeEvent(
      {
        kind: 27235,
        created_at: Math.floor(Date.now() / 1000),
        content: '',
        tags: [['u', `${apiUrl}/api/v1/admin/login`], ['method', 'POST'], ['nonce', nonce], ['purpose', 'admin_login'], ['descriptor', sha(`POST\n/api/v1/admin/login\n\n${sha('')}`)]],
      },
      secret,
    );
    const res = await fetch(`${apiUrl}/api/v1/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nostr_token: Buffer.from(JSON.stringify(event)).toString('base64'), nonce }),
    });
    if (res.status !== 200) throw new Error(`admin login answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  }

  async function admin(method: string, path: string, body?: unknown, token = ownerToken): Promise<{ status: number; body: any }> {
    const res = await fetch(`${apiUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }

  /** A fresh browser context holding `secret` in its NIP-07 provider, at the console. */
  async function open(secret: Uint8Array, viewport = PHONE): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    // Chromium logs every 4xx answer to fetch as a failed resource; the API's refusals are expected
    // here (the page shows them). A file of the console itself that fails is a problem.
    watchPage(page, problems, (text) => /^Failed to load resource: the server responded with a status of (400|401|404|409)/.test(text));
    page.on('response', (res) => {
      if (res.url().includes('/admin-console/') && res.status() !== 200) problems.push(`console file ${res.url()} answered ${res.status()}`);
      if (res.url() === `${apiUrl}/api/v1/admin/login` && res.status() === 200) void res.json().then((body: { token: string }) => pageTokens.push(body.token));
    });
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
    await page.exposeFunction('__testNip07GetPublicKey', () => getPublicKey(secret));
    await page.exposeFunction('__testNip07SignEvent', (template: Parameters<typeof finalizeEvent>[0]) => finalizeEvent(template, secret));
    await page.addInitScript({ content: NIP07 });
    await page.goto(`${apiUrl}/admin-console/`);
    return page;
  }

  async function logIn(page: Page, scope: 'full' | 'read'): Promise<void> {
    await page.click('#login');
    await page.locator('#session', { hasText: new RegExp(`^Logged in: ${scope} admin`) }).waitFor({ timeout: 10_000 });
  }

  const shoot = async (page: Page, name: string) => {
    // Taken once (SQLite run), only when asked: the files are committed.
    if (process.env.WALLET_SCREENSHOTS !== '1' || dialect !== 'sqlite') return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `admin-console-${name}.png`), fullPage: true });
  };

  /** No horizontal page scroll at the phone's width. */
  const fitsPhone = async (page: Page) => expect(await page.evaluate('document.documentElement.scrollWidth')).to.be.at.most(PHONE.width);

  it('a full admin logs in, adds a read key, changes a landing setting, sees it audited, verifies the chain and logs out', async function () {
    this.timeout(90_000);
    const page = await open(owner);
    await shoot(page, 'phone-1-login');
    await logIn(page, 'full');
    await page.waitForSelector('#keys-list table');
    await fitsPhone(page);

    // Bad input: the API's own message and code, and nothing is added.
    const keysBefore = (await admin('GET', '/admin/keys')).body.keys.length;
    const refused = await admin('POST', '/admin/keys', { pubkey: 'not-a-key', scope: 'read' });
    expect(refused.status).to.equal(400);
    await page.fill('#key-pubkey', 'not-a-key');
    await page.selectOption('#key-scope', 'read');
    await page.click('#key-add');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error p')).to.equal(`${refused.body.error.message} [invalid_request]`);
    expect(await page.textContent('#error li')).to.equal(`${refused.body.error.details[0].path}: ${refused.body.error.details[0].message}`);
    expect((await admin('GET', '/admin/keys')).body.keys.length).to.equal(keysBefore);

    const reader = getPublicKey(generateSecretKey());
    await page.fill('#key-pubkey', reader);
    await page.click('#key-add');
    await page.locator('#notice', { hasText: 'added with scope read' }).waitFor();
    await page.locator('#keys-list td', { hasText: reader }).waitFor();
    const added = (await admin('GET', '/admin/keys')).body.keys.find((key: { pubkey: string }) => key.pubkey === reader);
    expect([added.scope, added.activated_at, added.revoked_at]).to.deep.equal(['read', null, null]);
    expect(await page.isHidden('#error')).to.equal(true);
    await shoot(page, 'phone-2-keys');

    await page.click('#nav-settings');
    await page.waitForSelector('#setting-title');
    const title = `Console ${dialect} ${Date.now().toString(36)}`;
    await page.fill('#setting-title', title);
    await page.click('#settings-save');
    await page.locator('#notice', { hasText: 'Saved the landing section' }).waitFor();
    expect(await page.textContent('#settings-effective')).to.contain(title);
    expect(((await (await fetch(`${apiUrl}/api/v1/landing`)).json()) as { title: string }).title).to.equal(title);
    // One bad field refuses the whole write: the good field beside it is not applied either.
    await page.fill('#setting-title', 'never applied');
    await page.fill('#setting-contact_url', 'not a url');
    await page.click('#settings-save');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error p')).to.match(/\[invalid_request\]$/);
    expect(((await (await fetch(`${apiUrl}/api/v1/landing`)).json()) as { title: string }).title).to.equal(title);
    await fitsPhone(page);
    await shoot(page, 'phone-3-settings');

    await page.click('#nav-audit');
    await page.waitForSelector('#audit-list table');
    const entries = (await admin('GET', '/admin/audit')).body.entries as { action: string; details: unknown }[];
    const settingsEntry = entries.find((entry) => entry.action === 'operator_settings_updated')!;
    expect(JSON.stringify(settingsEntry.details)).to.contain(title);
    expect(await page.locator('#audit-list td', { hasText: 'operator_settings_updated' }).count()).to.equal(1);
    expect(await page.locator('#audit-list td', { hasText: title }).count()).to.be.greaterThan(0);
    await page.fill('#audit-filter', 'admin_key_created');
    expect(await page.textContent('#audit-list p')).to.equal(`1 of ${entries.length} entries on this page (after seq 0)`);
    await page.fill('#audit-filter', '');
    await page.click('#audit-verify');
    await page.waitForSelector('#verify-summary, #verify-result .off, #verify-result .bad');
    const verify = await admin('GET', '/admin/audit/verify');
    expect(verify.body).to.include({ ok: true });
    expect(await page.textContent('#verify-summary')).to.equal(`Chain verified: ok (${verify.body.entries} entries).`);
    await fitsPhone(page);
    await shoot(page, 'phone-4-audit');

    // A feature that is off says so (tips are off on this server).
    await page.click('#nav-tips');
    await page.locator('#tips-out .off', { hasText: 'This feature is off on this server' }).waitFor();

    await page.click('#logout');
    await page.waitForSelector('#login-view:not([hidden])');
    expect(await page.isHidden('#console-view')).to.equal(true);
    expect(await page.textContent('#notice')).to.equal('Logged out.');
    expect((await admin('GET', '/admin/me', undefined, pageTokens.at(-1))).status, 'the session ended on the server').to.equal(401);
    await page.context().close();

    if (process.env.WALLET_SCREENSHOTS === '1' && dialect === 'sqlite') {
      const wide = await open(owner, DESKTOP);
      await logIn(wide, 'full');
      await wide.waitForSelector('#keys-list table');
      await shoot(wide, 'desktop-1-keys');
      await wide.click('#nav-audit');
      await wide.waitForSelector('#audit-list table');
      await shoot(wide, 'desktop-2-audit');
      await wide.context().close();
    }
  });

  it('a read-scope admin sees every view with every state-changing control disabled', async function () {
    this.timeout(60_000);
    const reader = generateSecretKey();
    expect((await admin('POST', '/admin/keys', { pubkey: getPublicKey(reader), scope: 'read' })).status).to.equal(201);
    const page = await open(reader);
    await logIn(page, 'read');
    await page.locator('#notice', { hasText: 'read scope' }).waitFor();
    await page.waitForSelector('#keys-list table');
    const checkDisabled = async (view: string) => {
      const controls = page.locator('#view [data-write]');
      const count = await controls.count();
      for (let i = 0; i < count; i++) expect(await controls.nth(i).isDisabled(), `${view}: control ${i}`).to.equal(true);
      return count;
    };
    // Keys: the add form and every revoke button.
    expect(await checkDisabled('keys')).to.be.at.least(3 + 2);
    await page.click('#nav-settings');
    await page.waitForSelector('#setting-title');
    expect(await page.isDisabled('#settings-save')).to.equal(true);
    expect(await checkDisabled('settings')).to.be.at.least(5);
    await page.click('#nav-invites');
    expect(await page.isDisabled('#invite-create')).to.equal(true);
    await checkDisabled('invites');
    await page.click('#nav-audit');
    await page.waitForSelector('#audit-list table');
    expect(await page.isDisabled('#audit-load')).to.equal(false);
    // Reading works in every other view: the system report, a user search, the premium list.
    await page.click('#nav-system');
    await page.waitForSelector('#system-out dl');
    await page.click('#nav-users');
    await page.fill('#users-q', 'nobody-has-this-name');
    await page.click('#users-find');
    await page.waitForSelector('#users-list dl, #users-list .off');
    await page.click('#nav-premium');
    await page.click('#premium-load');
    await page.waitForSelector('#premium-out .off');
    await page.click('#nav-users');
    for (const view of ['users', 'tips', 'erasure']) {
      await page.click(`#nav-${view}`);
      await checkDisabled(view);
    }
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });

  it('a session that ends (its key revoked) returns to the login view with the API’s message', async function () {
    this.timeout(60_000);
    const holder = generateSecretKey();
    const created = await admin('POST', '/admin/keys', { pubkey: getPublicKey(holder), scope: 'full' });
    expect(created.status).to.equal(201);
    const page = await open(holder);
    await logIn(page, 'full');
    await page.waitForSelector('#keys-list table');
    expect((await admin('POST', `/admin/keys/${created.body.id}/revoke`)).status).to.equal(200);
    const ended = await admin('GET', '/admin/me', undefined, pageTokens.at(-1));
    expect([ended.status, ended.body.error.code]).to.deep.equal([401, 'admin_unauthorized']);
    await page.click('#nav-settings');
    await page.waitForSelector('#login-view:not([hidden])');
    expect(await page.isHidden('#console-view')).to.equal(true);
    expect(await page.textContent('#error p')).to.equal(`Your session ended; log in again. ${ended.body.error.message} [admin_unauthorized]`);
    expect(await page.textContent('#session')).to.equal('Not logged in');
    await page.context().close();
  });

  it('a list pages by next_after: "Next page" asks for after=<next_after> and the last page offers none', async function () {
    this.timeout(60_000);
    // 101 invites: one more than the default page of 100.
    for (const count of [100, 1]) expect((await admin('POST', '/admin/invites', { count, label: 'paging' })).status).to.equal(201);
    const first = await admin('GET', '/admin/invites?state=unused');
    expect([first.body.invites.length, typeof first.body.next_after]).to.deep.equal([100, 'string']);
    const page = await open(owner);
    await logIn(page, 'full');
    await page.click('#nav-invites');
    await page.fill('#invite-state', 'unused');
    await page.click('#invites-load');
    await page.locator('#invites-list tbody tr').nth(99).waitFor();
    expect(await page.locator('#invites-list tbody tr').count()).to.equal(100);
    const asked = page.waitForRequest((req) => req.url().startsWith(`${apiUrl}/api/v1/admin/invites?`));
    await page.click('#invites-list button:text-is("Next page")');
    const url = new URL((await asked).url());
    expect([url.searchParams.get('state'), url.searchParams.get('after'), url.searchParams.has('cursor')]).to.deep.equal(['unused', first.body.next_after, false]);
    await page.locator('#invites-list tbody tr').nth(0).waitFor();
    await page.waitForFunction("document.querySelectorAll('#invites-list tbody tr').length === 1");
    expect(await page.locator('#invites-list button:text-is("Next page")').count(), 'the last page has no next').to.equal(0);
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });
});
