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

function responsesOf(route: AnyRoute, where: string, components: SchemaComponents): Json {
  const success = route.successStatus ?? 200;
  const responses: Json = {
    [success]: {
      description: 'Success',
      headers: headersOf(route, success),
      ...(route.response ? { content: { 'application/json': { schema: components.convert(route.response, 'output', `${where} response`) } } } : {}),
    },
  };
  const errorStatuses = new Set<number>(Object.keys(route.statuses ?? {}).map(Number));
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
      headers: headersOf(route, status),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    };
  }
  return responses;
}

function operationOf(route: AnyRoute, components: SchemaComponents): Json {
  const where = `${route.method} ${fullPath(route)}`;
  return {
    operationId: `${route.method.toLowerCase()}${fullPath(route).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    ...(route.auth === 'bearer' ? { security: [{ bearer_auth: [] }] } : { security: [] }),
    parameters: [...parametersOf('path', route.params), ...parametersOf('query', route.query)],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: components.convert(route.body, 'input', `${where} body`) } } } }
      : {}),
    responses: responsesOf(route, where, components),
  };
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations and valibot schemas
 * that validate requests, so the two cannot drift. Routes marked `internal` are left out.
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  const components = new SchemaComponents(new Set(['ErrorResponse']));
  for (const route of routes) {
    if (route.openapi === 'internal') continue;
    const path = fullPath(route);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationOf(route, components) };
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
