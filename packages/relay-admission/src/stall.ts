import type { Logger } from '@wallet/backend-core/database';
import { within } from './deadline.js';

/** Thrown when a read is not even tried: the database stopped answering and has not answered since. */
export class DatabaseStalled extends Error {
  constructor() {
    super('the wallet database has not answered since a read timed out; refused without asking it');
  }
}

/** Thrown when a read outlasts its deadline. */
export class DatabaseTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`the wallet database did not answer within ${timeoutMs} ms`);
  }
}

export interface StallWatchOptions {
  /** A read slower than this is refused, and the database is taken as stalled. */
  timeoutMs: number;
  /** While stalled, one read at a time is let through as a probe, waited on this long before the event is refused anyway. */
  probeWaitMs: number;
  /** The least time between two probes, so a database that fails fast (a refused connection, a busy SQLite file) is not asked by every event. */
  probeIntervalMs: number;
  /** A probe still unanswered after this long stops counting, so the next decision may send another. */
  probeExpiryMs: number;
  now: () => number;
  logger: Logger;
}

/**
 * Keeps the relay from waiting on a stalled database more than once. The relay asks one
 * decision at a time, so a read that waits its whole timeout holds every later event behind it.
 * After one read times out or fails (the caller reports that one), the database counts as
 * stalled. Until it answers again,
 * a decision that needs it is refused at once, except for one probe at a time. The probe is a
 * real read: it is waited on briefly, then left running, and its answer ends the stall. Cached
 * answers never come here, so they are unaffected.
 */
export class StallWatch {
  private stalled = false;
  private probe: { settled: boolean; startedAt: number } | null = null;

  constructor(private readonly options: StallWatchOptions) {}

  get isStalled(): boolean {
    return this.stalled;
  }

  /** `read()`'s answer within the timeout; while stalled, a probe's answer within `probeWaitMs`, or DatabaseStalled at once. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    if (!this.stalled) {
      const work = read();
      try {
        return await within(work, this.options.timeoutMs, () => {
          throw new DatabaseTimeout(this.options.timeoutMs);
        });
      } catch (err) {
        this.stalled = true;
        if (err instanceof DatabaseTimeout) this.watch(work);
        throw err;
      }
    }
    if (!this.mayProbe()) throw new DatabaseStalled();
    const work = read();
    this.watch(work);
    // A failed probe is the same outage, already reported: it is not worth a line per probe.
    return within(work.catch(() => Promise.reject(new DatabaseStalled())), this.options.probeWaitMs, () => {
      throw new DatabaseStalled();
    });
  }

  private mayProbe(): boolean {
    if (this.probe === null) return true;
    const age = this.options.now() - this.probe.startedAt;
    return this.probe.settled ? age >= this.options.probeIntervalMs : age >= this.options.probeExpiryMs;
  }

  /** Follows a read left running: its answer ends the stall; its failure frees the next probe. */
  private watch(work: Promise<unknown>): void {
    const probe = { settled: false, startedAt: this.options.now() };
    this.probe = probe;
    work.then(
      () => {
        probe.settled = true;
        if (this.stalled) {
          this.stalled = false;
          this.options.logger.info('the wallet database answers again; admission reads it as before');
        }
      },
      () => {
        probe.settled = true;
      },
    );
  }
}
