import { coreErrors } from '../errors/index.js';
import { processorErrors } from '../processor/index.js';
import * as v from 'valibot';
import { ASSETS } from '../chains/index.js';
import { defineRoute } from '../http/index.js';
import { OPENAPI_VERSION } from '../http/index.js';
import type { WalletPlugin } from '../plugin/index.js';
import { coreMigrations } from '../storage/index.js';
import { checkReadiness, notReadyError, READINESS_TIMEOUT_MS } from './readiness.js';

const heightsResponse = v.object(Object.fromEntries(ASSETS.map((asset) => [asset, v.nullable(v.number())])));

/**
 * Core's system surface, registered through the plugin contract like any feature: the core
 * schema, liveness and readiness, capabilities, the OpenAPI document and chain heights.
 */
export function systemPlugin(deps: {
  openapi: () => Record<string, unknown>;
  capabilities: () => Record<string, unknown>;
  /** Every ledger id the backend expects applied (`core/001_core_schema`, then each plugin's). */
  expectedMigrations: () => readonly string[];
  /** Bound of the readiness check; READINESS_TIMEOUT_MS by default. */
  readinessTimeoutMs?: number;
}): WalletPlugin {
  return {
    name: 'core',
    errors: [coreErrors, processorErrors],
    migrations: coreMigrations,
    setup(ctx) {
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
            const verdict = await checkReadiness(ctx.db.knex, deps.expectedMigrations(), deps.readinessTimeoutMs);
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
          handler: () => deps.capabilities(),
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
          handler: () => deps.openapi(),
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
