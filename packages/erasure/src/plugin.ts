import { erasureErrors } from './errors.js';
import type { WalletPlugin } from '@wallet/backend-core';
import { erasureMigrations } from './migrations.js';
import { registerErasureMetrics } from './metrics.js';
import { ERASURE_DEFAULTS, erasureOptionProblems, SWEEP_INTERVAL_MS, type ErasureOptions } from './options.js';
import { erasureRoutes } from './routes.js';
import { ErasureService } from './service.js';

/**
 * Self-service account erasure and data export (spec › Account erasure and export). The routes
 * are always mounted and answer 400 `erasure_off` while it is off; the sweeper runs only while
 * it is on. The admin reads (stuck, requests, sweep) and the account summary answer either way:
 * a database once served with erasure on keeps its requests.
 *
 * @example
 * erasurePlugin({ enabled: true, gracePeriodHours: 72 })
 */
export function erasurePlugin(options: ErasureOptions = {}): WalletPlugin {
  const enabled = options.enabled ?? ERASURE_DEFAULTS.enabled;
  return {
    name: 'erasure',
    errors: [erasureErrors],
    version: '0.3.0',
    migrations: erasureMigrations,
    routes: [
      'POST /api/v1/account/erasure/challenge',
      'POST /api/v1/account/erasure',
      'POST /api/v1/account/erasure/{erasure_id}/confirm',
      'DELETE /api/v1/account/erasure/{erasure_id}',
      'POST /api/v1/account/export',
      'GET /api/v1/admin/erasure/stuck',
      'GET /api/v1/admin/erasure/requests',
      'GET /api/v1/admin/erasure/sweep',
    ],
    validateConfig: (settings) => erasureOptionProblems(options, settings),
    setup(ctx) {
      const service = new ErasureService({
        db: ctx.db,
        clock: ctx.clock,
        users: ctx.users,
        auth: ctx.auth,
        audit: ctx.audit,
        hooks: ctx.hooks,
        crypto: ctx.crypto,
        enabled,
        graceMs: (options.gracePeriodHours ?? ERASURE_DEFAULTS.gracePeriodHours) * 3_600_000,
        loginEvents: options.loginEvents ?? ERASURE_DEFAULTS.loginEvents,
      });
      ctx.hooks.onUserExport((userId) => service.exportFor(userId));
      ctx.hooks.onUserSummary(async (userId) => ({ ...(await service.summaryOf(userId)) }));
      ctx.capabilities.contribute(() => ({ erasure: enabled }));
      for (const route of erasureRoutes(service)) ctx.routes.add(route);
      registerErasureMetrics(ctx);
      if (!enabled) return;
      // Only while on: off, nothing could cancel a confirmed request, so a freeze would never end.
      ctx.auth.addSessionGuard((userId, trx) => service.guardSession(userId, trx));
      ctx.scheduler.every('sweep', SWEEP_INTERVAL_MS, async ({ logger }) => {
        const ended = await service.revokeFrozenSessions();
        if (ended > 0) logger.warn('erasure: ended the sessions of frozen accounts (opened while erasure was off)', { sessions: ended });
        const report = await service.sweep(logger);
        if (report.completed + report.failed + report.expired > 0) logger.info('erasure sweep', { ...report });
      });
    },
  };
}
