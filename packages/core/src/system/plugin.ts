import { coreErrors } from '../errors/index.js';
import { processorErrors } from '../processor/index.js';
import * as v from 'valibot';
import { ASSETS } from '../chains/index.js';
import { defineRoute } from '../http/index.js';
import { OPENAPI_VERSION } from '../http/index.js';
import type { CoreFeature } from '../extensions/index.js';
import { coreMigrations } from '../storage/index.js';
import { checkReadiness, notReadyError, READINESS_TIMEOUT_MS } from './readiness.js';

const heightsResponse = v.pipe(v.object(Object.fromEntries(ASSETS.map((asset) => [asset, v.nullable(v.number())]))), v.title('ChainHeights'));
const healthResponse = v.pipe(v.object({ status: v.literal('ok') }), v.title('HealthResponse'));
const readinessResponse = v.pipe(v.object({ status: v.literal('ready') }), v.title('ReadinessResponse'));
const asset = v.picklist(ASSETS);

/**
 * `/capabilities` (spec › Capabilities rules): every key a contributor of this repository adds.
 * Core's and the registration gates' keys are always present; a feature plugin's keys only when
 * that plugin is installed (tips, premium, Grin relay, erasure), so they are optional. Not strict:
 * a host's own plugin may contribute further keys. The capabilities test compares this list with
 * a live response.
 */
export const capabilitiesResponse = v.pipe(
  v.object({
    /** The API version (the OpenAPI document's `info.version`). */
    api_version: v.string(),
    /** The enabled chains. */
    chains: v.array(asset),
    proof_of_work: v.boolean(),
    invite_required: v.boolean(),
    payment_required: v.boolean(),
    /** The registration price while the payment gate is on, else null. */
    registration_price: v.nullable(v.object({ amount: v.string(), currency: v.string() })),
    /** Tips are serveable: the feature is on and a chain with addresses is enabled (tips plugin). */
    tips: v.optional(v.boolean()),
    /** While `tips`: the assets a tip can be made in. */
    tip_assets: v.optional(v.array(asset)),
    /** While `tips`: tips addressed to a handle are on. */
    targeted_tips: v.optional(v.boolean()),
    /** Premium is on (premium plugin). */
    premium_relay: v.optional(v.boolean()),
    /** While `premium_relay`: the plans, their currency and the relay they unlock. */
    premium: v.optional(
      v.object({
        currency: v.string(),
        plans: v.array(v.object({ id: v.string(), days: v.number(), amount: v.string() })),
        relay_url: v.string(),
      }),
    ),
    /** The Grin relay (grin-relay plugin); its limits while enabled. */
    grin_relay: v.optional(v.object({ enabled: v.boolean(), expiry_hours: v.optional(v.number()), max_slatepack_bytes: v.optional(v.number()) })),
    /** Self-service erasure and export are on (erasure plugin). */
    erasure: v.optional(v.boolean()),
  }),
  v.title('CapabilitiesResponse'),
);

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
          operationId: 'getHealth',
          summary: 'Liveness',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: healthResponse,
          handler: () => ({ status: 'ok' }),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/health/ready',
          operationId: 'getReadiness',
          errors: ['not_ready'],
          summary: 'Readiness: the database answers and every migration is applied',
          description:
            'Liveness (`/health`) says the process serves HTTP; readiness says it can serve requests: the database ' +
            `answers a trivial query and every core and plugin migration is applied, within ${READINESS_TIMEOUT_MS} ms. ` +
            'Otherwise 503 `not_ready`, whose `details[0].path` names the failed check (`database` or `migrations`).',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: readinessResponse,
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
          operationId: 'getCapabilities',
          summary: 'Enabled chains, features and registration gates',
          tags: ['system'],
          auth: 'none',
          rateLimit: false,
          response: capabilitiesResponse,
          handler: () => core.backend.capabilities(),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/openapi.json',
          operationId: 'getOpenApiDocument',
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
          operationId: 'getChainHeights',
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
