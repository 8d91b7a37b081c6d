import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import { coreErrors, isWalletError, upstreamFailureOf, type WalletError } from '../errors/index.js';
import { describeError, logRequestLine, type Logger } from '../logger/index.js';
import { noMetrics, type MetricsRecorder } from '../metrics/index.js';
import { isRefusedValue, isUniqueViolation, uniqueViolationOf } from '../storage/index.js';
import { isClientAbort } from './body.js';
import { requestIdFrom } from './request-id.js';

const BOUNDARY = Symbol('wallet-backend.boundary');

/** The error a request ends with, as the client will see it. */
export function toWalletError(err: unknown): WalletError {
  if (isWalletError(err)) return err;
  // A unique collision that reached the edge is a conflict, never a 500 (spec, Errors 3).
  if (isUniqueViolation(err)) return coreErrors.create.conflict({ cause: err });
  // A value the database cannot take (a NUL in text, a number beyond the column) is the
  // request's fault on either dialect: the safety net behind route validation.
  if (isRefusedValue(err)) return coreErrors.create.invalid_request({ message: 'A value in the request is out of range or is not valid text.', cause: err });
  // The client left mid-body (or Node's request timeout cut it): its doing, not ours.
  if (isClientAbort(err)) return coreErrors.create.client_closed({ cause: err });
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 404) return coreErrors.create.not_found();
  if (status === 405) return coreErrors.create.method_not_allowed();
  return coreErrors.create.internal_error({ cause: err });
}

export interface BoundaryState {
  requestId: string;
  logger: Logger;
  /** The declared route template once a route took the request (the metrics' label); unset: unmatched. */
  route?: string;
}

/** A request's state; a class, so the lazy logger is a prototype getter rather than one defined per request. */
export class RequestState implements BoundaryState {
  route?: string;
  /** performance.now() when the request arrived. */
  readonly started = performance.now();
  private child: Logger | undefined;
  constructor(
    readonly requestId: string,
    private readonly baseLogger: Logger,
  ) {}

  /** Made only if something asks for it: most requests log only their one line. */
  get logger(): Logger {
    return (this.child ??= this.baseLogger.child({ request_id: this.requestId }));
  }
}

/** The metrics' route label of a request no declared route took (404, 405): never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

export function boundaryState(ctx: Context): BoundaryState {
  return (ctx.state as Record<symbol, BoundaryState>)[BOUNDARY]!;
}

/** A request's state, made by the boundary as the request arrives: its id (also sent as `X-Request-Id`) and its start time. */
export function beginRequest(req: IncomingMessage, res: ServerResponse, baseLogger: Logger): RequestState {
  // Node joins a repeated header into one string; Koa's `ctx.get` would only add work here.
  const incoming = req.headers['x-request-id'];
  const requestId = requestIdFrom(incoming);
  // Straight to Node (Koa's `set` builds arrays per call); the value is one safe string either way.
  res.setHeader('X-Request-Id', requestId);
  return new RequestState(requestId, baseLogger);
}

/** What a failed request answers: its status, extra headers and JSON error body (docs/architecture.md#errors), logged when it is ours (5xx). */
export interface ErrorAnswer {
  status: number;
  code: string;
  headers: Record<string, string>;
  body: { error: Record<string, unknown> };
}

export function errorAnswer(err: unknown, state: BoundaryState): ErrorAnswer {
  const error = toWalletError(err);
  const upstream = error.status >= 500 ? upstreamFailureOf(error) : null;
  if (upstream !== null) {
    // An upstream that is down or misconfigured is expected and retryable: a warning naming why
    // (a wrong key is not an outage), with no stack, which would only point at our client.
    const { status, upstreamCode } = upstream.detail;
    state.logger.warn('upstream unavailable', {
      code: error.code,
      upstream: upstream.upstream,
      reason: upstream.reason,
      ...(status === undefined ? {} : { upstream_status: status }),
      ...(upstreamCode === undefined ? {} : { upstream_code: upstreamCode }),
    });
  } else if (error.status >= 500) state.logger.error('request failed', { code: error.code, ...describeError(error.cause ?? err) });
  else if (isRefusedValue(error.cause)) {
    state.logger.warn('the database refused a request value that validation let through; refuse it in the route schema', {
      code: error.code,
      db_code: (error.cause as { code: string }).code,
    });
  } else {
    // A 409 that a unique index decided says which index (never the value): a conflict from an
    // index the code did not expect to race is a bug to find in the log, not to guess at.
    const violation = uniqueViolationOf(error.cause);
    if (violation !== null) state.logger.warn('unique violation answered as a conflict', { code: error.code, constraint: violation.name });
  }
  return {
    status: error.status,
    code: error.code,
    headers: error.headers,
    body: {
      error: {
        code: error.code,
        // Catalogue messages are ours to show (an upstream 503 names its upstream); anything
        // unexpected was already turned into internal_error's generic text by toWalletError.
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        ...(error.status >= 500 ? { request_id: state.requestId } : {}),
      },
    },
  };
}

/** The end of a request: reported to the metrics (by route template) and logged as its one line. */
export function endRequest(
  state: RequestState,
  baseLogger: Logger,
  metrics: MetricsRecorder,
  outcome: { method: string; path: string; status: number; code: string | undefined },
): void {
  const ms = performance.now() - state.started;
  metrics.request(outcome.method, state.route ?? UNMATCHED_ROUTE, outcome.status, ms / 1000);
  const { method, path, status, code } = outcome;
  logRequestLine(baseLogger, { requestId: state.requestId, method, path, status, code, ms: Math.round(ms * 10) / 10 });
}

/**
 * The outermost layer of every request: a request id, the JSON error body (docs/architecture.md#errors), and one
 * log line (method, path without query, status, ms, and the error code of a refused request;
 * never tokens or client IPs). It runs once per request even when both the app and a route
 * carry it, so a host app that mounts only the router still gets JSON errors (Koa's own
 * responder drops headers and answers text/plain).
 *
 * The same moment reports the request to the metrics, labelled with the route TEMPLATE a route
 * recorded (`/api/v1/users/{user_id}/keys`), never the path, so no id reaches a label.
 *
 * Only a 5xx is logged at error level, with its stack; a 503 whose cause is an UpstreamFailure
 * is logged at warn with the upstream and the reason instead. A client that went away mid-request is
 * 499 `client_closed` in the request line and nothing more: it must not trip 5xx alerting.
 */
export function requestBoundary(baseLogger: Logger, metrics: MetricsRecorder = noMetrics) {
  return async function boundary(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as Record<symbol, BoundaryState>;
    if (state[BOUNDARY]) return next();
    const own = beginRequest(ctx.req, ctx.res, baseLogger);
    state[BOUNDARY] = own;
    let code: string | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw coreErrors.create.not_found();
    } catch (err) {
      const answer = errorAnswer(err, own);
      code = answer.code;
      ctx.status = answer.status;
      for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
      ctx.body = answer.body;
    } finally {
      endRequest(own, baseLogger, metrics, { method: ctx.method, path: ctx.path, status: ctx.status, code });
    }
  };
}
