import type { PluginContext } from '@wallet/backend-core';

/** `wallet_premium_active_users`: users whose premium period has not ended, which is what the relay admits. */
export function registerPremiumMetrics(ctx: PluginContext): void {
  ctx.metrics.gauge({
    name: 'wallet_premium_active_users',
    help: 'Users whose premium period has not ended (premium_until after now).',
    read: async () => [{ value: await ctx.users.countPremiumActive(ctx.clock.now()) }],
  });
}
