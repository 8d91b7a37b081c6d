import type { Clock } from '../clock/index.js';
import type { Settings } from '../config/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { Database } from '../storage/index.js';
import { DatabaseRateLimitStore } from './rate-limit-database.js';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';

/** The scheduler task that deletes ended windows of the database store. */
export const RATE_LIMIT_SWEEP_TASK = 'core.rate-limit-sweep';

/**
 * The limiter's store as `RATE_LIMIT_STORAGE` says (a host's own `rateLimitStore` option wins
 * before this is asked). The database store gets a sweep once per window, run by one process
 * at a time like every scheduled task.
 */
export function chooseRateLimitStore(settings: Settings, db: Database, scheduler: Scheduler, clock: Clock): RateLimitStore {
  if (settings.rateLimitStorage === 'memory') return new MemoryRateLimitStore();
  const store = new DatabaseRateLimitStore(db);
  scheduler.every(RATE_LIMIT_SWEEP_TASK, settings.rateLimitWindowSec * 1000, async () => {
    await store.sweep(clock.now().getTime());
  });
  return store;
}
