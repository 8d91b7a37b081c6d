import type { AuditVerdict } from './audit.js';
import type { Clock } from '../clock/index.js';

/**
 * The last audit chain verification this process ran (the periodic `core-metrics.audit-verify`
 * task, the erasure sweep's check, a scrub's check), kept in memory: recording it writes
 * nothing to the chain's tables. Every process verifies on its own schedule (the task's lease
 * only keeps runs from overlapping), so alerting combines instances with `max()` of the time and
 * `min()` of the result. The shell's `audit verify` runs in a process of its own and does not
 * reach these series.
 */
export class AuditVerifications {
  private last: { at: Date; ok: boolean } | null = null;

  constructor(private readonly clock: Clock) {}

  record(verdict: AuditVerdict): void {
    this.last = { at: this.clock.now(), ok: verdict.ok };
  }

  /** Null until the first verification in this process. */
  latest(): { at: Date; ok: boolean } | null {
    return this.last;
  }
}

/**
 * The same chain, with every finished `verify` recorded, including those its own methods make
 * through `this` (a scrub verifies before it rewrites). A verification that throws (the
 * database went away) verified nothing and is not recorded.
 */
export function recordVerifications<T extends { verify(...args: never[]): Promise<AuditVerdict> }>(chain: T, verifications: AuditVerifications): T {
  return new Proxy(chain, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'verify' || typeof value !== 'function') return value;
      const verify = value as (...args: unknown[]) => Promise<AuditVerdict>;
      return async (...args: unknown[]) => {
        const verdict = await verify.apply(receiver, args);
        verifications.record(verdict);
        return verdict;
      };
    },
  });
}
