import type { CoreFeature } from '../extensions/index.js';

/** The challenge-expiry sweep (spec › Events 2), the scheduler's first task. */
export function challengesPlugin(): CoreFeature {
  return {
    name: 'core-challenges',
    routes: [],
    setup(ctx) {
      ctx.scheduler.every('expiry-sweep', ctx.settings.challengeSweepIntervalSec * 1000, async ({ now, logger }) => {
        const removed = await ctx.auth.challenges.sweepExpired(now);
        if (removed > 0) logger.info('expired challenges removed', { removed });
      });
    },
  };
}
