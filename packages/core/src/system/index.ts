export { checkReadiness, READINESS_TIMEOUT_MS, type NotReady, type ReadinessCheck } from './readiness.js';
