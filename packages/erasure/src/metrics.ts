import { cancellingTimeout, type PluginContext } from '@wallet/backend-core';
import { ERASURE_TABLE } from './migrations.js';
import { ERASURE_STATUS, LIVE_STATUSES } from './request.js';

/**
 * `wallet_erasure_requests{status}` (live requests: awaiting confirmation, or confirmed and in
 * their grace period or due) and `wallet_erasure_requests_stuck`: confirmed requests past their
 * due time, the same set `/admin/erasure/stuck` lists. A request is there briefly until the next
 * sweep takes it; one that stays is failing (a broken audit chain, a hook that throws).
 * Both read the (status, due_at) index.
 */
export function registerErasureMetrics(ctx: PluginContext): void {
  ctx.metrics.gauge({
    name: 'wallet_erasure_requests',
    help: 'Live account erasure requests by status: requested (awaiting confirmation) or confirmed (in the grace period or due).',
    labelNames: ['status'],
    read: async () => {
      const rows = (await cancellingTimeout(ctx.db.knex(ERASURE_TABLE).whereIn('status', LIVE_STATUSES).select('status').count({ n: '*' }).groupBy('status'))) as Array<{ status: string; n: number | string }>;
      const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
      return LIVE_STATUSES.map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 }));
    },
  });
  ctx.metrics.gauge({
    name: 'wallet_erasure_requests_stuck',
    help: 'Confirmed account erasure requests past their due time (what /admin/erasure/stuck lists); above 0 for longer than a sweep interval means erasures are failing.',
    read: async () => {
      const row = (await cancellingTimeout(
        ctx.db
          .knex(ERASURE_TABLE)
          .where({ status: ERASURE_STATUS.confirmed })
          .where('due_at', '<=', ctx.db.dialect.time(ctx.clock.now()))
          .count({ n: '*' })
          .first(),
      )) as { n: number | string } | undefined;
      return [{ value: Number(row?.n ?? 0) }];
    },
  });
}
