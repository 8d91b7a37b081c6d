import type * as v from 'valibot';
import type { Logger } from '../logger/index.js';

/** `OPTIONS` only for a route's own CORS preflight (NIP-05). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
/** `none`: public; `bearer`: a live user access token; `admin`: a live admin session token (both `Authorization: Bearer …`). */
export type AuthKind = 'none' | 'bearer' | 'admin';
export type Platform = 'extension' | 'web' | 'nostr';

/** Who the bearer guard says is calling. */
export interface UserAuth {
  userId: string;
  sessionId: string;
  platform: Platform;
}

export type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;
/** What an admin key may do: `full` everything, `read` look only. */
export type AdminScope = 'full' | 'read';

/** Who the admin guard says is calling: a live, intact admin key with a live admin session. */
export interface AdminAuth {
  keyId: string;
  pubkey: string;
  scope: AdminScope;
  sessionId: string;
}

type AuthFor<A extends AuthKind> = A extends 'bearer' ? UserAuth : A extends 'admin' ? AdminAuth : null;

/** What a handler receives: validated inputs, never the Koa context (STYLE §2). */
export interface RouteInput<A extends AuthKind, B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthFor<A>;
  /** Lower-cased request headers, as received. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The exact body bytes (signature schemes hash these, not a re-serialisation). */
  rawBody: Buffer;
  /** The resolved client address (socket, or forwarded chain through trusted proxies). Never log or store it raw. */
  clientIp: string;
  requestId: string;
  logger: Logger;
}

/**
 * A route declared as data (docs/architecture.md#layering). The HTTP kit validates every input with the schemas
 * before the handler runs and builds the OpenAPI document from the same declaration.
 */
export interface RouteDefinition<
  A extends AuthKind = AuthKind,
  B extends AnySchema | undefined = AnySchema | undefined,
  Q extends AnySchema | undefined = AnySchema | undefined,
  P extends AnySchema | undefined = AnySchema | undefined,
  R extends AnySchema | undefined = AnySchema | undefined,
> {
  method: HttpMethod;
  /** OpenAPI-style path (`/users/{user_id}/keys`), under `/api/v1` unless `root` is set. */
  path: string;
  /** Mount at the site root instead of under `/api/v1` (NIP-05). */
  root?: boolean;
  /**
   * The operation's stable name in the OpenAPI document, camelCase and verb-first (`getCapabilities`,
   * `createTip`): a generated client's method name. Every documented route needs one, unique in the
   * backend; the document refuses to build without (docs/decisions.md#openapi-for-generated-clients-issue-33).
   */
  operationId?: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: A;
  /**
   * The admin scope an `auth: 'admin'` route needs. By default a `GET` needs any live admin
   * session and every other method a `full` one, so a state change can never be reached by a
   * `read` key; a write a `read` admin may make (ending its own session) says `'read'`.
   */
  adminScope?: AdminScope;
  body?: B;
  query?: Q;
  params?: P;
  /** Documents the success body; not enforced at run time. */
  response?: R;
  /** Success status, 200 by default. */
  successStatus?: number;
  /** Further documented statuses and what they mean. */
  statuses?: Record<number, string>;
  /**
   * The catalogue error codes (`defineErrors`) the handler and its services can answer with. The
   * document lists them per status (`x-error-codes`), with the kit's own codes the route's shape
   * implies (`invalid_request`, `invalid_json`, `unauthorized`, `payload_too_large`,
   * `unsupported_media_type`, `rate_limited`), so those need not be repeated here. A code of a
   * feature this server does not run (no catalogue declares it) is left out of its document.
   */
  errors?: readonly string[];
  /** `internal` routes are served but left out of the public OpenAPI document (erasure). */
  openapi?: 'public' | 'internal';
  /** The unauthenticated-surface limiter; on by default for `auth: 'none'`, never for bearer routes. */
  rateLimit?: boolean;
  bodyLimitBytes?: number;
  /** Static response headers (NIP-05's `Access-Control-Allow-Origin: *`). */
  headers?: Record<string, string>;
  /**
   * A route that must answer every input (NIP-05 never errors): the kit's own NUL and number
   * refusals are skipped and the odd value reaches the schema, so the handler must treat it as
   * unknown and must not store or query it.
   */
  neverRefuses?: boolean;
  handler(input: RouteInput<A, Out<B>, Out<Q>, Out<P>>): Promise<unknown> | unknown;
}

/** Any declared route, with its generic types erased for storage in the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, any, any>;

/** Identity function that keeps a route's generic types inferred from its schemas. */
export function defineRoute<
  const A extends AuthKind,
  B extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  P extends AnySchema | undefined = undefined,
  R extends AnySchema | undefined = undefined,
>(route: RouteDefinition<A, B, Q, P, R>): RouteDefinition<A, B, Q, P, R> {
  return route;
}

export const API_PREFIX = '/api/v1';

/** The full path a route is served at, still in OpenAPI `{param}` form. */
export function fullPath(route: Pick<AnyRoute, 'path' | 'root'>): string {
  return route.root ? route.path : API_PREFIX + route.path;
}

/** The admin scope a route needs (see `RouteDefinition.adminScope`). */
export function adminScopeOf(route: Pick<AnyRoute, 'method' | 'adminScope'>): AdminScope {
  return route.adminScope ?? (route.method === 'GET' ? 'read' : 'full');
}

/** `{user_id}` → `:user_id`, for the router. */
export function toRouterPath(openapiPath: string): string {
  return openapiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export function routeKey(route: Pick<AnyRoute, 'method' | 'path' | 'root'>): string {
  return `${route.method} ${fullPath(route)}`;
}
