/**
 * Storage for the unauthenticated-surface limiter. Keys are already hashed (never raw IPs), so
 * a shared store (Redis, a database) never holds a client address.
 */
export interface RateLimitStore {
  /** Counts one hit for `key` in the fixed window containing `nowMs`; returns the count so far and when the window ends. */
  hit(key: string, windowMs: number, nowMs: number): Promise<{ count: number; resetAtMs: number }>;
}

/** Fixed windows in process memory: the default, fine for one process. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAtMs: number }>();
  private nextSweepMs = 0;

  async hit(key: string, windowMs: number, nowMs: number): Promise<{ count: number; resetAtMs: number }> {
    if (nowMs >= this.nextSweepMs) this.sweep(nowMs, windowMs);
    const current = this.windows.get(key);
    if (current === undefined || current.resetAtMs <= nowMs) {
      const fresh = { count: 1, resetAtMs: nowMs + windowMs };
      this.windows.set(key, fresh);
      return { ...fresh };
    }
    current.count += 1;
    return { ...current };
  }

  /** Drops finished windows so memory stays bounded by the clients of one window. */
  private sweep(nowMs: number, windowMs: number): void {
    for (const [key, window] of this.windows) if (window.resetAtMs <= nowMs) this.windows.delete(key);
    this.nextSweepMs = nowMs + windowMs;
  }
}
