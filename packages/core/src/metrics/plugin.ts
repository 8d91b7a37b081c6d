import type { CoreFeature } from '../extensions/index.js';
import { cancellingTimeout } from './state.js';

/** A chain walk is a page of HMACs per 1,000 entries: cheap enough four times a day, frequent enough for a day-scale alert. */
export const AUDIT_VERIFY_INTERVAL_MS = 6 * 3_600_000;

/**
 * Core's application-state gauges: registered users, and the audit chain's last verification
 * in this process. With metrics on it also verifies the chain every
 * {@link AUDIT_VERIFY_INTERVAL_MS}, so "last verified" means something on an instance where no
 * erasure ever runs.
 */
export function coreMetricsPlugin(): CoreFeature {
  return {
    name: 'core-metrics',
    routes: [],
    setup(ctx, core) {
      ctx.metrics.gauge({
        name: 'wallet_users',
        help: 'Registered users (accounts that exist now).',
        // A count of the whole table (no index narrows it): cancelled on Postgres past the budget.
        read: async () => {
          const row = (await cancellingTimeout(ctx.db.knex('users').count({ n: '*' })).first()) as { n: number | string } | undefined;
          return [{ value: Number(row?.n ?? 0) }];
        },
      });
      ctx.metrics.gauge({
        name: 'wallet_audit_chain_last_verified_timestamp_seconds',
        help: 'When this process last verified the operator audit chain (Unix time); 0 before its first verification.',
        memory: true,
        read: () => {
          const latest = core.auditVerifications.latest();
          return Promise.resolve([{ value: latest === null ? 0 : latest.at.getTime() / 1000 }]);
        },
      });
      ctx.metrics.gauge({
        name: 'wallet_audit_chain_verified',
        help: "1 when this process's last verification of the operator audit chain passed, 0 when it found a break; absent before the first.",
        memory: true,
        read: () => {
          const latest = core.auditVerifications.latest();
          return Promise.resolve(latest === null ? [] : [{ value: latest.ok ? 1 : 0 }]);
        },
      });
      if (ctx.settings.metricsListen === undefined) return;
      ctx.scheduler.every('audit-verify', AUDIT_VERIFY_INTERVAL_MS, async ({ logger }) => {
        const verdict = await ctx.audit.verify();
        if (!verdict.ok) logger.error('the operator audit chain does not verify', { broken_at: verdict.brokenAt, reason: verdict.reason });
      });
    },
  };
}
