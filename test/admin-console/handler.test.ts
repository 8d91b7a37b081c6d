import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { adminConsole, PUBLIC_DIR, type AdminConsoleHandler } from '@wallet/admin-console';
import { loadServerConfig, startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freePort, freshDatabaseUrl, SECRETS_ENV, sendRaw } from '../harness/index.js';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src https://wallet.example.test; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The handler on a plain node:http server; anything it does not own answers 418, so "not mine" is visible. */
async function serve(handler: AdminConsoleHandler): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    if (!handler(req, res)) res.writeHead(418).end('not the console');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('@wallet/admin-console request handler', () => {
  let port: number;
  let server: Server;
  before(async () => {
    ({ port, server } = await serve(adminConsole({ apiBase: 'https://wallet.example.test/' })));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the page, its modules and its stylesheet with the strict policy and headers', async () => {
    const page = await sendRaw(port, 'GET', '/admin-console/');
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).to.equal(CSP);
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
    expect(page.headers['referrer-policy']).to.equal('no-referrer');
    expect(page.headers['cache-control']).to.equal('no-store');
    expect(page.body).to.equal(readFileSync(join(PUBLIC_DIR, 'index.html'), 'utf8'));
    // No inline script or style in the page: every script and style comes from a file.
    expect(page.body).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.body).not.to.match(/<style|\sstyle=|\son[a-z]+=/i);
    for (const [path, type] of [['app.js', 'text/javascript; charset=utf-8'], ['views.js', 'text/javascript; charset=utf-8'], ['style.css', 'text/css; charset=utf-8']] as const) {
      const file = await sendRaw(port, 'GET', `/admin-console/${path}?v=1`);
      expect(file.status, path).to.equal(200);
      expect(file.headers['content-type'], path).to.equal(type);
      expect(file.headers['content-security-policy'], path).to.equal(CSP);
      expect(file.body, path).to.equal(readFileSync(join(PUBLIC_DIR, path), 'utf8'));
    }
    // The API's base as given (trailing slash dropped): the login proof signs it verbatim.
    const config = await sendRaw(port, 'GET', '/admin-console/config.js');
    expect(config.body).to.equal('export const API_BASE = "https://wallet.example.test";\n');
    const head = await sendRaw(port, 'HEAD', '/admin-console/app.js');
    expect([head.status, head.body]).to.deep.equal([200, '']);
  });

  it('never serves a file outside its folder, however the path is spelled', async () => {
    const probes = [
      '/admin-console/../package.json',
      '/admin-console/../../package.json',
      '/admin-console/..%2fpackage.json',
      '/admin-console/%2e%2e/package.json',
      '/admin-console/%2e%2e%2f%2e%2e%2fpackage.json',
      '/admin-console/%252e%252e%252fpackage.json',
      '/admin-console/..\\package.json',
      '/admin-console/..%5cpackage.json',
      '/admin-console//etc/passwd',
      '/admin-console/%2fetc%2fpasswd',
      '/admin-console/app.js%00.css',
      '/admin-console/./app.js',
      '/admin-console/index.html',
      '/admin-console/APP.JS',
      '/admin-console/.gitignore',
      '/admin-console/src/index.ts',
      '/admin-console/../src/index.ts',
      '/admin-console/public/app.js',
      '/admin-console/nope.js',
    ];
    for (const path of probes) {
      const answer = await sendRaw(port, 'GET', path);
      expect(answer.status, path).to.equal(404);
      expect(answer.body, path).to.equal('not found\n');
      expect(answer.headers['content-security-policy'], path).to.equal(CSP);
    }
  });

  it('leaves every other path to the caller, redirects its bare root and refuses writes', async () => {
    for (const path of ['/', '/api/v1/health', '/admin-consoleX/', '/admin/', '/admin-console.js']) {
      expect((await sendRaw(port, 'GET', path)).status, path).to.equal(418);
    }
    const bare = await sendRaw(port, 'GET', '/admin-console?x=1');
    expect([bare.status, bare.headers.location]).to.deep.equal([308, '/admin-console/']);
    const post = await sendRaw(port, 'POST', '/admin-console/', { 'content-type': 'application/json' }, '{}');
    expect([post.status, post.headers.allow]).to.deep.equal([405, 'GET, HEAD']);
  });

  it('mounts under another path and as Koa middleware', async () => {
    const handler = adminConsole({ apiBase: 'http://127.0.0.1:9/base', basePath: '/ops/console/' });
    expect(handler.contentSecurityPolicy).to.contain('connect-src http://127.0.0.1:9;');
    const mounted = await serve(handler);
    try {
      expect((await sendRaw(mounted.port, 'GET', '/ops/console/')).status).to.equal(200);
      expect((await sendRaw(mounted.port, 'GET', '/admin-console/')).status).to.equal(418);
      expect((await sendRaw(mounted.port, 'GET', '/ops/console/config.js')).body).to.equal('export const API_BASE = "http://127.0.0.1:9/base";\n');
    } finally {
      await new Promise<void>((resolve) => mounted.server.close(() => resolve()));
    }
    let passed = 0;
    const ctx = { path: '/elsewhere', req: { url: '/elsewhere', method: 'GET' }, res: {} } as never;
    await handler.koa(ctx, async () => void passed++);
    expect(passed).to.equal(1);
  });

  it('refuses an unusable apiBase or basePath', () => {
    expect(() => adminConsole({ apiBase: 'not a url' })).to.throw(/is not a URL/);
    expect(() => adminConsole({ apiBase: 'ftp://x.test' })).to.throw(/http\(s\)/);
    expect(() => adminConsole({ apiBase: 'https://x.test/?a=1' })).to.throw(/no query/);
    expect(() => adminConsole({ apiBase: 'https://x.test', basePath: 'console/' })).to.throw(/basePath/);
    expect(() => adminConsole({ apiBase: 'https://x.test', basePath: '/a/../' })).to.throw(/basePath/);
  });
});

describe('reference server: ADMIN_CONSOLE_ENABLED', () => {
  it('is off by default, on with true, and any other value is a problem', () => {
    expect(loadServerConfig({ ...SECRETS_ENV }, { createDevSecrets: false }).adminConsole).to.equal(false);
    expect(loadServerConfig({ ...SECRETS_ENV, ADMIN_CONSOLE_ENABLED: 'true' }, { createDevSecrets: false }).adminConsole).to.equal(true);
    const bad = loadServerConfig({ ...SECRETS_ENV, ADMIN_CONSOLE_ENABLED: 'sometimes' }, { createDevSecrets: false });
    expect(bad.adminConsole).to.equal(false);
    expect(bad.problems).to.include('ADMIN_CONSOLE_ENABLED: "sometimes" must be true or false');
  });
});

eachDialect('reference server mounts the admin console only when ADMIN_CONSOLE_ENABLED=true', (dialect) => {
  const started: RunningServer[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const server of started) await server.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  async function start(extra: Record<string, string>): Promise<{ server: RunningServer; port: number }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-console-'));
    dirs.push(dataDir);
    const port = await freePort();
    const server = await startServer(
      { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_API_URL: `http://127.0.0.1:${port}`, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV, ...extra },
      { write: () => undefined },
    );
    started.push(server);
    return { server, port };
  }

  it('off: the path is the API’s 404; on: the page with its policy, and the API still answers', async function () {
    this.timeout(30_000);
    const off = await start({});
    const missing = await sendRaw(off.port, 'GET', '/admin-console/');
    expect(missing.status).to.equal(404);
    expect(JSON.parse(missing.body).error.code).to.equal('not_found');

    const on = await start({ ADMIN_CONSOLE_ENABLED: 'true' });
    const page = await sendRaw(on.port, 'GET', '/admin-console/');
    expect(page.status).to.equal(200);
    expect(page.headers['content-security-policy']).to.equal(CSP.replace('https://wallet.example.test', `http://127.0.0.1:${on.port}`));
    expect((await sendRaw(on.port, 'GET', '/admin-console/config.js')).body).to.equal(`export const API_BASE = "http://127.0.0.1:${on.port}";\n`);
    expect((await sendRaw(on.port, 'GET', '/admin-console/../package.json')).status).to.equal(404);
    expect((await sendRaw(on.port, 'GET', '/api/v1/health')).status).to.equal(200);
  });
});
