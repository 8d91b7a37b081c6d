import { TipsAdmin } from './admin.js';
import { tipErrors } from './errors.js';
import type { WalletPlugin } from '@wallet/backend-core';
import { tipsMigrations } from './migrations.js';
import { registerTipMetrics } from './metrics.js';
import { TIPS_DEFAULTS, tipsOptionProblems, type TipsOptions } from './options.js';
import { adminTipsRoutes, tipsRoutes } from './routes.js';
import { TipsService } from './service.js';
import { TIP_ASSETS, type TipAsset } from './tip.js';
import { TipWorkers, type RunReport } from './workers.js';

const HOUR_MS = 3_600_000;
const FIVE_MINUTES_MS = 5 * 60_000;
/** How often the chain is read for funding and sweeps: a block is at least a minute on every chain. */
const CHAIN_WATCH_MS = 60_000;

const reported = (what: string, report: RunReport, logger: { info(message: string, fields?: Record<string, unknown>): void }) => {
  if (report.moved > 0 || report.failed > 0) logger.info(what, { moved: report.moved, failed: report.failed });
};

/**
 * Public and targeted tips (spec › Public tips). The routes are always mounted and answer 400
 * `tips_off` while tips are off (spec › General rule 1); the workers and the operator's read-only
 * `/admin/tips` routes run only while they are on. The account view's section is always there.
 *
 * @example
 * const backend = await createWalletBackend({ ...settings, plugins: [tipsPlugin({ enabled: true, shareBase: 'https://wallet.example/tip/' })] });
 */
export function tipsPlugin(options: TipsOptions = {}): WalletPlugin {
  const enabled = options.enabled ?? TIPS_DEFAULTS.enabled;
  const targeted = enabled && (options.targeted ?? TIPS_DEFAULTS.targeted);
  return {
    name: 'tips',
    errors: [tipErrors],
    version: '0.3.0',
    migrations: tipsMigrations,
    routes: [
      'POST /api/v1/tips/social',
      'GET /api/v1/tips/social/sent',
      'GET /api/v1/tips/social/inbox',
      'GET /api/v1/tips/social/claimable',
      'POST /api/v1/tips/social/{tip_id}/attach-funding',
      'POST /api/v1/tips/social/{tip_id}/cancel',
      'POST /api/v1/tips/social/{tip_id}/claim',
      'POST /api/v1/tips/social/{tip_id}/clawback',
      'POST /api/v1/tips/social/{tip_id}/confirm-sweep',
      'GET /api/v1/tips/social/{tip_id}/public',
      // The operator's (docs/admin.md › Tips), added only while tips are on.
      'GET /api/v1/admin/tips/stats',
      'GET /api/v1/admin/tips/stuck',
      'GET /api/v1/admin/tips/{tip_id}',
    ],
    validateConfig: (settings) => tipsOptionProblems(options, settings),
    setup(ctx) {
      const assets = (): TipAsset[] => TIP_ASSETS.filter((asset) => (ctx.chains.enabled as readonly string[]).includes(asset));
      const service = new TipsService({
        db: ctx.db,
        clock: ctx.clock,
        users: ctx.users,
        network: ctx.settings.chainNetwork,
        enabled,
        targeted,
        assets,
        shareBase: options.shareBase ?? '',
        chains: ctx.chains,
        maxUnconfirmedPerSender: options.maxUnconfirmedPerSender ?? TIPS_DEFAULTS.maxUnconfirmedPerSender,
      });
      // Tips kept while tips were on are erased and exported whether or not they are on now.
      ctx.hooks.onUserErasure((trx, userId) => service.eraseUser(trx, userId));
      ctx.hooks.onUserExport((userId) => service.exportFor(userId));
      const admin = new TipsAdmin(ctx.db, ctx.clock);
      // The account view counts them on or off, like the export.
      ctx.hooks.onUserSummary((userId) => admin.userSummary(userId));
      ctx.capabilities.contribute(() => {
        // Serveable while a chain with addresses is on (Grin alone is not: its amounts are hidden).
        const serveable = enabled && assets().some((asset) => asset !== 'grin');
        return { tips: serveable, ...(serveable ? { tip_assets: assets(), targeted_tips: targeted } : {}) };
      });
      // Off, the routes still answer (`tips_off`) but this server's document leaves them out.
      for (const route of tipsRoutes(service)) ctx.routes.add(enabled ? route : { ...route, openapi: 'internal' });
      registerTipMetrics(ctx);
      if (!enabled) return;
      for (const route of adminTipsRoutes(admin)) ctx.routes.add(route);
      ctx.scheduler.every('draft-gc', HOUR_MS, async ({ now, logger }) => {
        const cancelled = await service.cancelStaleDrafts(now);
        if (cancelled > 0) logger.info('stale tip drafts cancelled', { cancelled });
      });
      ctx.scheduler.every('lifecycle-gc', FIVE_MINUTES_MS, async ({ now, logger }) => {
        const cancelled = await service.cancelStaleUnconfirmed(now);
        if (cancelled > 0) logger.info('unconfirmed tips cancelled', { cancelled });
      });
      ctx.scheduler.every('stuck-claiming', FIVE_MINUTES_MS, ({ now, logger }) => service.logStuckClaiming(now, logger).then(() => undefined));
      const workers = new TipWorkers(ctx.db, ctx.clock, ctx.chains);
      ctx.scheduler.every('funding-watch', CHAIN_WATCH_MS, async ({ logger }) => reported('tip funding checked', await workers.confirmFunding(logger), logger));
      ctx.scheduler.every('sweep-reconciler', CHAIN_WATCH_MS, async ({ logger }) => reported('tip sweeps checked', await workers.reconcileSweeps(logger), logger));
      ctx.scheduler.every('grin-reorg-check', FIVE_MINUTES_MS, async ({ logger }) => reported('claimed grin tips checked for reorgs', await workers.checkGrinReorgs(logger), logger));
    },
  };
}
