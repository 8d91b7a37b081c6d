import type { Knex } from 'knex';
import type { Clock } from '../clock/index.js';
import { cancelAfter } from '../storage/index.js';

/** One sample of an application-state gauge: label values from a closed set, and the value. */
export interface StateSample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

/**
 * An application-state gauge (users, tips by status, …) read when Prometheus scrapes, never
 * on a request path. `read` should be one cheap query (an indexed count where it can be): its
 * result is cached for {@link STATE_CACHE_MS} across scrapes. A scrape reads the database
 * gauges one after another within {@link STATE_READ_BUDGET_MS} in all; a read that throws, or
 * has not answered when that time is up, leaves its gauge out of that scrape instead of failing
 * it. The scrape giving up does not stop the query: give it {@link cancellingTimeout} so that
 * Postgres cancels it and its connection goes back to the pool.
 */
export interface StateGauge {
  /** `wallet_` and lower snake case, unique in the backend; no `_total`/`_count`/`_sum`/`_bucket` suffix (those are not gauges). */
  name: string;
  help: string;
  /** The label names every sample carries; their values must come from closed sets (never a user id, key, address or IP). */
  labelNames?: readonly string[];
  /**
   * True for a gauge that reads memory, not the database: read at every scrape, uncached, even
   * while the pool is busy. Otherwise a read is reused for {@link STATE_CACHE_MS}, and while
   * every pool connection is taken the last values are served instead of queueing behind the
   * application's queries.
   */
  memory?: boolean;
  read(): Promise<readonly StateSample[]>;
}

/** Several Prometheus servers (or a short scrape interval) share one read per gauge in this window. */
export const STATE_CACHE_MS = 10_000;
/**
 * The time one scrape gives its database gauges together (they are read one after another, so a
 * scrape holds at most one pool connection). Well under Prometheus' default 10 s scrape timeout,
 * so slow queries never cost the whole scrape.
 */
export const STATE_READ_BUDGET_MS = 2_000;

/**
 * `query` cancelled in the database once it has run the scrape's budget (the dialect's
 * `cancelAfter`: Postgres only), so a gauge read the scrape gave up on does not keep running and
 * holding its pool connection. The timeout counts from the statement's start, not from the pool
 * acquire.
 */
export function cancellingTimeout<T extends Knex.QueryBuilder>(query: T, ms: number = STATE_READ_BUDGET_MS): T {
  return cancelAfter(query, ms);
}

const NAME = /^wallet_[a-z][a-z0-9_]*[a-z0-9]$/;
const LABEL = /^[a-z][a-z0-9_]*$/;
const NOT_A_GAUGE = /_(total|count|sum|bucket|created)$/;
/** Core's own series: a state gauge there would clash with them only once metrics are on. */
const CORE_SERIES = /^wallet_(http|upstream|scheduler|db_pool|state_read|build)_/;

/** What is wrong with a gauge's declaration (empty when sound), so a bad one refuses the boot. */
export function stateGaugeProblems(gauge: StateGauge): string[] {
  const problems: string[] = [];
  if (!NAME.test(gauge.name)) problems.push(`metrics gauge "${gauge.name}": the name must be wallet_ and lower snake case`);
  else if (NOT_A_GAUGE.test(gauge.name)) problems.push(`metrics gauge "${gauge.name}": a gauge's name must not end in _total, _count, _sum, _bucket or _created`);
  else if (CORE_SERIES.test(gauge.name)) problems.push(`metrics gauge "${gauge.name}": the name is in a family of core's own series`);
  if (gauge.help.trim() === '') problems.push(`metrics gauge "${gauge.name}": help is required`);
  for (const label of gauge.labelNames ?? []) {
    if (!LABEL.test(label) || label === 'le' || label === 'quantile') problems.push(`metrics gauge "${gauge.name}": label "${label}" is not a valid label name`);
  }
  return problems;
}

/** `expired`: the wait ran out (the read may still be running), so the scrape has no time left. */
type Outcome = { ok: true; samples: readonly StateSample[] } | { ok: false; error: unknown; expired?: true };

/**
 * One gauge's reads: a fresh result is reused until it is {@link STATE_CACHE_MS} old, and a
 * read still running (a slow or hung query) is joined rather than started again, so a stuck
 * database never piles up scrape queries.
 */
export class StateReader {
  private cached: { at: number; samples: readonly StateSample[] } | null = null;
  private inFlight: Promise<Outcome> | null = null;

  constructor(
    readonly gauge: StateGauge,
    private readonly clock: Clock,
    private readonly budgetMs: number = STATE_READ_BUDGET_MS,
  ) {}

  /** Whether {@link read} would answer from the cache now, without a query. */
  fresh(): boolean {
    const now = this.clock.now().getTime();
    return this.gauge.memory !== true && this.cached !== null && now - this.cached.at < STATE_CACHE_MS && now >= this.cached.at;
  }

  /**
   * The samples, or an error (thrown, malformed or over budget); never rejects. `waitMs` is what
   * is left of the scrape's budget: with nothing left, a read is not started.
   */
  async read(waitMs: number = this.budgetMs): Promise<Outcome> {
    if (this.fresh()) return { ok: true, samples: this.cached!.samples };
    if (waitMs <= 0 && this.inFlight === null) return { ok: false, error: new Error(`not read: this scrape's ${this.budgetMs} ms were spent on earlier gauges`), expired: true };
    this.inFlight ??= this.start(this.clock.now().getTime());
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: new Error(`no answer within ${this.budgetMs} ms`), expired: true }), Math.max(0, waitMs));
    });
    try {
      return await Promise.race([this.inFlight, budget]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async start(startedAt: number): Promise<Outcome> {
    try {
      const samples = await this.gauge.read();
      const problem = this.malformed(samples);
      if (problem !== null) return { ok: false, error: new Error(problem) };
      this.cached = { at: startedAt, samples };
      return { ok: true, samples };
    } catch (error) {
      return { ok: false, error };
    } finally {
      this.inFlight = null;
    }
  }

  private malformed(samples: readonly StateSample[]): string | null {
    const expected = [...(this.gauge.labelNames ?? [])].sort().join(',');
    for (const sample of samples) {
      if (typeof sample.value !== 'number' || Number.isNaN(sample.value)) return 'a sample is not a number';
      if (Object.keys(sample.labels ?? {}).sort().join(',') !== expected) return `a sample's labels are not exactly ${expected || 'none'}`;
    }
    return null;
  }
}
