import { coreErrors } from '../errors/index.js';
import { processorErrors } from '../processor/index.js';
import * as v from 'valibot';
import { ASSETS } from '../chains/index.js';
import { defineRoute } from '../http/index.js';
import { OPENAPI_VERSION } from '../http/index.js';
import type { CoreFeature } from '../extensions/index.js';
import { coreMigrations } from '../storage/index.js';
import { checkReadiness, notReadyError, READINESS_TIMEOUT_MS } from './readiness.js';

const heightsResponse = v.object(Object.fromEntries(ASSETS.map((asset) => [asset, v.nullable(v.number())])));

/**
 * Core's system surface, registered through the plugin contract like any feature: the core
 * schema, liveness and readiness, capabilities, the OpenAPI document and chain heights. The
 * backend's description of itself comes from the core extensions (`core.backend`).
 */
export function systemPlugin(options: {
  /** Bound of the readiness check; READINESS_TIMEOUT_MS by default. */
  readinessTimeoutMs?: number;
} = {}): CoreFeature {
  return {
    name: 'core',
    errors: [coreErrors, processorErrors],
    migrations: coreMigrations,
    routes: [
      'GET /api/v1/health',
      'GET /api/v1/health/ready',
      'GET /api/v1/capabilities',
      'GET /api/v1/openapi.json',
      'GET /api/v1/wallet/heights',
    ],
    setup(ctx, core) {
      ctx.capabilities.contribute(() => ({ api_version: OPENAPI_VERSION, chains: ctx.chains.enabled }));
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/health',
          summary: 'Liveness',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: v.object({ status: v.literal('ok') }),
          handler: () => ({ status: 'ok' }),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/health/ready',
          summary: 'Readiness: the database answers and every migration is applied',
          description:
            'Liveness (`/health`) says the process serves HTTP; readiness says it can serve requests: the database ' +
            `answers a trivial query and every core and plugin migration is applied, within ${READINESS_TIMEOUT_MS} ms. ` +
            'Otherwise 503 `not_ready`, whose `details[0].path` names the failed check (`database` or `migrations`).',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: v.object({ status: v.literal('ready') }),
          statuses: { 503: 'Not ready (`not_ready`): the database is unreachable or too slow, or a migration is pending' },
          handler: async () => {
            const verdict = await checkReadiness(ctx.db.knex, core.backend.expectedMigrations(), options.readinessTimeoutMs);
            if (verdict) throw notReadyError(verdict);
            return { status: 'ready' };
          },
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/capabilities',
          summary: 'Enabled chains, features and registration gates',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: v.record(v.string(), v.unknown()),
          handler: () => core.backend.capabilities(),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/openapi.json',
          summary: 'This API description (OpenAPI 3.1)',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          openapi: 'internal',
          handler: () => core.backend.openapi(),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/wallet/heights',
          summary: 'Tip height per chain; null when the chain is disabled, unreachable or too slow',
          tags: ['chains'],
          auth: 'bearer',
          response: heightsResponse,
          handler: () => ctx.chains.heights(ctx.settings.upstreamTimeoutMs),
        }),
      );
    },
  };
}
