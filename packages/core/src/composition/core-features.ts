import type { Settings } from '../config/index.js';
import { deriveKey } from '../crypto/index.js';
import type { CoreExtensions, CoreFeature } from '../extensions/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import type { CoreServices } from './services.js';
// Core's own features, from each feature's plugin module: a feature's index.ts never re-exports
// its plugin, so nothing the contract imports can import the contract back.
import { adminPlugin } from '../admin/plugin.js';
import { sessionsPlugin } from '../auth/plugin.js';
import { chainsPlugin } from '../chains/plugin.js';
import { challengesPlugin } from '../challenges/plugin.js';
import { directoryPlugin } from '../directory/plugin.js';
import { gatesPlugin } from '../gates/plugin.js';
import { identityPlugin } from '../identity/plugin.js';
import { coreMetricsPlugin } from '../metrics/plugin.js';
import { systemPlugin } from '../system/plugin.js';

/** Core's features in the order they set up: the system surface first, the admin last. */
export function coreFeatures(): CoreFeature[] {
  return [systemPlugin(), sessionsPlugin(), challengesPlugin(), identityPlugin(), gatesPlugin(), directoryPlugin(), chainsPlugin(), coreMetricsPlugin(), adminPlugin()];
}

/** The core extensions (see CoreExtensions), from core's services and the backend's description of itself. */
export function coreExtensions(inputs: {
  settings: Settings;
  services: CoreServices;
  upstreamMetrics: MetricsRecorder | null;
  backend: CoreExtensions['backend'];
}): CoreExtensions {
  const { settings, services } = inputs;
  return Object.freeze({
    backend: inputs.backend,
    registrationGates: services.registrationGates,
    nip05Cache: services.nip05Cache,
    operatorSettings: services.operatorSettings,
    admin: services.admin,
    accounts: services.accounts,
    auditVerifications: services.auditVerifications,
    chainRegistry: services.chains,
    upstreamMetrics: inputs.upstreamMetrics,
    keys: Object.freeze({ altcha: deriveKey(settings.pepperSecret, 'altcha'), grinNodeApiSecret: settings.grinNodeApiSecret, priceFeedApiKey: settings.priceFeedApiKey }),
  });
}
