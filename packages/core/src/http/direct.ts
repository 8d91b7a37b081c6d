import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import type Koa from 'koa';
import { describeError, type Logger } from '../logger/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import { beginRequest, endRequest, errorAnswer, type RequestState } from './boundary.js';
import type { RouteExchange, RouteHandler } from './pipeline.js';
import type { RouteTable } from './route-table.js';

/**
 * URLs whose query Koa (parseurl) would read differently from "everything after the first ?":
 * a fragment, whitespace, NBSP or BOM send parseurl to url.parse. Those, and any path the table
 * does not answer for, are left to Koa.
 */
const KOA_READS_DIFFERENTLY = /[#\s\u00a0\ufeff]/;

/** Koa's `app.callback()`: a listener for node:http and node:http2 servers. */
type KoaListener = ReturnType<Koa['callback']>;

/** Statuses that carry no body (Koa's `statuses.empty`). */
const NO_CONTENT = new Set([204, 205, 304]);

const NO_QUERY: ParsedUrlQuery = Object.freeze(Object.create(null) as ParsedUrlQuery);

/** A request the table took, as the pipeline's exchange; the query is parsed on first read, as Koa does. */
class DirectExchange implements RouteExchange {
  private parsed: ParsedUrlQuery | undefined;
  constructor(
    readonly method: string,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly params: Record<string, string>,
    private readonly search: string,
    readonly state: RequestState,
  ) {}

  get query(): ParsedUrlQuery {
    return (this.parsed ??= this.search === '' ? NO_QUERY : parseQuery(this.search));
  }
}

/** Koa's `ctx.writable`: false once the response ended or its socket can no longer be written. */
function writable(res: ServerResponse): boolean {
  if (res.writableEnded) return false;
  return res.socket === null || res.socket.writable;
}

/**
 * Writes a JSON answer exactly as Koa's responder would for the same status and body: no content
 * (and no content headers) for a null body or a bodiless status, otherwise
 * `application/json; charset=utf-8` with its length.
 */
function writeJson(res: ServerResponse, status: number, body: unknown): number {
  const answered = body === null || body === undefined ? (NO_CONTENT.has(status) ? status : 204) : status;
  res.statusCode = answered;
  if (!writable(res)) {
    res.end();
    return answered;
  }
  if (NO_CONTENT.has(answered)) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return answered;
  }
  const json = JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
  return answered;
}

/** Serves one request the table took; never rejects (a response that cannot be written is logged and its socket destroyed). */
async function serve(handle: RouteHandler, req: IncomingMessage, res: ServerResponse, params: Record<string, string>, path: string, search: string, logger: Logger, metrics: MetricsRecorder): Promise<void> {
  const method = req.method!;
  let status = 500;
  let code: string | undefined;
  try {
    const state = beginRequest(req, res, logger);
    try {
      const result = await handle(new DirectExchange(method, req, res, params, search, state));
      status = writeJson(res, result.status, result.body);
    } catch (err) {
      const answer = errorAnswer(err, state);
      code = answer.code;
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      status = writeJson(res, answer.status, answer.body);
    } finally {
      endRequest(state, logger, metrics, { method, path, status, code });
    }
  } catch (err) {
    // Writing the answer itself failed (a header value Node refused, say): nothing can be sent.
    logger.error('the response could not be written', describeError(err));
    res.destroy();
  }
}

/**
 * The backend's own request listener (`start()`, `callback()`): a request the route table takes
 * is served by its pipeline straight on Node's request and response, with the boundary's request
 * id, JSON errors and log line, but without Koa's per-request context, middleware chain and
 * responder (about a third of a `/health` in a bare Koa server). Everything else (404, 405, HEAD,
 * odd spellings, and whatever a host added to `backend.app` or `backend.router`) goes to the
 * Koa app, whose answers are the same for the requests both can serve (test/core/http/direct.test.ts).
 */
export function directListener(table: RouteTable<RouteHandler>, koa: KoaListener, logger: Logger, metrics: MetricsRecorder): KoaListener {
  return async (req, res) => {
    // HTTP/2 (Node's compatibility API) stays with Koa.
    if (req.httpVersionMajor >= 2) return koa(req, res);
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const search = mark < 0 ? '' : url.slice(mark + 1);
    const match = search !== '' && KOA_READS_DIFFERENTLY.test(search) ? undefined : table.find(req.method ?? '', path);
    if (match === undefined) return koa(req, res);
    // Returned, so whoever called the listener knows when the handler is done (close() drains on it).
    return serve(match.handler, req as IncomingMessage, res as ServerResponse, match.params, path, search, logger, metrics);
  };
}
