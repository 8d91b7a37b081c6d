import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUse } from '../storage/index.js';
import type { MetricsRecorder, TaskOutcome, UpstreamLabels, UpstreamOutcome } from './recorder.js';

export interface PrometheusMetrics {
  readonly recorder: MetricsRecorder;
  /** The exposition's `Content-Type` (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** Every series in Prometheus text format, pool gauges read now. */
  render(): Promise<string>;
}

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * The backend's Prometheus series, in a registry of its own (two backends in one process never
 * mix their counts; the host's global registry is left alone), plus Node's process metrics.
 */
export function createPrometheusMetrics(options: { pool: () => PoolUse | null }): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

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
      const use = options.pool();
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
      const use = options.pool();
      if (use !== null) this.set(use.pendingAcquires);
    },
  });

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
  return { recorder, contentType: registry.contentType, render: () => registry.metrics() };
}
