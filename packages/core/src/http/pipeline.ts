import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Context, Middleware } from 'koa';
import type { Clock } from '../clock/index.js';
import { coreErrors } from '../errors/index.js';
import type { Logger } from '../logger/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import { carriesBody, NO_BODY, parseJsonBody, readRawBody } from './body.js';
import { boundaryState, requestBoundary, type BoundaryState } from './boundary.js';
import type { ClientIpResolver } from './client-ip.js';
import type { RateLimitStore } from './rate-limit.js';
import { adminScopeOf, fullPath, type AdminAuth, type AdminScope, type AnyRoute, type RouteInput, type UserAuth } from './route.js';
import { parseInput } from './validate.js';

export interface RouteKit {
  logger: Logger;
  /** Where each request is reported when it ends (a no-op with metrics off). */
  metrics: MetricsRecorder;
  clock: Clock;
  resolveClientIp: ClientIpResolver;
  bodyLimitBytes: number;
  limiter: {
    store: RateLimitStore;
    windowMs: number;
    max: number;
    /** Turns a client IP into the limiter key (a salted hash; raw IPs never reach the store). */
    keyOf(clientIp: string): string;
  };
  /** The bearer guard: a live session behind a valid access token, or a 401. */
  authenticateBearer(authorization: string | undefined): Promise<UserAuth>;
  /** The admin guard: a live admin session of a live, intact admin key, or a 401; a `read` key where `full` is needed, a 403. */
  authenticateAdmin(authorization: string | undefined, needs: AdminScope): Promise<AdminAuth>;
}

function isRateLimited(route: AnyRoute): boolean {
  return route.auth === 'none' && route.rateLimit !== false;
}

async function enforceRateLimit(kit: RouteKit, clientIp: string): Promise<void> {
  const nowMs = kit.clock.now().getTime();
  const { count, resetAtMs } = await kit.limiter.store.hit(kit.limiter.keyOf(clientIp), kit.limiter.windowMs, nowMs);
  if (count > kit.limiter.max) {
    const retryAfterSec = Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
    throw coreErrors.create.rate_limited({ headers: { 'Retry-After': String(retryAfterSec) } });
  }
}

/** What a handler receives; a class, so the lazy logger and client IP are prototype getters rather than ones defined per request. */
class HandlerInput {
  readonly requestId: string;
  constructor(
    readonly body: unknown,
    readonly query: unknown,
    readonly params: unknown,
    readonly auth: unknown,
    readonly headers: Readonly<Record<string, string | undefined>>,
    readonly rawBody: Buffer,
    private readonly client: ClientAddress,
    private readonly state: BoundaryState,
  ) {
    this.requestId = state.requestId;
  }

  /** Resolved on first use: most routes never ask. */
  get clientIp(): string {
    return this.client.ip;
  }

  /** Made on first use: most handlers never log. */
  get logger(): Logger {
    return this.state.logger;
  }
}

/**
 * What the pipeline reads of one request and where it sets response headers, whichever server
 * carries it: Koa (`backend.app`, `backend.router`) or the backend's own listener (direct.ts).
 */
export interface RouteExchange {
  readonly method: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Path parameters, percent-decoded. */
  readonly params: Record<string, string>;
  /** The query string parsed as Koa parses it (node:querystring). */
  readonly query: ParsedUrlQuery;
  readonly state: BoundaryState;
}

/** A route's answer before it is written: the status and the JSON value (null or undefined: no content). */
export interface RouteResult {
  status: number;
  body: unknown;
}

/** Serves one request a route took, inside a request boundary that already runs (see routeMiddleware). */
export type RouteHandler = (exchange: RouteExchange) => Promise<RouteResult>;

/**
 * The client's address as the request arrived (the socket's peer and `X-Forwarded-For`, read at
 * once: a socket that closes later no longer knows its peer), resolved to the client IP only
 * when the limiter or the handler asks.
 */
class ClientAddress {
  private resolved: string | undefined;
  constructor(
    private readonly resolve: ClientIpResolver,
    private readonly socketAddress: string | undefined,
    private readonly forwardedFor: string | undefined,
  ) {}

  get ip(): string {
    return (this.resolved ??= this.resolve(this.socketAddress, this.forwardedFor));
  }
}

/** A request header as one string (Node joins repeats), '' counted as absent. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * One route's pipeline past the boundary, in order: client IP → limiter (unauthenticated
 * routes) → auth → raw body with its size limit → schema validation of params, query and body
 * → handler. Nothing reaches the handler unvalidated, and a refused request does no work past
 * the step that refused it.
 */
export function routeHandler(route: AnyRoute, kit: RouteKit): RouteHandler {
  const template = fullPath(route);
  const limitBytes = route.bodyLimitBytes ?? kit.bodyLimitBytes;
  const successStatus = route.successStatus ?? 200;
  const staticHeaders = Object.entries(route.headers ?? {});
  const adminScope = adminScopeOf(route);
  const rateLimited = isRateLimited(route);

  return async (exchange: RouteExchange): Promise<RouteResult> => {
    const { req, res, state } = exchange;
    state.route = template;
    // Static headers first, so they survive an error response too (NIP-05 CORS).
    for (const [name, value] of staticHeaders) res.setHeader(name, value);
    const client = new ClientAddress(kit.resolveClientIp, req.socket.remoteAddress, header(req, 'x-forwarded-for'));
    if (rateLimited) await enforceRateLimit(kit, client.ip);
    // Read only by the routes that authenticate.
    const authorization = route.auth === 'none' ? undefined : header(req, 'authorization');
    const auth =
      route.auth === 'bearer' ? await kit.authenticateBearer(authorization) : route.auth === 'admin' ? await kit.authenticateAdmin(authorization, adminScope) : null;

    // Most requests (GET) carry no body: no wait for one.
    const rawBody = carriesBody(exchange.method) ? await readRawBody(req, exchange.method, limitBytes) : NO_BODY;
    const kitChecks = route.neverRefuses !== true;
    // Without a schema a part is only checked (and the handler gets `{}`), so it is not copied first.
    const pathParams = exchange.params;
    const params = parseInput('params', route.params, route.params ? { ...pathParams } : pathParams, kitChecks);
    const rawQuery = exchange.query;
    const query = parseInput('query', route.query, route.query ? { ...rawQuery } : rawQuery, kitChecks);
    const body = parseInput('body', route.body, parseJsonBody(rawBody, header(req, 'content-type')), kitChecks);

    const input = new HandlerInput(body, query, params, auth, req.headers as Record<string, string | undefined>, rawBody, client, state);
    const result = await route.handler(input as RouteInput<'none', unknown, unknown, unknown>);
    res.setHeader('Cache-Control', 'no-store');
    return { status: successStatus, body: result ?? null };
  };
}

/** A Koa context as the pipeline's exchange; a class, so the lazy query is a prototype getter (as HandlerInput's logger). */
class KoaExchange implements RouteExchange {
  readonly method: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly params: Record<string, string>;
  readonly state: BoundaryState;
  constructor(private readonly ctx: Context) {
    this.method = ctx.method;
    this.req = ctx.req;
    this.res = ctx.res;
    this.params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
    this.state = boundaryState(ctx);
  }

  /** Koa parses (and caches) the query on first read. */
  get query(): ParsedUrlQuery {
    return this.ctx.query;
  }
}

/** Serves a route's request through Koa: its result becomes `ctx.status` and `ctx.body`. */
export async function serveThroughKoa(ctx: Context, handle: RouteHandler): Promise<void> {
  const result = await handle(new KoaExchange(ctx));
  ctx.status = result.status;
  ctx.body = result.body;
}

/**
 * A route as router middleware: its handler inside a request boundary (request id, JSON
 * errors, log line), which runs once even when the app around it carries one too, so a host
 * that mounts only the router still gets JSON errors.
 */
export function routeMiddleware(route: AnyRoute, kit: RouteKit, handle: RouteHandler = routeHandler(route, kit)): Middleware {
  const boundary = requestBoundary(kit.logger, kit.metrics);
  return (ctx) => boundary(ctx, () => serveThroughKoa(ctx, handle));
}
