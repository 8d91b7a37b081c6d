import type { AccountAdmin, AdminService, AuditVerifications, OperatorSettings } from '../admin/index.js';
import type { ChainRegistry } from '../chains/index.js';
import type { Nip05Cache } from '../directory/index.js';
import type { RegistrationGates } from '../identity/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import type { PluginContext, WalletPlugin } from '../plugin/index.js';

/**
 * What core's own features get beyond the plugin context, each member named for the one need it
 * serves. The composition root hands it to the features in core's own list, by membership of
 * that list, never to a plugin passed in `plugins` (docs/architecture.md#core-features-and-the-core-extensions): an
 * outside plugin cannot ask for it, and nothing here is reachable from `PluginContext`.
 */
export interface CoreExtensions {
  /** The backend's description of itself, served by the system routes. */
  readonly backend: {
    /** The OpenAPI document of every declared route. */
    openapi(): Record<string, unknown>;
    /** `/capabilities`: every contributor's keys, assembled per request. */
    capabilities(): Record<string, unknown>;
    /** Every ledger id the backend expects applied (`core/001_core_schema`, then each plugin's): the readiness check. */
    expectedMigrations(): readonly string[];
    /** The admin API as an OpenAPI document (every `/admin/…` route, core's and each plugin's), for admin sessions. */
    adminOpenapi(): Record<string, unknown>;
    /** Every feature and plugin running, in setup order, with its declared version (null when it declares none). */
    features(): ReadonlyArray<{ name: string; version: string | null }>;
  };
  /** The gates every plugin added through `ctx.registration.addGate`, run by the login paths that create identities. */
  readonly registrationGates: RegistrationGates;
  /** The NIP-05 answer cache: served by the directory, forgotten when a key is linked (identity) or an account erased (core's `users.erase`). */
  readonly nip05Cache: Nip05Cache;
  /** The operator settings overlay (admin API sections over the configured defaults): restore governors, retention. */
  readonly operatorSettings: OperatorSettings;
  /** The admin service behind the admin routes; the composition root shares its stores with the operator shell (`setup`). */
  readonly admin: AdminService;
  /** Accounts as the operator finds, views, suspends and reinstates them (the admin user routes). */
  readonly accounts: AccountAdmin;
  /** The audit chain's verifications in this process, for core's metrics gauges. */
  readonly auditVerifications: AuditVerifications;
  /** The provider side of the chain registry: where the chains feature registers each chain's readers and height source. */
  readonly chainRegistry: ChainRegistry;
  /** Upstream call timing and counts, when metrics are on. */
  readonly upstreamMetrics: MetricsRecorder | null;
  /**
   * Keys the composition root derived or read for one core feature each; no configured secret is
   * handed over twice, and none reaches `ctx.settings`.
   */
  readonly keys: {
    /** ALTCHA's HMAC key, derived from PEPPER_SECRET for that use alone. */
    readonly altcha: string;
    /** GRIN_NODE_API_SECRET, the Grin node's basic-auth secret, when set. */
    readonly grinNodeApiSecret?: string;
    /** PRICE_FEED_API_KEY, when set. */
    readonly priceFeedApiKey?: string;
  };
}

/** A core feature: a plugin's declaration (name, errors, migrations…) whose `setup` also gets the core extensions. */
export interface CoreFeature extends Omit<WalletPlugin, 'setup'> {
  setup(ctx: PluginContext, core: CoreExtensions): void | Promise<void>;
}
