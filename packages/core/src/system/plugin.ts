import * as v from 'valibot';
import { ASSETS } from '../chains/index.js';
import { defineRoute } from '../http/index.js';
import { OPENAPI_VERSION } from '../http/index.js';
import type { WalletPlugin } from '../plugin/index.js';
import { coreMigrations } from '../storage/index.js';

const heightsResponse = v.object(Object.fromEntries(ASSETS.map((asset) => [asset, v.nullable(v.number())])));

/**
 * Core's system surface, registered through the plugin contract like any feature: the core
 * schema, health, capabilities, the OpenAPI document and chain heights.
 */
export function systemPlugin(deps: {
  openapi: () => Record<string, unknown>;
  capabilities: () => Record<string, unknown>;
}): WalletPlugin {
  return {
    name: 'core',
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
