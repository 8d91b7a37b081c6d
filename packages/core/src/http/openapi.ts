import { toJsonSchema } from '@valibot/to-json-schema';
import { coreErrors } from '../errors/index.js';
import { SchemaComponents } from './openapi-names.js';
import { fullPath, type AnyRoute, type AnySchema } from './route.js';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  serverUrl?: string;
  /**
   * Every error code this server's catalogues declare, with its status (core's own when omitted):
   * a route's declared `errors` are listed under their status, and a code no catalogue declares
   * (a feature this server does not run) is left out.
   */
  errorCodes?: ReadonlyMap<string, number>;
}

/** camelCase, verb-first: a method name in any generated client. */
const OPERATION_ID = /^[a-z][A-Za-z0-9]*$/;

/** The kit's own codes, implied by a route's shape (pipeline.ts, body.ts, validate.ts, the guards). */
function kitCodes(route: AnyRoute, status: number): string[] {
  switch (status) {
    case 400:
      return route.neverRefuses === true ? [] : route.body ? ['invalid_request', 'invalid_json'] : ['invalid_request'];
    case 401:
      return route.auth === 'none' ? [] : ['unauthorized'];
    case 413:
      return route.body ? ['payload_too_large'] : [];
    case 415:
      return route.body ? ['unsupported_media_type'] : [];
    case 429:
      return route.auth === 'none' && route.rateLimit !== false ? ['rate_limited'] : [];
    default:
      return [];
  }
}

/** The error codes of each error status of `route`: the kit's, then the route's declared ones this server knows. */
function errorCodesOf(route: AnyRoute, codes: ReadonlyMap<string, number>): Map<number, Set<string>> {
  const byStatus = new Map<number, Set<string>>();
  const add = (status: number, code: string) => (byStatus.get(status) ?? byStatus.set(status, new Set()).get(status)!).add(code);
  for (const status of [400, 401, 413, 415, 429]) for (const code of kitCodes(route, status)) add(status, code);
  for (const code of route.errors ?? []) {
    const status = codes.get(code);
    if (status !== undefined) add(status, code);
  }
  return byStatus;
}

/**
 * A route's operationId: the one it declares (every shipped route does), else one derived from
 * its method and path (`getApiV1Things`), as before ids were declared, so an outside plugin's
 * route is still documented.
 */
export const operationIdOf = (route: AnyRoute): string =>
  route.operationId ?? `${route.method.toLowerCase()}${fullPath(route).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;

/**
 * Declared operationIds that are not camelCase or are declared twice: a generated client's method
 * names must not collide. The boot refuses them (plugin/registry.ts), so a served document never does.
 */
export function operationIdProblems(routes: readonly AnyRoute[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const route of routes) {
    const id = route.operationId;
    if (id === undefined) continue;
    const where = `${route.method} ${fullPath(route)}`;
    if (!OPERATION_ID.test(id)) problems.push(`operationId "${id}" of ${where} is not camelCase letters and digits`);
    const first = seen.get(id);
    if (first !== undefined) problems.push(`operationId "${id}" is declared by both ${first} and ${where}`);
    else seen.set(id, where);
  }
  return problems;
}

export const OPENAPI_VERSION = '0.3.0';

/** Path and query parameters from an object schema's entries (always inline: a parameter is no type). */
function parametersOf(location: 'path' | 'query', schema: AnySchema | undefined): Json[] {
  if (schema === undefined) return [];
  const json = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as Json;
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid input (`invalid_request`, `invalid_json`) or an operation not allowed now',
  401: 'Missing or invalid access token or proof',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  429: 'Rate limited; see Retry-After',
};
/** A route with no declared input still has its query string checked by the kit (pipeline.ts, validate.ts). */
const NUL_IN_QUERY = 'A NUL character in the query string (`invalid_request`)';

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "This request's id, on every response: the client's own `X-Request-Id` when it is 8 to 128 characters of `A-Za-z0-9._-`, " +
      'otherwise a new UUID. The server logs it; a 5xx body repeats it as `request_id`.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{8,128}$' },
  },
  'Retry-After': {
    description: 'Seconds until the client may retry (rate limit, restore-check governor).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/**
 * The headers every response of `route` carries: the boundary's `X-Request-Id` on all of them,
 * the route's static headers (set before anything can fail, so on errors too), and
 * `Retry-After` on a 429 (both the limiter and the restore governor send it).
 */
function headersOf(route: AnyRoute, status: number): Json {
  const headers: Json = { 'X-Request-Id': header('X-Request-Id') };
  for (const [name, value] of Object.entries(route.headers ?? {})) headers[name] = { schema: { type: 'string', const: value } };
  if (status === 429) headers['Retry-After'] = header('Retry-After');
  return headers;
}

function responsesOf(route: AnyRoute, where: string, components: SchemaComponents, codes: ReadonlyMap<string, number>): Json {
  const success = route.successStatus ?? 200;
  const responses: Json = {
    [success]: {
      description: 'Success',
      headers: headersOf(route, success),
      ...(route.response ? { content: { 'application/json': { schema: components.convert(route.response, 'output', `${where} response`) } } } : {}),
    },
  };
  const codesByStatus = errorCodesOf(route, codes);
  const errorStatuses = new Set<number>([...Object.keys(route.statuses ?? {}).map(Number), ...codesByStatus.keys()]);
  const declaresInput = Boolean(route.body || route.query || route.params);
  // Every route but one that answers every input (NIP-05) refuses a NUL in its query string.
  if (route.neverRefuses !== true) errorStatuses.add(400);
  if (route.auth !== 'none') errorStatuses.add(401);
  if (route.body) errorStatuses.add(413).add(415);
  if (route.auth === 'none' && route.rateLimit !== false) errorStatuses.add(429);
  for (const status of [...errorStatuses].sort()) {
    if (status === success) continue;
    const fallback = status === 400 && !declaresInput ? NUL_IN_QUERY : STANDARD_ERRORS[status];
    responses[String(status)] = {
      description: route.statuses?.[status] ?? fallback ?? 'Error',
      'x-error-codes': [...(codesByStatus.get(status) ?? [])].sort(),
      headers: headersOf(route, status),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    };
  }
  return responses;
}

function operationOf(route: AnyRoute, components: SchemaComponents, codes: ReadonlyMap<string, number>): Json {
  const where = `${route.method} ${fullPath(route)}`;
  return {
    operationId: operationIdOf(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    ...(route.auth === 'bearer' ? { security: [{ bearer_auth: [] }] } : { security: [] }),
    parameters: [...parametersOf('path', route.params), ...parametersOf('query', route.query)],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: components.convert(route.body, 'input', `${where} body`) } } } }
      : {}),
    responses: responsesOf(route, where, components, codes),
  };
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations and valibot schemas
 * that validate requests, so the two cannot drift. Routes marked `internal` are left out. Every
 * request and response body is a named component (`v.title`), every operation has its declared
 * `operationId` (a route that declares none gets one derived from its path), and every error response lists its codes in `x-error-codes`
 * (docs/decisions.md#openapi-for-generated-clients-issue-33).
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo): Json {
  const idProblems = operationIdProblems(routes);
  if (idProblems.length > 0) throw new Error(`OpenAPI: ${idProblems.join('; ')}`);
  const codes = info.errorCodes ?? new Map(Object.entries(coreErrors.specs).map(([code, spec]) => [code, spec.status]));
  const paths: Record<string, Json> = {};
  const components = new SchemaComponents(new Set(['ErrorResponse']));
  for (const route of routes) {
    if (route.openapi === 'internal') continue;
    const path = fullPath(route);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationOf(route, components, codes) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: { bearer_auth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      headers: HEADERS,
      schemas: {
        ...components.all(),
        ErrorResponse: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', description: 'Stable snake_case code', examples: Object.keys(coreErrors.specs) },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
                },
                request_id: { type: 'string', description: 'Present on 5xx responses' },
              },
            },
          },
        },
      },
    },
  };
}
