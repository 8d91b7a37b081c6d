import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the fake answers:
 *  - `normal`: the route handler's reply;
 *  - `slow`: the same reply, after `slowMs`;
 *  - `down`: the socket is destroyed without a response (a dead node);
 *  - `malformed`: status 200 with a body that is not valid JSON (a broken proxy or node).
 */
export type FakeMode = 'normal' | 'slow' | 'down' | 'malformed';

/** One request as the fake received it. */
export interface FakeRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON when it is JSON, the raw text otherwise, undefined when empty. */
  body: unknown;
}

export interface FakeReply {
  status?: number;
  /** Sent as JSON (`application/json`). */
  json?: unknown;
  /** Sent as-is (`text/plain`) when `json` is not given. */
  text?: string;
  headers?: Record<string, string>;
}

export type FakeHandler = (req: FakeRequest, body: unknown) => FakeReply | Promise<FakeReply>;

export interface HttpFakeOptions {
  mode?: FakeMode;
  /** The delay of `slow` mode (default 1000 ms). */
  slowMs?: number;
}

/**
 * A real HTTP upstream on 127.0.0.1 (any free port) for adapter tests: chain nodes, price feeds,
 * payment processors. Routes are keyed `METHOD /path` (query ignored); every request is logged
 * in `received`, whatever the mode. `close()` ends every open connection and pending reply.
 *
 * @example
 * const node = new HttpFake({ 'GET /blocks/tip/height': () => ({ json: 850000 }) });
 * await node.start();
 * node.mode = 'slow';
 * // … point the adapter at node.url …
 * await node.close();
 */
export class HttpFake {
  mode: FakeMode;
  slowMs: number;
  readonly received: FakeRequest[] = [];
  /** Answers requests no route matches (default: a 404 naming the fake). */
  fallback: FakeHandler | undefined;
  /** Requests whose client went away before the reply was written (a `slow` reply aborted by a timeout). */
  abandoned = 0;

  private readonly routes = new Map<string, FakeHandler>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  private baseUrl: string | undefined;

  constructor(routes: Record<string, FakeHandler> = {}, options: HttpFakeOptions = {}) {
    for (const [key, handler] of Object.entries(routes)) this.route(key, handler);
    this.mode = options.mode ?? 'normal';
    this.slowMs = options.slowMs ?? 1000;
  }

  /** Adds or replaces the handler of `METHOD /path`. */
  route(key: string, handler: FakeHandler): this {
    const [method, path] = key.trim().split(/\s+/) as [string, string | undefined];
    if (path === undefined) throw new Error(`route key "${key}" must look like "GET /path"`);
    this.routes.set(`${method.toUpperCase()} ${path}`, handler);
    return this;
  }

  /** The base URL (`http://127.0.0.1:<port>`); only after `start()`. */
  get url(): string {
    if (this.baseUrl === undefined) throw new Error('HttpFake: call start() first');
    return this.baseUrl;
  }

  async start(): Promise<string> {
    if (this.baseUrl !== undefined) return this.baseUrl;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    this.baseUrl = undefined;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = parseMaybeJson(text);
    const path = req.url ?? '/';
    const request: FakeRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    this.received.push(request);

    const mode = this.mode;
    if (mode === 'down') {
      req.socket.destroy();
      return;
    }
    if (mode === 'malformed') {
      send(res, { status: 200, text: '{"height": 8500', headers: { 'content-type': 'application/json' } });
      return;
    }
    const handler = this.routes.get(`${request.method} ${path.split('?')[0]}`);
    let reply: FakeReply;
    try {
      reply = handler ? await handler(request, body) : this.fallback ? await this.fallback(request, body) : { status: 404, json: { error: 'no such route on the fake' } };
    } catch (err) {
      reply = { status: 500, json: { error: `fake handler threw: ${(err as Error).message}` } };
    }
    if (mode === 'normal') {
      send(res, reply);
      return;
    }
    let finished = false;
    res.once('close', () => {
      if (!finished) this.abandoned += 1;
    });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      finished = true;
      if (!res.destroyed) send(res, reply);
    }, this.slowMs);
    this.timers.add(timer);
  }
}

function parseMaybeJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function send(res: ServerResponse, reply: FakeReply): void {
  const json = reply.json !== undefined;
  const payload = json ? JSON.stringify(reply.json) : (reply.text ?? '');
  res.writeHead(reply.status ?? 200, {
    'content-type': json ? 'application/json' : 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    ...(reply.headers ?? {}),
  });
  res.end(payload);
}
