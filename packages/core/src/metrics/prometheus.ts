import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { coreVersion } from '../version/index.js';
import { systemClock, type Clock } from '../clock/index.js';
import type { Logger } from '../logger/index.js';
import type { PoolUse } from '../storage/index.js';
import { STATE_READ_BUDGET_MS, StateReader, type StateGauge } from './state.js';
import type { MetricsRecorder, TaskOutcome, UpstreamLabels, UpstreamOutcome } from './recorder.js';

export interface PrometheusMetrics {
  readonly recorder: MetricsRecorder;
  /** The exposition's `Content-Type` (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** Every series in Prometheus text format, pool gauges read now. */
  render(): Promise<string>;
  /** Adds an application-state gauge (declaration already checked); throws when the name is taken. */
  addStateGauge(gauge: StateGauge): void;
}

export interface PrometheusOptions {
  pool: () => PoolUse | null;
  /** The API version `wallet_build_info` reports. */
  apiVersion: string;
  /** Times the state gauges' cache. */
  clock?: Clock;
  /** Where a state gauge's failed read is reported. */
  logger?: Logger;
  /** Test seam: how long one scrape's database gauge reads may take together before it goes on without the rest. */
  stateReadBudgetMs?: number;
}

/**
 * prom-client's defaults that break the exposition format's rules (`promtool check metrics`):
 * gauges named `_total`. Each is the sum of a labelled gauge that stays (`nodejs_active_handles`
 * by type, …), so `sum(nodejs_active_handles)` gives the same number.
 */
export const DROPPED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * The backend's Prometheus series, in a registry of its own (two backends in one process never
 * mix their counts; the host's global registry is left alone), plus Node's process metrics.
 */
export function createPrometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  const clock = options.clock ?? systemClock;
  // Read once per scrape, before the state gauges' queries, so they never count themselves as pool use.
  let poolNow: PoolUse | null = null;

  const requests = new Counter({
    name: 'wallet_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'wallet_http_request_duration_seconds',
    help: 'Time from the request reaching the backend to its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const upstreamSeconds = new Histogram({
    name: 'wallet_upstream_call_duration_seconds',
    help: 'Upstream calls by chain, upstream, operation and outcome (ok, refused, error); _count counts calls.',
    labelNames: ['chain', 'upstream', 'operation', 'outcome'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });
  const upstreamFailures = new Counter({
    name: 'wallet_upstream_failures_total',
    help: 'Upstream calls that failed, timed out or could not connect, by chain, upstream, operation and reason (unclassified when the client cannot tell).',
    labelNames: ['chain', 'upstream', 'operation', 'reason'] as const,
    registers: [registry],
  });
  const taskRuns = new Counter({
    name: 'wallet_scheduler_task_runs_total',
    help: 'Scheduler run attempts by task and outcome (ok, failed, lease_held, lease_error).',
    labelNames: ['task', 'outcome'] as const,
    registers: [registry],
  });
  const taskSeconds = new Histogram({
    name: 'wallet_scheduler_task_duration_seconds',
    help: 'How long scheduler tasks ran (runs that took their lease), by task.',
    labelNames: ['task'] as const,
    buckets: TASK_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'wallet_db_pool_connections',
    help: 'Database pool connections by state: used (checked out), free (idle), max (the bound).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const use = poolNow;
      if (use === null) return;
      this.set({ state: 'used' }, use.used);
      this.set({ state: 'free' }, use.free);
      this.set({ state: 'max' }, use.max);
    },
  });
  new Gauge({
    name: 'wallet_db_pool_pending_acquires',
    help: 'Queries waiting for a database connection.',
    registers: [registry],
    collect() {
      const use = poolNow;
      if (use !== null) this.set(use.pendingAcquires);
    },
  });

  new Gauge({
    name: 'wallet_build_info',
    help: 'Always 1; the labels say what runs: the backend version, the API version and the Node.js version.',
    labelNames: ['version', 'api_version', 'node_version'] as const,
    registers: [registry],
  }).set({ version: coreVersion(), api_version: options.apiVersion, node_version: process.versions.node }, 1);
  const stateFailures = new Counter({
    name: 'wallet_state_read_failures_total',
    help: 'Application-state gauge reads that failed or ran out of time, by gauge; that gauge was left out of the scrape.',
    labelNames: ['gauge'] as const,
    registers: [registry],
  });

  const states: Array<{ reader: StateReader; values: Array<{ labels: Record<string, string>; value: number }> }> = [];
  const addStateGauge = (gauge: StateGauge) => {
    const state = { reader: new StateReader(gauge, clock, options.stateReadBudgetMs), values: [] as Array<{ labels: Record<string, string>; value: number }> };
    // A metric object of our own: a prom-client Gauge without labels reports 0 when unset, and a failed read must leave no sample at all.
    const metric = { name: gauge.name, help: gauge.help, type: 'gauge', aggregator: 'sum', get: () => Promise.resolve({ name: gauge.name, help: gauge.help, type: 'gauge', aggregator: 'sum', values: state.values }) };
    registry.registerMetric(metric as unknown as Metric);
    states.push(state);
  };
  const budgetMs = options.stateReadBudgetMs ?? STATE_READ_BUDGET_MS;
  /** Reads one gauge into its samples; false when the wait ran out (the scrape's budget is spent). */
  const readState = async (state: (typeof states)[number], waitMs: number): Promise<boolean> => {
    const outcome = await state.reader.read(waitMs);
    if (!outcome.ok) {
      stateFailures.inc({ gauge: state.reader.gauge.name });
      options.logger?.warn('a metrics gauge could not be read; it is left out of this scrape', { gauge: state.reader.gauge.name, error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) });
    }
    state.values = outcome.ok ? outcome.samples.map((sample) => ({ labels: { ...sample.labels }, value: sample.value })) : [];
    return outcome.ok || outcome.expired !== true;
  };
  const poolBusy = () => {
    const use = options.pool();
    return use !== null && (use.pendingAcquires > 0 || use.used >= use.max);
  };
  /**
   * Read before rendering, so a failure is counted in the same scrape that leaves its gauge out.
   * Memory gauges first; then the database gauges one after another, never in parallel, so a
   * scrape runs one query at a time. They share one budget: each waits only for what is left of
   * it, and once it is spent the rest are not read (left out and counted). Before each query the
   * pool is looked at again: while every connection is taken (or a query waits for one) the
   * gauge keeps its last values instead of queueing.
   */
  const readStates = async () => {
    for (const state of states) if (state.reader.gauge.memory === true) await readState(state, budgetMs);
    const deadline = performance.now() + budgetMs;
    let timeLeft = true;
    for (const state of states) {
      if (state.reader.gauge.memory === true) continue;
      if (!state.reader.fresh() && poolBusy()) continue;
      // Once a wait ran out, the rest get none (a timer may fire a moment before the deadline by this clock).
      if (!(await readState(state, timeLeft ? deadline - performance.now() : 0))) timeLeft = false;
    }
  };

  const recorder: MetricsRecorder = {
    request(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    upstream(labels: UpstreamLabels, operation: string, outcome: UpstreamOutcome, seconds: number, reason?: string) {
      upstreamSeconds.observe({ ...labels, operation, outcome }, seconds);
      if (outcome === 'error') upstreamFailures.inc({ ...labels, operation, reason: reason ?? 'unclassified' });
    },
    task(name: string, outcome: TaskOutcome, seconds: number) {
      taskRuns.inc({ task: name, outcome });
      if (outcome === 'ok' || outcome === 'failed') taskSeconds.observe({ task: name }, seconds);
    },
  };
  return {
    recorder,
    contentType: registry.contentType,
    render: async () => {
      const pool = options.pool();
      await readStates();
      poolNow = pool;
      return registry.metrics();
    },
    addStateGauge,
  };
}
