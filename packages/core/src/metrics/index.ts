export { noMetrics, type MetricsRecorder, type TaskOutcome, type UpstreamLabels, type UpstreamOutcome } from './recorder.js';
export { instrumentUpstream } from './upstream.js';
export { createPrometheusMetrics, DROPPED_DEFAULT_METRICS, type PrometheusMetrics, type PrometheusOptions } from './prometheus.js';
export { cancellingTimeout, stateGaugeProblems, STATE_CACHE_MS, STATE_READ_BUDGET_MS, type StateGauge, type StateSample } from './state.js';
export { parseListenAddress, startMetricsListener, type ListenAddress, type MetricsListener } from './listener.js';
