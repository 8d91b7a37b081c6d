import { cancellingTimeout, type PluginContext } from '@wallet/backend-core';
import { TIPS_TABLE } from './migrations.js';
import { TIP_STATUSES } from './tip.js';

/**
 * `wallet_tips{status}`: every status, 0 included, so a status that empties still has a series
 * to alert on. Registered whether tips are on or off: tips kept while they were on remain.
 */
export function registerTipMetrics(ctx: PluginContext): void {
  ctx.metrics.gauge({
    name: 'wallet_tips',
    help: 'Tips by status (draft, pending_confirmation, pending, claiming, claimed, …).',
    labelNames: ['status'],
    read: async () => {
      // The (status, updated_at) index answers this without reading the rows.
      const rows = (await cancellingTimeout(ctx.db.knex(TIPS_TABLE).select('status').count({ n: '*' }).groupBy('status'))) as Array<{ status: string; n: number | string }>;
      const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
      return TIP_STATUSES.map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 }));
    },
  });
}
