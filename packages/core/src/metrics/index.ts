export { noMetrics, type MetricsRecorder, type TaskOutcome, type UpstreamLabels, type UpstreamOutcome } from './recorder.js';
export { instrumentUpstream } from './upstream.js';
export { createPrometheusMetrics, type PrometheusMetrics } from './prometheus.js';
export { parseListenAddress, startMetricsListener, type ListenAddress, type MetricsListener } from './listener.js';
