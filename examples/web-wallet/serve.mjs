#!/usr/bin/env node
// Serves the example web wallet: its page, the @wallet/client bundle (esbuild, built at start)
// and the API's URL, with a strict Content-Security-Policy (no inline script, connections to the
// API only). `node examples/web-wallet/serve.mjs --api http://127.0.0.1:8080 [--port 5173]`; the
// API's reference server needs `CORS_ORIGINS=<this page's origin>` and the tips feature on.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const CLIENT_ENTRY = join(here, '..', '..', 'packages', 'client', 'src', 'index.ts');
const FILES = { '/app.js': ['app.js', 'text/javascript'], '/style.css': ['style.css', 'text/css'] };

/** The client as a browser loads it: one minified ES module. */
async function clientBundle() {
  const result = await build({ entryPoints: [CLIENT_ENTRY], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
  return result.outputFiles[0].text;
}

/**
 * Starts the page's server. `apiUrl` is the wallet backend (its PUBLIC_API_URL); resolves to the
 * page's URL and a `close`.
 */
export async function startWebWallet({ apiUrl, port = 0, host = '127.0.0.1' }) {
  const api = new URL(apiUrl);
  const bundle = await clientBundle();
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src ${api.origin}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const pages = {
    ...Object.fromEntries(Object.entries(FILES).map(([path, [file, type]]) => [path, [readFileSync(join(here, file), 'utf8'), type]])),
    '/wallet-client.js': [bundle, 'text/javascript'],
    // As given (the server's PUBLIC_API_URL, which proofs sign verbatim), only trailing slashes dropped.
    '/config.js': [`export const API_URL = ${JSON.stringify(apiUrl.replace(/\/+$/, ''))};\n`, 'text/javascript'],
  };
  const index = readFileSync(join(here, 'index.html'), 'utf8');
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const [body, type] = pages[path] ?? (path === '/' || path.startsWith('/tip/') ? [index, 'text/html; charset=utf-8'] : [null, null]);
    const headers = { 'Content-Security-Policy': policy, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
    if (body === null || req.method !== 'GET') {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': type }).end(body);
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { api: { type: 'string' }, port: { type: 'string', default: '5173' }, host: { type: 'string', default: '127.0.0.1' } } });
  if (values.api === undefined) {
    process.stderr.write('usage: node examples/web-wallet/serve.mjs --api <wallet backend URL> [--port 5173] [--host 127.0.0.1]\n');
    process.exit(2);
  }
  const { url } = await startWebWallet({ apiUrl: values.api, port: Number(values.port), host: values.host });
  process.stdout.write(`example web wallet at ${url} (API ${values.api}; give the API CORS_ORIGINS=${url})\n`);
}
