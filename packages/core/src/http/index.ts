export {
  defineRoute,
  fullPath,
  adminScopeOf,
  type AdminScope,
  toRouterPath,
  routeKey,
  API_PREFIX,
  type RouteDefinition,
  type RouteInput,
  type AnyRoute,
  type AnySchema,
  type AuthKind,
  type HttpMethod,
  type Platform,
  type UserAuth,
  type AdminAuth,
} from './route.js';
export { routeMiddleware, routeHandler, type RouteKit, type RouteHandler } from './pipeline.js';
export { RouteTable, type TableRoute, type TableMatch } from './route-table.js';
export { dispatchThroughTable } from './dispatch.js';
export { directListener } from './direct.js';
export { requestBoundary, toWalletError } from './boundary.js';
export { createClientIpResolver, normaliseIp, type ClientIpResolver } from './client-ip.js';
export { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';
export { DatabaseRateLimitStore } from './rate-limit-database.js';
export { chooseRateLimitStore, RATE_LIMIT_SWEEP_TASK } from './rate-limit-choice.js';
export { buildOpenApiDocument, operationIdOf, operationIdProblems, OPENAPI_VERSION, type OpenApiInfo } from './openapi.js';
export { readRawBody, parseJsonBody, isClientAbort } from './body.js';
export { parseInput, safeIntegerText } from './validate.js';
export { pageCursor, pageLimit, pageQuery, nextAfterField, nextAfter, encodeCursor, decodeCursor, type PageCursor } from './paging.js';
export { requestDrain, type RequestDrain, type RequestListener } from './drain.js';
