import { toJsonSchema } from '@valibot/to-json-schema';
import { coreErrors } from '../errors/index.js';
import { fullPath, type AnyRoute, type AnySchema } from './route.js';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  serverUrl?: string;
}

export const OPENAPI_VERSION = '0.3.0';

function schemaOf(schema: AnySchema, typeMode: 'input' | 'output'): Json {
  const json = toJsonSchema(schema, { target: 'draft-2020-12', typeMode, errorMode: 'ignore' }) as Json;
  delete json.$schema;
  return json;
}

/** Path and query parameters from an object schema's entries. */
function parametersOf(location: 'path' | 'query', schema: AnySchema | undefined): Json[] {
  if (schema === undefined) return [];
  const json = schemaOf(schema, 'input');
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

function responsesOf(route: AnyRoute): Json {
  const success = String(route.successStatus ?? 200);
  const responses: Json = {
    [success]: {
      description: 'Success',
      ...(route.response ? { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } } : {}),
    },
  };
  const errorStatuses = new Set<number>(Object.keys(route.statuses ?? {}).map(Number));
  // A route that answers every input (NIP-05) has no 400 to document.
  if ((route.body || route.query || route.params) && route.neverRefuses !== true) errorStatuses.add(400);
  if (route.auth !== 'none') errorStatuses.add(401);
  if (route.body) errorStatuses.add(413).add(415);
  if (route.auth === 'none' && route.rateLimit !== false) errorStatuses.add(429);
  for (const status of [...errorStatuses].sort()) {
    if (String(status) === success) continue;
    responses[String(status)] = {
      description: route.statuses?.[status] ?? STANDARD_ERRORS[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    };
  }
  return responses;
}

function operationOf(route: AnyRoute): Json {
  return {
    operationId: `${route.method.toLowerCase()}${fullPath(route).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    ...(route.auth === 'bearer' ? { security: [{ bearer_auth: [] }] } : { security: [] }),
    parameters: [...parametersOf('path', route.params), ...parametersOf('query', route.query)],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } }
      : {}),
    responses: responsesOf(route),
  };
}

/**
 * The OpenAPI 3.1 document, generated from the same route declarations and valibot schemas
 * that validate requests, so the two cannot drift. Routes marked `internal` are left out.
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.openapi === 'internal') continue;
    const path = fullPath(route);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationOf(route) };
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
      schemas: {
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
