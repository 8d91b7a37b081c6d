/**
 * What the backend reports to its metrics, as plain calls with closed label sets: a route
 * template (never a concrete path), a chain and upstream name, a task name. Nothing here takes
 * a user id, a key, a token or a client address, so none can reach a label.
 */
export interface MetricsRecorder {
  /** One finished HTTP request. `route` is the declared template, or `unmatched`. */
  request(method: string, route: string, status: number, seconds: number): void;
  /**
   * One call to an upstream (chain node, indexer, light-wallet server, price feed, payment processor).
   * `reason`: why an `error` failed, when the client could tell (an UpstreamFailure's reason).
   */
  upstream(labels: UpstreamLabels, operation: string, outcome: UpstreamOutcome, seconds: number, reason?: string): void;
  /** One scheduler run attempt. */
  task(name: string, outcome: TaskOutcome, seconds: number): void;
}

export interface UpstreamLabels {
  /** `btc` … `grin`, or `none` for upstreams that serve no single chain (prices, the payment processor). */
  chain: string;
  /** `esplora`, `electrum`, `lws`, `daemon`, `grin-node`, `price-feed`, `btcpay`. */
  upstream: string;
}

/** `ok`: answered; `refused`: answered with a refusal the client caused (4xx); `error`: failed, timed out or unreachable. */
export type UpstreamOutcome = 'ok' | 'refused' | 'error';

/** `ok`/`failed`: the task ran; `lease_held`: another process holds its lease; `lease_error`: the lease could not be read. */
export type TaskOutcome = 'ok' | 'failed' | 'lease_held' | 'lease_error';

/** Metrics off: every report is dropped at the cost of one call. */
export const noMetrics: MetricsRecorder = {
  request() {},
  upstream() {},
  task() {},
};
