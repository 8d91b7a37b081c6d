import type { Context, Middleware } from 'koa';
import type { Clock } from '../clock/index.js';
import { coreErrors } from '../errors/index.js';
import type { Logger } from '../logger/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import { carriesBody, NO_BODY, parseJsonBody, readRawBody } from './body.js';
import { boundaryState, requestBoundary, type BoundaryState } from './boundary.js';
import type { ClientIpResolver } from './client-ip.js';
import type { RateLimitStore } from './rate-limit.js';
import { fullPath, type AdminAuth, type AnyRoute, type RouteInput, type UserAuth } from './route.js';
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
  /** The admin guard: a live admin session of a live, intact admin key, or a 401. */
  authenticateAdmin(authorization: string | undefined): Promise<AdminAuth>;
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

/** What a handler receives; a class, so the lazy logger is a prototype getter rather than one defined per request. */
class HandlerInput {
  readonly requestId: string;
  constructor(
    readonly body: unknown,
    readonly query: unknown,
    readonly params: unknown,
    readonly auth: unknown,
    readonly headers: Readonly<Record<string, string | undefined>>,
    readonly rawBody: Buffer,
    readonly clientIp: string,
    private readonly state: BoundaryState,
  ) {
    this.requestId = state.requestId;
  }

  /** Made on first use: most handlers never log. */
  get logger(): Logger {
    return this.state.logger;
  }
}

/** Serves one request a route took, inside a request boundary that already runs (see routeMiddleware). */
export type RouteHandler = (ctx: Context) => Promise<void>;

/**
 * One route's pipeline past the boundary, in order: client IP → limiter (unauthenticated
 * routes) → auth → raw body with its size limit → schema validation of params, query and body
 * → handler. Nothing reaches the handler unvalidated, and a refused request does no work past
 * the step that refused it. Path parameters are read from `ctx.params`.
 */
export function routeHandler(route: AnyRoute, kit: RouteKit): RouteHandler {
  const template = fullPath(route);
  const limitBytes = route.bodyLimitBytes ?? kit.bodyLimitBytes;
  const successStatus = route.successStatus ?? 200;
  const staticHeaders = Object.entries(route.headers ?? {});

  return async (ctx: Context): Promise<void> => {
    const state = boundaryState(ctx);
    state.route = template;
    // Static headers first, so they survive an error response too (NIP-05 CORS).
    for (const [name, value] of staticHeaders) ctx.res.setHeader(name, value);
    const clientIp = kit.resolveClientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for') || undefined);
    if (isRateLimited(route)) await enforceRateLimit(kit, clientIp);
    // Read only by the routes that authenticate.
    const authorization = route.auth === 'none' ? undefined : ctx.get('authorization') || undefined;
    const auth =
      route.auth === 'bearer' ? await kit.authenticateBearer(authorization) : route.auth === 'admin' ? await kit.authenticateAdmin(authorization) : null;

    // Most requests (GET) carry no body: no wait for one.
    const rawBody = carriesBody(ctx.method) ? await readRawBody(ctx.req, ctx.method, limitBytes) : NO_BODY;
    const kitChecks = route.neverRefuses !== true;
    // Without a schema a part is only checked (and the handler gets `{}`), so it is not copied first.
    const pathParams = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
    const params = parseInput('params', route.params, route.params ? { ...pathParams } : pathParams, kitChecks);
    const query = parseInput('query', route.query, route.query ? { ...ctx.query } : ctx.query, kitChecks);
    const body = parseInput('body', route.body, parseJsonBody(rawBody, ctx.get('content-type') || undefined), kitChecks);

    const input = new HandlerInput(body, query, params, auth, ctx.headers as Record<string, string | undefined>, rawBody, clientIp, state);
    const result = await route.handler(input as RouteInput<'none', unknown, unknown, unknown>);
    ctx.res.setHeader('Cache-Control', 'no-store');
    ctx.status = successStatus;
    ctx.body = result ?? null;
  };
}

/**
 * A route as router middleware: its handler inside a request boundary (request id, JSON
 * errors, log line), which runs once even when the app around it carries one too, so a host
 * that mounts only the router still gets JSON errors.
 */
export function routeMiddleware(route: AnyRoute, kit: RouteKit, handle: RouteHandler = routeHandler(route, kit)): Middleware {
  const boundary = requestBoundary(kit.logger, kit.metrics);
  return (ctx) => boundary(ctx, () => handle(ctx));
}
