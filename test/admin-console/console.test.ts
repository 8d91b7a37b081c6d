import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { nip19 } from 'nostr-tools';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '@wallet/server';
import { launchChromium, watchPage } from '../harness/browser.js';
import { BtcKey, eachDialect, freePort, freshDatabaseUrl, SECRETS_ENV } from '../harness/index.js';

const SCREENSHOTS = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** The rows of the first table under `selector` as `{column: cell text}` (a string, so nothing of the test's compiled code reaches the page). */
const TABLE_ROWS = (selector: string) => `(() => {
  const table = document.querySelector(${JSON.stringify(selector)} + ' table');
  if (table === null) return [];
  const heads = [...table.querySelectorAll(':scope > thead > tr > th')].map((th) => th.textContent);
  return [...table.querySelectorAll(':scope > tbody > tr')].map((tr) => Object.fromEntries([...tr.children].map((td, i) => [heads[i], td.textContent])));
})()`;
/** The text of `key` in the definition list that is a direct child of `selector`. */
const DL_VALUE = (selector: string, key: string) => `(() => {
  const dt = [...document.querySelectorAll(${JSON.stringify(selector)} + ' > dl > dt')].find((node) => node.textContent === ${JSON.stringify(key)});
  return dt ? dt.nextElementSibling.textContent : null;
})()`;
/**
 * Polls `expression` in the page until it is true. (page.waitForFunction with a string evaluates it
 * with eval on every poll after the first, which the console's CSP refuses; page.evaluate is not eval.)
 */
async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await page.evaluate(expression)) !== true) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** Everything the page shows or holds in a field. */
const PAGE_TEXT = `document.body.innerText + '\\n' + [...document.querySelectorAll('input')].map((node) => node.value).join('\\n')`;

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
      { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_API_URL: apiUrl, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV, ADMIN_CONSOLE_ENABLED: 'true', REGISTRATION_REQUIRE_INVITE: 'true' },
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

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const res = await fetch(`${apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  /** A new wallet through the extension login of docs/wallet-integration.md (message written out here), presenting `inviteCode`. */
  async function registerWallet(inviteCode: string): Promise<{ status: number; body: any }> {
    const btc = new BtcKey();
    const timestamp = Math.floor(Date.now() / 1000);
    const message = ['Wallet Backend login', `service: ${apiUrl}`, `pubkey_hash: ${btc.pubkeyHash}`, `timestamp: ${timestamp}`].join('\n');
    return post('/api/v1/auth/extension', {
      pubkey_hash: btc.pubkeyHash,
      seed_fingerprint: randomBytes(8).toString('hex'),
      keys: [{ asset: 'btc', public_key: btc.publicKeyHex }],
      timestamp,
      signature: btc.signMessage(message),
      invite_code: inviteCode,
    });
  }

  /** An account registered through the API by its Nostr key (with an invite minted over the admin API), which then takes `username`. */
  async function nostrAccount(username: string): Promise<{ secret: Uint8Array; pubkey: string; userId: string; access: string }> {
    const secret = generateSecretKey();
    const minted = await admin('POST', '/admin/invites', { count: 1, label: 'seeded account' });
    const path = '/api/v1/auth/nostr/register';
    const { nonce } = (await (await fetch(`${apiUrl}${path}-challenge`)).json()) as { nonce: string };
    const event = finalizeEvent(
      {
        kind: 27235,
        created_at: Math.floor(Date.now() / 1000),
        content: '',
        tags: [['u', `${apiUrl}${path}`], ['method', 'POST'], ['nonce', nonce], ['purpose', 'nostr_register'], ['descriptor', sha(`POST\n${path}\n\n${sha('')}`)]],
      },
      secret,
    );
    const registered = await post(path, { nostr_token: base64(event), nonce, seed_fingerprint: randomBytes(8).toString('hex'), invite_code: minted.body.invites[0].code });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(200);
    const access = registered.body.access_token as string;
    const named = await post('/api/v1/users/me/username', { username }, { authorization: `Bearer ${access}` });
    expect(named.status, JSON.stringify(named.body)).to.equal(200);
    return { secret, pubkey: getPublicKey(secret), userId: registered.body.user_id, access };
  }

  /** POST /auth/nostr with a NIP-98 header made here. */
  async function nostrLogin(secret: Uint8Array): Promise<{ status: number; body: any }> {
    const path = '/api/v1/auth/nostr';
    const event = finalizeEvent({ kind: 27235, created_at: Math.floor(Date.now() / 1000), content: '', tags: [['u', `${apiUrl}${path}`], ['method', 'POST']] }, secret);
    const res = await fetch(`${apiUrl}${path}`, { method: 'POST', headers: { authorization: `Nostr ${base64(event)}` } });
    return { status: res.status, body: await res.json() };
  }

  /** The newest audit seq: a view loaded "after" it shows only what a test did. */
  async function auditHead(): Promise<number> {
    const row = (await api.backend.db.knex('admin_audit').max({ seq: 'seq' }).first()) as { seq: number | string | null };
    return Number(row.seq ?? 0);
  }

  /** Every row of every table an admin action could change, in a stable order. */
  async function snapshot(): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const table of ['admin_audit', 'admin_audit_head', 'admin_keys', 'admin_sessions', 'invite_codes', 'operator_settings', 'server_config', 'users', 'sessions']) {
      out[table] = ((await api.backend.db.knex(table).select()) as unknown[]).map((row) => JSON.stringify(row)).sort();
    }
    return out;
  }

  /** The audit view, loaded after `seq`, filtered to `needle`: the rows it shows. */
  async function auditRows(page: Page, seq: number, needle: string): Promise<Record<string, string>[]> {
    await page.click('#nav-audit');
    await page.waitForSelector('#audit-list table, #audit-list .muted:text-is("none")');
    await page.fill('#audit-after', String(seq));
    const loaded = page.waitForResponse((res) => res.url().startsWith(`${apiUrl}/api/v1/admin/audit?`) && res.url().includes(`after_seq=${seq}`));
    await page.click('#audit-load');
    await loaded;
    await page.locator('#audit-list p', { hasText: `after seq ${seq})` }).waitFor();
    await page.fill('#audit-filter', needle);
    return (await page.evaluate(TABLE_ROWS('#audit-list'))) as Record<string, string>[];
  }

  /** A fresh browser context holding `secret` in its NIP-07 provider, at the console. */
  async function open(secret: Uint8Array, viewport = PHONE): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    // Chromium logs every 4xx answer to fetch as a failed resource; the API's refusals are expected
    // here (the page shows them). A file of the console itself that fails is a problem.
    watchPage(page, problems, (text) => /^Failed to load resource: the server responded with a status of (400|401|403|404|409)/.test(text));
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
    const before = pageTokens.length;
    await page.click('#login');
    await page.locator('#session', { hasText: new RegExp(`^Logged in: ${scope} admin`) }).waitFor({ timeout: 10_000 });
    // The login's token is read from its response off the page's events and can land after the page shows the session: wait for it, so pageTokens.at(-1) is this login's.
    for (const started = Date.now(); pageTokens.length === before; await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() - started > 10_000) throw new Error('the page logged in but its login answer was not seen');
    }
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
    // The server's exact filter: only that action's entries come back.
    await page.fill('#audit-action', 'admin_login');
    await page.click('#audit-load');
    const logins = (await admin('GET', '/admin/audit?action=admin_login')).body.entries as unknown[];
    await page.locator('#audit-list p', { hasText: `${logins.length} of ${logins.length} entries on this page` }).waitFor();
    expect(await page.locator('#audit-list td', { hasText: 'operator_settings_updated' }).count()).to.equal(0);
    await page.fill('#audit-action', '');
    await page.click('#audit-load');
    await page.locator('#audit-list p', { hasText: `${entries.length} of ${entries.length} entries on this page` }).waitFor();
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

  it('a read-scope admin sees every view with every state-changing control disabled, and changes nothing even through a control forced on', async function () {
    this.timeout(60_000);
    const username = `reader_sees_${dialect}_${Date.now().toString(36)}`.slice(0, 30);
    const account = await nostrAccount(username);
    const reader = generateSecretKey();
    expect((await admin('POST', '/admin/keys', { pubkey: getPublicKey(reader), scope: 'read' })).status).to.equal(201);
    const page = await open(reader);
    await logIn(page, 'read');
    await page.locator('#notice', { hasText: 'read scope' }).waitFor();
    await page.waitForSelector('#keys-list table');
    // From here on nothing may change: no audit entry, no row of any table an admin action writes.
    const before = await snapshot();
    const forbidden = await admin('PUT', '/admin/config/landing', { title: 'never' }, pageTokens.at(-1));
    expect([forbidden.status, forbidden.body.error.code]).to.deep.equal([403, 'admin_forbidden']);
    const checkDisabled = async (view: string) => {
      const controls = page.locator('#view [data-write]');
      const count = await controls.count();
      for (let i = 0; i < count; i++) expect(await controls.nth(i).isDisabled(), `${view}: control ${i}`).to.equal(true);
      return count;
    };
    /**
     * Forces the view's disabled controls on (as a user could in the developer tools) and runs the
     * page's own code path: the API refuses it with its message, and the control is disabled again.
     */
    const forced = async (view: string, submit: string, fill: () => Promise<void>, clicks = 1) => {
      await page.evaluate(`document.querySelectorAll('#view [data-write]').forEach((node) => { node.disabled = false; })`);
      await fill();
      for (let i = 0; i < clicks; i++) await page.click(submit);
      await page.waitForSelector('#error:not([hidden])');
      expect(await page.textContent('#error p'), view).to.equal(`${forbidden.body.error.message} [admin_forbidden]`);
      expect(await page.isDisabled(submit), `${view}: disabled again`).to.equal(true);
    };
    // Keys: the add form and every revoke button.
    expect(await checkDisabled('keys')).to.be.at.least(3 + 2);
    await forced('keys', '#key-add', () => page.fill('#key-pubkey', getPublicKey(generateSecretKey())));
    await page.click('#nav-settings');
    await page.waitForSelector('#setting-title');
    expect(await page.isDisabled('#settings-save')).to.equal(true);
    expect(await checkDisabled('settings')).to.be.at.least(5);
    await forced('settings', '#settings-save', () => page.fill('#setting-title', 'a read key wrote this'));
    await page.click('#nav-invites');
    expect(await page.isDisabled('#invite-create')).to.equal(true);
    await checkDisabled('invites');
    await forced('invites', '#invite-create', () => page.fill('#invite-count', '2'));
    await page.click('#nav-audit');
    await page.waitForSelector('#audit-list table');
    expect(await page.isDisabled('#audit-load')).to.equal(false);
    // Reading works in every other view: the system report, a user search and view, the premium list.
    await page.click('#nav-system');
    await page.waitForSelector('#system-out dl');
    await page.click('#nav-users');
    await page.fill('#users-q', 'nobody-has-this-name');
    await page.click('#users-find');
    await page.waitForSelector('#users-list dl, #users-list .off');
    await page.fill('#users-q', username);
    await page.click('#users-find');
    await page.waitForSelector('#users-list table');
    await page.click('#users-list tbody tr button:text-is("Open")');
    await page.locator('#user-detail h3', { hasText: `User ${account.userId}` }).waitFor();
    await page.waitForSelector('#user-detail > dl');
    expect([await page.isDisabled('#user-suspend'), await page.isDisabled('#user-reinstate'), await page.isDisabled('#user-reason')]).to.deep.equal([true, true, true]);
    await forced('users', '#user-suspend', () => page.fill('#user-reason', 'a read key suspends'), 2);
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
    expect(await snapshot(), 'nothing changed').to.deep.equal(before);
    expect((await fetch(`${apiUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${account.access}` } })).status, 'the account is untouched').to.equal(200);
  });

  /** The page's next action finds its session gone: the login view, with the API's message. */
  async function expectBackAtLogin(page: Page, apiMessage: string): Promise<void> {
    await page.click('#nav-settings');
    await page.waitForSelector('#login-view:not([hidden])');
    expect(await page.isHidden('#console-view')).to.equal(true);
    expect(await page.textContent('#error p')).to.equal(`Your session ended; log in again. ${apiMessage} [admin_unauthorized]`);
    expect(await page.textContent('#session')).to.equal('Not logged in');
  }

  /** A new full admin key, its holder's page logged in and showing the keys. */
  async function freshFullAdminPage(): Promise<{ page: Page; keyId: string }> {
    const holder = generateSecretKey();
    const created = await admin('POST', '/admin/keys', { pubkey: getPublicKey(holder), scope: 'full' });
    expect(created.status).to.equal(201);
    const page = await open(holder);
    await logIn(page, 'full');
    await page.waitForSelector('#keys-list table');
    return { page, keyId: created.body.id as string };
  }

  it('a session that ends (its key revoked) returns to the login view with the API’s message', async function () {
    this.timeout(60_000);
    const { page, keyId } = await freshFullAdminPage();
    expect((await admin('POST', `/admin/keys/${keyId}/revoke`)).status).to.equal(200);
    const ended = await admin('GET', '/admin/me', undefined, pageTokens.at(-1));
    expect([ended.status, ended.body.error.code]).to.deep.equal([401, 'admin_unauthorized']);
    await expectBackAtLogin(page, ended.body.error.message);
    await page.context().close();
  });

  it('a full admin mints invites (codes shown once, each really registers a wallet), sees them unused then used, revokes one, and the audit view has both, never a code', async function () {
    this.timeout(60_000);
    const page = await open(owner);
    await logIn(page, 'full');
    const seq = await auditHead();
    await page.click('#nav-invites');
    await page.fill('#invite-count', '3');
    const label = `batch ${dialect} ${Date.now().toString(36)}`;
    await page.fill('#invite-label', label);
    await page.click('#invite-create');
    await page.locator('#notice', { hasText: '3 invite(s) created.' }).waitFor();
    expect(await page.textContent('#invites-created .once p')).to.equal('Shown once: copy these codes now. The server keeps no way to show them again.');
    // Every API answer the page gets from here on: none may carry a code.
    const answers: Promise<string>[] = [];
    page.on('response', (res) => {
      if (res.url().startsWith(`${apiUrl}/api/`)) answers.push(res.text().catch(() => ''));
    });
    const minted = (await page.evaluate(TABLE_ROWS('#invites-created'))) as Record<string, string>[];
    expect(minted.map((row) => [row.label, row.expires_at])).to.deep.equal([[label, '—'], [label, '—'], [label, '—']]);
    const codes = minted.map((row) => row.code!);
    const ids = minted.map((row) => row.id!);
    expect(new Set(codes).size).to.equal(3);
    await fitsPhone(page);
    await shoot(page, 'phone-6-invites');
    // What the page shows is what was stored: one row per code, by sha256(code), unused.
    const stored = (await api.backend.db.knex('invite_codes').whereIn('code_hash', codes.map(sha)).select('id', 'code_hash', 'label', 'used_at', 'revoked_at')) as { id: string; code_hash: string; label: string; used_at: unknown; revoked_at: unknown }[];
    expect(codes.map((code) => stored.find((row) => row.code_hash === sha(code))).map((row) => row && [row.id, row.label, row.used_at, row.revoked_at])).to.deep.equal(
      ids.map((id) => [id, label, null, null]),
    );
    const listed = async () => {
      const rows = (await page.evaluate(TABLE_ROWS('#invites-list'))) as Record<string, string>[];
      return ids.map((id) => rows.find((row) => row.id === id)?.state);
    };
    const list = async () => {
      const loaded = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/v1/admin/invites' && res.request().method() === 'GET');
      await page.click('#invites-load');
      await loaded;
      await page.waitForSelector('#invites-list table');
    };
    await list();
    expect(await listed()).to.deep.equal(['unused', 'unused', 'unused']);

    // The first code registers a wallet; the list then shows it used.
    const first = await registerWallet(codes[0]!);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    await list();
    expect(await listed()).to.deep.equal(['used', 'unused', 'unused']);

    // Revoke the second: the first click only arms the button.
    const revoke = page.locator('#invites-list tbody tr', { hasText: ids[1]! }).locator('button');
    await revoke.click();
    expect(await revoke.textContent()).to.equal('Confirm: revoke');
    expect((await api.backend.db.knex('invite_codes').where({ id: ids[1] }).first('revoked_at')).revoked_at, 'not before the confirm click').to.equal(null);
    await revoke.click();
    await page.locator('#notice', { hasText: `Invite ${ids[1]} revoked.` }).waitFor();
    await until(page, `${TABLE_ROWS('#invites-list')}.some((row) => row.id === ${JSON.stringify(ids[1])} && row.state === 'revoked')`);
    expect(await listed()).to.deep.equal(['used', 'revoked', 'unused']);
    expect((await api.backend.db.knex('invite_codes').where({ id: ids[1] }).first('revoked_at')).revoked_at).to.not.equal(null);
    const refused = await registerWallet(codes[1]!);
    expect([refused.status, refused.body.error.code], 'a revoked code registers nothing').to.deep.equal([400, 'invite_invalid']);
    const third = await registerWallet(codes[2]!);
    expect(third.status, JSON.stringify(third.body)).to.equal(200);
    await list();
    expect(await listed()).to.deep.equal(['used', 'revoked', 'used']);
    const viaApi = (await admin('GET', '/admin/invites?state=all&limit=500')).body.invites as { id: string; state: string }[];
    expect(ids.map((id) => viaApi.find((row) => row.id === id)?.state)).to.deep.equal(['used', 'revoked', 'used']);

    // The audit view shows the mint and the revoke (filtered to the revoked invite's id).
    const audited = await auditRows(page, seq, ids[1]!);
    expect(audited.map((row) => [row.action, row.target])).to.deep.equal([['invites_minted', '—'], ['invite_revoked', `invite:${ids[1]}`]]);
    for (const id of ids) expect(audited[0]!.details).to.contain(id);
    const entries = (await admin('GET', `/admin/audit?after_seq=${seq}&limit=500`)).body.entries as { action: string; details: unknown }[];
    expect(entries.map((entry) => entry.action)).to.deep.equal(['invites_minted', 'invite_revoked']);
    expect((entries[0]!.details as { ids: string[] }).ids).to.deep.equal(ids);
    // No code (nor its hash) after the mint answer: not in the audit, any later answer, or the page once it left the mint.
    await page.fill('#audit-filter', '');
    const shown = `${await page.evaluate(PAGE_TEXT)}`;
    await page.click('#nav-invites');
    await list();
    const later = [JSON.stringify(entries), shown, `${await page.evaluate(PAGE_TEXT)}`, ...(await Promise.all(answers))];
    expect(answers.length).to.be.greaterThan(5);
    for (const code of codes) for (const text of later) expect(text).to.not.contain(code).and.not.contain(sha(code));
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });

  it('a full admin finds an account by username and by npub, suspends it (login refused, token dead) and reinstates it, both audited', async function () {
    this.timeout(60_000);
    const username = `mallory_${dialect}_${Date.now().toString(36)}`.slice(0, 30);
    const account = await nostrAccount(username);
    const me = await fetch(`${apiUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${account.access}` } });
    expect(me.status, 'the account’s token works before').to.equal(200);
    const page = await open(owner);
    await logIn(page, 'full');
    const seq = await auditHead();
    await page.click('#nav-users');
    const find = async (q: string) => {
      await page.fill('#users-q', q);
      const loaded = page.waitForResponse((res) => res.url().startsWith(`${apiUrl}/api/v1/admin/users?`));
      await page.click('#users-find');
      await loaded;
      await page.waitForSelector('#users-list table');
      return ((await page.evaluate(TABLE_ROWS('#users-list'))) as Record<string, string>[]).map((row) => [row.user_id, row.username, row.nostr_pubkey, row.suspended_at]);
    };
    const found = [[account.userId, username, account.pubkey, '—']];
    expect(await find(username)).to.deep.equal(found);
    expect(await find(nip19.npubEncode(account.pubkey))).to.deep.equal(found);
    await page.click('#users-list tbody tr button:text-is("Open")');
    await page.locator('#user-detail h3', { hasText: `User ${account.userId}` }).waitFor();
    await page.waitForSelector('#user-detail > dl');
    const detail = async () => page.evaluate(`[${DL_VALUE('#user-detail', 'username')}, ${DL_VALUE('#user-detail', 'suspended_at')}, ${DL_VALUE('#user-detail', 'suspension_reason')}]`);
    expect(await detail()).to.deep.equal([username, '—', '—']);

    const reason = 'phishing with the username';
    await page.fill('#user-reason', reason);
    await page.click('#user-suspend');
    expect(await page.textContent('#user-suspend')).to.equal('Confirm: suspend');
    expect((await api.backend.db.knex('users').where({ id: account.userId }).first('suspended_at')).suspended_at, 'not before the confirm click').to.equal(null);
    await page.click('#user-suspend');
    await page.locator('#notice', { hasText: `User ${account.userId}: suspended.` }).waitFor();
    await until(page, `${DL_VALUE('#user-detail', 'suspension_reason')} === ${JSON.stringify(reason)}`);
    const [, suspendedAt] = (await detail()) as string[];
    const row = (await api.backend.db.knex('users').where({ id: account.userId }).first('suspended_at', 'suspension_reason')) as { suspended_at: string | Date; suspension_reason: string };
    expect([suspendedAt, reason]).to.deep.equal([new Date(row.suspended_at).toISOString(), row.suspension_reason]);
    expect((await fetch(`${apiUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${account.access}` } })).status, 'the access token died').to.equal(401);
    const refused = await nostrLogin(account.secret);
    expect([refused.status, refused.body.error.code]).to.deep.equal([403, 'account_suspended']);
    expect(await find(username), 'a new search lists it suspended').to.deep.equal([[account.userId, username, account.pubkey, suspendedAt]]);
    await fitsPhone(page);
    await shoot(page, 'phone-5-users');

    await page.fill('#user-reason', 'appeal upheld');
    await page.click('#user-reinstate');
    await page.locator('#notice', { hasText: `User ${account.userId}: reinstated.` }).waitFor();
    await until(page, `${DL_VALUE('#user-detail', 'suspended_at')} === '—'`);
    expect(await detail()).to.deep.equal([username, '—', '—']);
    expect((await api.backend.db.knex('users').where({ id: account.userId }).first('suspended_at')).suspended_at).to.equal(null);
    expect((await nostrLogin(account.secret)).status, 'logs in again').to.equal(200);

    const audited = await auditRows(page, seq, account.userId);
    expect(audited.map((entry) => [entry.action, entry.target])).to.deep.equal([['account_suspended', `user:${account.userId}`], ['account_reinstated', `user:${account.userId}`]]);
    expect(audited[0]!.details).to.contain(reason);
    expect(audited[1]!.details).to.contain('appeal upheld');
    await page.click('#audit-verify');
    await page.waitForSelector('#verify-summary');
    expect(await page.textContent('#verify-summary')).to.match(/^Chain verified: ok \(\d+ entries\)\.$/);
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });

  it('a session that expires returns to the login view with the API’s message, and logging in again works', async function () {
    this.timeout(60_000);
    const { page, keyId } = await freshFullAdminPage();
    const token = pageTokens.at(-1)!;
    expect((await admin('GET', '/admin/me', undefined, token)).status).to.equal(200);
    const { knex, dialect: sql } = api.backend.db;
    const expired = await knex('admin_sessions').where({ admin_key_id: keyId }).whereNull('revoked_at').update({ expires_at: sql.time(new Date(Date.now() - 1_000)) });
    expect(expired).to.equal(1);
    const ended = await admin('GET', '/admin/me', undefined, token);
    expect([ended.status, ended.body.error.code]).to.deep.equal([401, 'admin_unauthorized']);
    await expectBackAtLogin(page, ended.body.error.message);
    expect((await knex('admin_sessions').where({ admin_key_id: keyId }).first('revoked_at')).revoked_at, 'expired, not revoked').to.equal(null);
    await logIn(page, 'full');
    expect(pageTokens.at(-1)).to.not.equal(token);
    await page.waitForSelector('#settings-body form');
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });

  it('a list pages by next_after: "Next page" asks for after=<next_after> and the last page offers none', async function () {
    this.timeout(60_000);
    // 101 unused invites: one more than the default page of 100 (any left unused before are revoked first).
    for (const invite of (await admin('GET', '/admin/invites?state=unused&limit=500')).body.invites as { id: string }[]) {
      expect((await admin('POST', `/admin/invites/${invite.id}/revoke`)).status).to.equal(200);
    }
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
    await until(page, "document.querySelectorAll('#invites-list tbody tr').length === 1");
    expect(await page.locator('#invites-list button:text-is("Next page")').count(), 'the last page has no next').to.equal(0);
    expect(await page.isHidden('#error'), `the page says: ${await page.textContent('#error')}`).to.equal(true);
    await page.context().close();
  });
});
