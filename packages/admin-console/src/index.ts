/**
 * `@wallet/admin-console`: the operator console's files and the handler that serves them
 * (docs/admin.md, "The operator console"). It uses no part of core: the page talks to the admin API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page's files: plain ES modules, one stylesheet, one HTML page (no build step). */
export const PUBLIC_DIR: string = fileURLToPath(new URL('../public/', import.meta.url));

export const DEFAULT_BASE_PATH = '/admin-console/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Only plain names with a known extension are ever served: no directory, no dot file. */
const SERVABLE = /^[a-z0-9][a-z0-9-]*\.(html|js|css)$/;

export interface AdminConsoleOptions {
  /**
   * The API's public URL exactly as the server signs against it (its PUBLIC_API_URL, such as
   * `https://wallet.example.com`); the page calls `<apiBase>/api/v1/admin/…` and signs the login
   * for `<apiBase>/api/v1/admin/login`. Its origin is the only one the page may connect to.
   */
  apiBase: string;
  /** Where the console lives; `/admin-console/` by default. Starts and ends with `/`. */
  basePath?: string;
}

/** The part of a Koa context the middleware needs (Koa is not a dependency of this package). */
export interface KoaLikeContext {
  path: string;
  req: IncomingMessage;
  res: ServerResponse;
  respond?: boolean;
}

/**
 * Answers a request under the console's path and returns true, or returns false (and calls
 * `next` when given) for any other path. Synchronous: every file is read once, at creation.
 */
export interface AdminConsoleHandler {
  (req: IncomingMessage, res: ServerResponse, next?: () => void): boolean;
  readonly basePath: string;
  /** The Content-Security-Policy every answer carries. */
  readonly contentSecurityPolicy: string;
  /** The same handler as a Koa middleware: `app.use(handler.koa)`. */
  koa(ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<unknown> | undefined;
}

function apiBaseOf(text: string): { base: string; origin: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`adminConsole: apiBase "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`adminConsole: apiBase "${text}" is not an http(s) URL`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') throw new TypeError(`adminConsole: apiBase "${text}" must have no query, fragment or credentials`);
  // As given (the proof signs it verbatim), only trailing slashes dropped.
  return { base: text.replace(/\/+$/, ''), origin: url.origin };
}

/**
 * The operator console as a request handler for node:http or Koa. It serves its own files under
 * `basePath` and nothing else: the path is looked up in a fixed table built at start, never
 * joined onto the file system, so `..` or an encoded slash cannot reach another file.
 */
export function adminConsole(options: AdminConsoleOptions): AdminConsoleHandler {
  const { base, origin } = apiBaseOf(options.apiBase);
  const basePath = options.basePath ?? DEFAULT_BASE_PATH;
  if (!/^\/([A-Za-z0-9._~-]+\/)*$/.test(basePath) || basePath.split('/').some((part) => part === '.' || part === '..')) {
    throw new TypeError(`adminConsole: basePath "${basePath}" must start and end with "/" and hold plain path segments only`);
  }
  const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const entry of readdirSync(PUBLIC_DIR, { withFileTypes: true })) {
    if (!entry.isFile() || !SERVABLE.test(entry.name)) continue;
    const type = TYPES[entry.name.slice(entry.name.lastIndexOf('.'))]!;
    files.set(entry.name, { body: readFileSync(join(PUBLIC_DIR, entry.name)), type });
  }
  files.set('config.js', { body: Buffer.from(`export const API_BASE = ${JSON.stringify(base)};\n`), type: TYPES['.js']! });
  const index = files.get('index.html');
  if (index === undefined) throw new Error(`adminConsole: ${PUBLIC_DIR}index.html is missing`);
  const root = basePath.slice(0, -1);
  const headers = {
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };

  const pathOf = (req: IncomingMessage): string => {
    const raw = req.url ?? '/';
    const end = raw.search(/[?#]/);
    return end === -1 ? raw : raw.slice(0, end);
  };
  const owns = (path: string) => path === root || path.startsWith(basePath);

  const answer = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    if (path === root) {
      // Relative module URLs need the trailing slash.
      res.writeHead(308, { ...headers, Location: basePath }).end();
      return;
    }
    const name = path.slice(basePath.length);
    const file = name === '' ? index : name === 'index.html' ? undefined : files.get(name);
    if (file === undefined) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': file.type, 'Content-Length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };

  const handler = ((req: IncomingMessage, res: ServerResponse, next?: () => void): boolean => {
    const path = pathOf(req);
    if (!owns(path)) {
      next?.();
      return false;
    }
    answer(req, res, path);
    return true;
  }) as AdminConsoleHandler;
  Object.defineProperties(handler, {
    basePath: { value: basePath, enumerable: true },
    contentSecurityPolicy: { value: contentSecurityPolicy, enumerable: true },
    koa: {
      value: (ctx: KoaLikeContext, next: () => Promise<unknown>) => {
        if (!owns(pathOf(ctx.req))) return next();
        ctx.respond = false;
        answer(ctx.req, ctx.res, pathOf(ctx.req));
        return undefined;
      },
    },
  });
  return handler;
}
