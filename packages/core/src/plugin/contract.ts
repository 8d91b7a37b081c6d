import type { SessionGuard, Sessions, SignedActions } from '../auth/index.js';
import type { CapabilityContributor } from '../capabilities/index.js';
import type { ChainAccess } from '../chains/index.js';
import type { Challenges } from '../challenges/index.js';
import type { Clock } from '../clock/index.js';
import type { ErrorCatalogue, ErrorSpec } from '../errors/index.js';
import type { PublicSettings, PublicSettingsInput } from '../config/index.js';
import type { Peppers } from '../crypto/index.js';
import type { UserErasureHandler, UserExportHandler, UserSummaryHandler } from '../hooks/index.js';
import type { AnyRoute } from '../http/index.js';
import type { RegistrationGate } from '../identity/index.js';
import type { Logger } from '../logger/index.js';
import type { StateGauge } from '../metrics/index.js';
import type { PaymentProcessor } from '../processor/index.js';
import type { Task, TaskOptions } from '../scheduler/index.js';
import type { AuditEntry, AuditInput, AuditVerdict } from '../admin/index.js';
import type { Database, Knex, Migration } from '../storage/index.js';

export type { PaymentProcessor };
export type { ChainAccess, CryptonoteChainReader, GrinChainReader, HeightSource, UtxoChainReader, UtxoReceipt, UtxoSpend } from '../chains/index.js';

/** A plugin migration: forward-only, additive; its ledger id is `<plugin name>/<id>`. */
export type PluginMigration = Migration;

/** Core settings without the secrets (config's `SECRET_SETTINGS`), and which secrets are set: what a plugin may read. */
export type { PublicSettings, PublicSettingsInput };

/**
 * A feature package. Core's own features use this same contract, so it is exercised on every
 * boot. The factory that builds a plugin is pure; all I/O starts in `setup`.
 *
 * @example
 * export function helloPlugin(): WalletPlugin {
 *   return {
 *     name: 'hello',
 *     setup(ctx) {
 *       ctx.routes.add(defineRoute({ method: 'GET', path: '/hello', auth: 'none', summary: 'Say hello', handler: () => ({ hello: 'world' }) }));
 *     },
 *   };
 * }
 */
export interface WalletPlugin {
  /** Unique, lower-case (`grin-relay`); namespaces migrations and scheduler tasks. */
  name: string;
  /** The plugin's release, `major.minor.patch` (a pre-release suffix allowed); another shape refuses the boot. */
  version?: string;
  /**
   * Plugins this one needs, by name. Each must be registered, and before this one, so its
   * `setup` has run first; otherwise the boot is refused, naming the missing or misplaced one.
   */
  dependencies?: readonly string[];
  /**
   * The error catalogues (`defineErrors`) the plugin's routes and services throw from. Declared
   * here, the codes are known without running `setup`; a code two plugins declare refuses the boot.
   */
  errors?: readonly ErrorCatalogue<Record<string, ErrorSpec>>[];
  /** Ordered, additive migrations, run after core's. */
  migrations?: readonly PluginMigration[];
  /**
   * The routes `setup` may add, as `METHOD /full/path` (`POST /api/v1/notes`, `GET /.well-known/x`):
   * known without running `setup`. Declared, `setup` may add only these (a feature switched off may
   * add fewer), and a route two plugins declare refuses the boot before any setup runs.
   */
  routes?: readonly string[];
  /**
   * Fail-closed configuration rules: return EVERY violation (empty when sound). Receives the
   * core settings as given, without the secrets (`configuredSecrets` says which are set); when
   * core's own validation failed some fields may be missing.
   */
  validateConfig?(settings: Readonly<PublicSettingsInput>): string[];
  setup(ctx: PluginContext): void | Promise<void>;
}

/** What a plugin declares as data: everything but `setup`, readable and checked without running anything. */
export type PluginDeclaration = Omit<WalletPlugin, 'setup'>;

/** Everything a plugin may touch, and nothing more: no Koa app, no global middleware. */
export interface PluginContext {
  readonly name: string;
  readonly settings: Readonly<PublicSettings>;
  /** knex, the dialect helpers and the race-safe primitives; pass `trx` explicitly. */
  readonly db: Database;
  readonly routes: {
    /** Declares a route; a method + path declared twice anywhere refuses the boot. */
    add(route: AnyRoute): void;
  };
  readonly auth: {
    /** Single-use, purpose-bound server nonces. */
    readonly challenges: Challenges;
    /** Opens sessions (token pairs) for proven users and revokes them. */
    readonly sessions: Sessions;
    /** Verifies a NIP-98 signed action (nonce + purpose + request descriptor) and consumes its nonce. */
    readonly signedActions: SignedActions;
    /**
     * Adds a check that every new user session must pass: each login path runs the guards
     * inside the transaction that stores the session (after the proof was checked), and a
     * guard refuses by throwing an error of its package's catalogue. A refresh continues a
     * live session and runs the guards only when its rotation failed, to answer the guard's
     * error instead of 401: so the work that makes a guard start refusing must lock the user's
     * row (`users.lock`) and revoke the user's sessions (`sessions.revokeAllForUser`) in its
     * transaction, or sessions opened before it go on refreshing.
     */
    addSessionGuard(guard: SessionGuard): void;
  };
  readonly registration: {
    /** Adds a gate that every NEW identity must pass (proof of work, invite, payment); run in the order added. */
    addGate(gate: RegistrationGate): void;
  };
  readonly audit: {
    /**
     * Appends to the operator audit chain inside `trx` (rolled back with it). `action` is free
     * text (`tips.clawback_forced`); `actorPubkey` is cut to a prefix; `peerIp` is kept raw.
     */
    append(trx: Knex.Transaction, entry: AuditInput, options?: { onlyOntoIntact?: boolean }): Promise<AuditEntry>;
    /**
     * Verifies the chain from its newest sealed checkpoint on (every entry's hash or erasure
     * seal, the links, the sealed head): its cost is the entries written since the checkpoint,
     * a page at a time, so call it once per batch of work, not per item.
     */
    verify(): Promise<AuditVerdict>;
    /**
     * Scrubs the user's personal data from the chain inside `trx` (account erasure): entries
     * whose target is exactly `user:<userId>` lose their target and details and carry the
     * server's erasure seal; no entry is re-sealed, so the chain still verifies and the cost is
     * the user's own entries. Name users that way in `target` when an entry is about one.
     * Throws, changing nothing, when one of those entries does not match what was written.
     * Returns each scrubbed entry's seq and row hash (unchanged).
     */
    redact(trx: Knex.Transaction, userId: string): Promise<Array<{ seq: number; row_hash: string }>>;
  };
  readonly users: {
    /** Whether a registered user has this id; pass `trx` to see the caller's own transaction. */
    exists(userId: string, executor?: Knex | Knex.Transaction): Promise<boolean>;
    /** The id of the user holding this username (case-insensitive), or null; a malformed handle is null, never a throw. */
    idByUsername(username: string, executor?: Knex | Knex.Transaction): Promise<string | null>;
    /** The user's linked Nostr key (64 hex, the npub's bytes), or null. */
    nostrPubkey(userId: string, executor?: Knex | Knex.Transaction): Promise<string | null>;
    /** The end of the user's premium period (`premium_until`), or null. */
    premiumUntil(userId: string, executor?: Knex | Knex.Transaction): Promise<Date | null>;
    /** How many users' premium period ends after `now` (for premium's metrics gauge). */
    countPremiumActive(now: Date): Promise<number>;
    /**
     * Locks the user's row until `trx` ends, so one user's read-modify-writes in a plugin (a cap
     * to check, then a row to insert) run one after another; false for an unknown user.
     */
    lock(trx: Knex.Transaction, userId: string): Promise<boolean>;
    /**
     * Extends the premium period by `days` from the later of now and its current end, inside
     * `trx` with the user's row locked, so concurrent extensions stack; the new end, or null for
     * an unknown user.
     */
    extendPremium(trx: Knex.Transaction, userId: string, days: number): Promise<Date | null>;
    /** The id of the user whose linked Nostr key this is (64 hex), or null. */
    idByNostrPubkey(pubkey: string, executor?: Knex | Knex.Transaction): Promise<string | null>;
    /**
     * Deletes the account inside `trx` (erasure): login events purged or anonymised, then the
     * user row, which cascades to keys and sessions and sets null on other links. False when
     * there was no such user. Run `hooks.runUserErasure` first.
     */
    erase(trx: Knex.Transaction, userId: string, options: { loginEvents: 'purge' | 'anonymize' }): Promise<boolean>;
  };
  readonly chains: ChainAccess;
  /** The payment processor (BTCPay Greenfield), or null when none is configured. */
  readonly processor: PaymentProcessor | null;
  readonly scheduler: {
    /** Runs `task` every `intervalMs` under a database lease; the name is prefixed with the plugin's (`tips.draft-gc`). */
    every(name: string, intervalMs: number, task: Task, options?: TaskOptions): void;
  };
  readonly capabilities: {
    /** Adds keys to `/capabilities`, computed per request; a key claimed twice refuses the boot. */
    contribute(contributor: CapabilityContributor): void;
  };
  readonly metrics: {
    /**
     * Adds an application-state gauge (`wallet_tips{status}`…), read at scrape time with a short
     * cache; a read that throws or is slow leaves it out of that scrape. Register it whether or
     * not metrics are on (off, it is never read); a bad or taken name refuses the boot.
     */
    gauge(gauge: StateGauge): void;
  };
  readonly hooks: {
    onUserErasure(handler: UserErasureHandler): void;
    onUserExport(handler: UserExportHandler): void;
    /**
     * Adds the plugin's section to the operator's view of an account (`GET /admin/users/{user_id}`,
     * under the plugin's name): states, counts and times only, never a peppered or hashed value.
     */
    onUserSummary(handler: UserSummaryHandler): void;
    /** Runs every erasure handler inside `trx` (used by the erasure feature). */
    runUserErasure(trx: Knex.Transaction, userId: string): Promise<void>;
    /** Collects every export section (used by the erasure feature). */
    collectUserExport(userId: string): Promise<Record<string, Record<string, unknown>>>;
  };
  /**
   * Releases what `setup` opened (upstream sockets, timers) when the backend closes: after the
   * HTTP server drained and the scheduler stopped, before the database pool closes. Also run
   * when a later plugin makes the boot fail. A throwing handler is logged, never fatal.
   */
  onClose(handler: () => void | Promise<void>): void;
  /** Peppered and salted hashes with the server's secrets, without exposing the secrets. */
  readonly crypto: Peppers;
  readonly clock: Clock;
  readonly logger: Logger;
}
