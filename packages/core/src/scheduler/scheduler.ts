import { randomUUID } from 'node:crypto';
import { addMs, type Clock } from '../clock/index.js';
import { describeError, type Logger } from '../logger/index.js';
import { noMetrics, type MetricsRecorder } from '../metrics/index.js';
import type { LeaseRepository } from './leases.js';

export interface TaskContext {
  /** Aborted when the scheduler stops; long tasks should check it between units of work. */
  signal: AbortSignal;
  now: Date;
  logger: Logger;
}

export type Task = (context: TaskContext) => Promise<void> | void;

export interface TaskOptions {
  /**
   * How long the lease is held while the task runs; another process may take over after it.
   * Must exceed the task's longest run. Default: 5 minutes.
   */
  leaseMs?: number;
  /** Delay before the first run after start(). Default: a random moment within the first interval (at most 5 s), spreading start-up load. */
  firstRunDelayMs?: number;
}

interface Registered {
  name: string;
  intervalMs: number;
  task: Task;
  leaseMs: number;
  firstRunDelayMs: number | undefined;
  timer: NodeJS.Timeout | undefined;
  running: Promise<boolean> | undefined;
}

const DEFAULT_LEASE_MS = 5 * 60_000;
const STOP_GRACE_MS = 10_000;
/** Past the recorded due time, so a timer never fires just before it. */
const DUE_TOLERANCE_MS = 5;

/**
 * Periodic background tasks with a database lease each, so server processes sharing one
 * database never run the same task at the same time, and run a scheduled task once per interval
 * between them: each run records when the task is next due, and a timer run anywhere before
 * then finds the lease refused. The process that ran a task arms its next run for that moment,
 * so it stays the runner while it lives; another takes over when it stops. A task that throws
 * is logged and simply runs again at its next interval.
 */
export class Scheduler {
  private readonly tasks = new Map<string, Registered>();
  private readonly holder = randomUUID();
  private controller = new AbortController();
  private started = false;

  constructor(
    private readonly leases: LeaseRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: MetricsRecorder = noMetrics,
  ) {}

  /** Registers `task` to run every `intervalMs` once the scheduler starts. Names are unique. */
  every(name: string, intervalMs: number, task: Task, options: TaskOptions = {}): void {
    if (this.tasks.has(name)) throw new Error(`scheduler task "${name}" is registered twice`);
    if (!Number.isInteger(intervalMs) || intervalMs < 10) throw new Error(`scheduler task "${name}": interval must be an integer of at least 10 ms`);
    this.tasks.set(name, {
      name,
      intervalMs,
      task,
      leaseMs: options.leaseMs ?? Math.max(DEFAULT_LEASE_MS, intervalMs),
      firstRunDelayMs: options.firstRunDelayMs,
      timer: undefined,
      running: undefined,
    });
    if (this.started) this.arm(this.tasks.get(name)!, this.firstDelay(this.tasks.get(name)!));
  }

  get taskNames(): string[] {
    return [...this.tasks.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.controller = new AbortController();
    for (const task of this.tasks.values()) this.arm(task, this.firstDelay(task));
  }

  /**
   * Stops arming new runs, signals running tasks and waits for them, at most `graceMs`: a task
   * that ignores its abort signal is logged and left behind rather than blocking shutdown.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.started = false;
    this.controller.abort();
    for (const task of this.tasks.values()) clearTimeout(task.timer);
    const running = [...this.tasks.values()].filter((task) => task.running);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([Promise.all(running.map((task) => task.running)), gaveUp]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.logger.warn('scheduler stopped with tasks still running', { tasks: running.filter((t) => t.running).map((t) => t.name) });
    }
  }

  /**
   * Runs one task now, under its lease, whether or not the scheduler is started (tests, the
   * CLI). Resolves to `false` when the lease is held elsewhere or the task is already running.
   */
  async runNow(name: string): Promise<boolean> {
    return this.runOnce(this.task(name), false);
  }

  /**
   * Runs one task as its timer does: only once its interval has passed since its last run by any
   * process sharing the database. Resolves to `false` when it is not due, or the lease is held.
   */
  async runDue(name: string): Promise<boolean> {
    return this.runOnce(this.task(name), true);
  }

  private task(name: string): Registered {
    const task = this.tasks.get(name);
    if (task === undefined) throw new Error(`no scheduler task "${name}"`);
    return task;
  }

  private firstDelay(task: Registered): number {
    return task.firstRunDelayMs ?? Math.floor(Math.random() * Math.min(task.intervalMs, 5_000));
  }

  private arm(task: Registered, delayMs: number): void {
    task.timer = setTimeout(() => {
      const armed = performance.now();
      void this.runOnce(task, true).then(
        async (ran) => {
          if (!this.started) return;
          // After our own run, the next is due one interval after it began: be there first.
          if (ran) return this.arm(task, Math.max(0, Math.ceil(task.intervalMs - (performance.now() - armed))) + 1);
          // Refused. Not due yet (the database's record is in the clock's time, which the timer's
          // may drift from): come back when it is due; the process that ran it last first, the
          // others a little later, so it stays the runner while it lives. Due but held (running
          // elsewhere), or unreadable: an interval.
          const record = await this.leases.record(task.name).catch(() => undefined);
          const untilDue = record?.dueAt == null ? 0 : record.dueAt.getTime() - this.clock.now().getTime();
          const behind = record?.holder === this.holder ? DUE_TOLERANCE_MS : Math.max(DUE_TOLERANCE_MS, Math.min(1_000, task.intervalMs / 10));
          if (this.started) this.arm(task, untilDue > 0 ? Math.min(task.intervalMs, untilDue + behind) : task.intervalMs);
        },
        () => {
          if (this.started) this.arm(task, task.intervalMs);
        },
      );
    }, delayMs);
    task.timer.unref();
  }

  private runOnce(task: Registered, due: boolean): Promise<boolean> {
    if (task.running) return Promise.resolve(false);
    const run = this.execute(task, due).finally(() => {
      task.running = undefined;
    });
    task.running = run;
    return run;
  }

  private async execute(task: Registered, due: boolean): Promise<boolean> {
    const logger = this.logger.child({ task: task.name });
    const now = this.clock.now();
    try {
      if (!(await this.leases.acquire(task.name, this.holder, now, task.leaseMs, { due }))) {
        this.metrics.task(task.name, 'lease_held', 0);
        return false;
      }
    } catch (err) {
      logger.error('scheduler could not take its lease', describeError(err));
      this.metrics.task(task.name, 'lease_error', 0);
      return false;
    }
    const started = performance.now();
    try {
      await task.task({ signal: this.controller.signal, now, logger });
      this.metrics.task(task.name, 'ok', (performance.now() - started) / 1000);
    } catch (err) {
      this.metrics.task(task.name, 'failed', (performance.now() - started) / 1000);
      logger.error('scheduler task failed; it runs again at its next interval', describeError(err));
    } finally {
      await this.leases.release(task.name, this.holder, this.clock.now(), addMs(now, task.intervalMs)).catch((err: unknown) => {
        logger.warn('scheduler could not release its lease; it lapses on its own', describeError(err));
      });
    }
    return true;
  }
}
