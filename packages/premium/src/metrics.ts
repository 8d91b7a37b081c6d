import type { PluginContext } from '@wallet/backend-core';

/**
 * `wallet_premium_active_users`: users whose premium period has not ended (premium_until after
 * now), linked Nostr key or not. Not the relay's premium set: that also needs a linked
 * nostr_pubkey (`relay_premium` in the status).
 */
export function registerPremiumMetrics(ctx: PluginContext): void {
  ctx.metrics.gauge({
    name: 'wallet_premium_active_users',
    help: 'Users whose premium period has not ended (premium_until after now), with or without a linked Nostr key.',
    read: async () => [{ value: await ctx.users.countPremiumActive(ctx.clock.now()) }],
  });
}
