import { CapabilityRegistry } from '../capabilities/index.js';
import type { Clock } from '../clock/index.js';
import { BootError } from '../errors/index.js';
import type { Logger } from '../logger/index.js';
import { stateGaugeProblems, STATE_READ_BUDGET_MS, type PrometheusMetrics } from '../metrics/index.js';
import { chainsView, challengesView, peppersView, processorView, RouteRegistry, sessionsView, signedActionsView, type PluginContext, type PluginDeclaration, type PublicSettings } from '../plugin/index.js';
import type { Database } from '../storage/index.js';
import type { CoreServices } from './services.js';

/** One plugin or core feature to set up: its declaration, and how to run its `setup` with a context. */
export interface SetupUnit {
  readonly declaration: PluginDeclaration;
  setup(ctx: PluginContext): void | Promise<void>;
}

export interface AssemblySources {
  /** The settings without their secrets: what every plugin reads. */
  settings: Readonly<PublicSettings>;
  db: Database;
  services: CoreServices;
  /** Where state gauges go when metrics are on. */
  metrics: PrometheusMetrics | null;
  clock: Clock;
  logger: Logger;
  /** Every plugin's declaration, core's features first: the routes each may add. */
  declarations: readonly PluginDeclaration[];
}

/**
 * Sets up every plugin through the one plugin context, collecting what they add (routes,
 * capabilities, gates, tasks, gauges, hooks, close handlers) and every problem, so a refused
 * boot lists them all. The context hands out views of core's services, never the services.
 */
export class PluginAssembly {
  readonly routes: RouteRegistry;
  readonly capabilities = new CapabilityRegistry();
  private readonly problems: string[] = [];
  private readonly closers: Array<{ owner: string; handler: () => void | Promise<void> }> = [];
  // Checked with metrics off too, so turning them on never reveals a clash.
  private readonly gaugeNames = new Set<string>();
  private readonly views: Pick<PluginContext, 'chains' | 'processor' | 'crypto'> & Pick<PluginContext['auth'], 'challenges' | 'sessions' | 'signedActions'>;

  constructor(private readonly sources: AssemblySources) {
    const { services } = sources;
    this.routes = new RouteRegistry(sources.declarations);
    this.views = {
      challenges: challengesView(services.challenges),
      sessions: sessionsView(services.sessions),
      signedActions: signedActionsView(services.signedActions),
      crypto: peppersView(services.peppers),
      chains: chainsView(services.chains),
      processor: services.processor === null ? null : processorView(services.processor),
    };
  }

  /** Runs each unit's `setup` in order; refuses the boot with every problem, after releasing what was opened. */
  async setUp(units: readonly SetupUnit[]): Promise<void> {
    for (const unit of units) {
      try {
        await unit.setup(this.contextFor(unit.declaration.name));
      } catch (err) {
        this.problems.push(`${unit.declaration.name}: setup failed: ${(err as Error).message}`);
      }
    }
    const problems = [...this.problems, ...this.routes.problems(), ...this.capabilities.problems()];
    if (problems.length > 0) {
      await this.close();
      throw new BootError(problems);
    }
  }

  /** Runs the close handlers, last registered first; a throwing one is logged, never fatal. */
  async close(): Promise<void> {
    for (const { owner, handler } of this.closers.splice(0).reverse()) {
      try {
        await handler();
      } catch (err) {
        this.sources.logger.error('plugin close handler failed', { plugin: owner, error: (err as Error).message });
      }
    }
  }

  /** A refusal found while a plugin sets up, listed with the others when setup ends. */
  private refuse(owner: string, register: () => void): void {
    try {
      register();
    } catch (err) {
      this.problems.push(`${owner}: ${(err as Error).message}`);
    }
  }

  private contextFor(owner: string): PluginContext {
    const { settings, db, services, metrics, clock, logger } = this.sources;
    const { users, hooks, audit, nip05Cache } = services;
    return {
      name: owner,
      settings,
      db,
      routes: { add: (route) => this.routes.add(owner, route) },
      auth: { challenges: this.views.challenges, sessions: this.views.sessions, signedActions: this.views.signedActions, addSessionGuard: (guard) => services.sessions.addGuard(guard) },
      registration: { addGate: (gate) => this.refuse(owner, () => services.registrationGates.add(gate)) },
      users: {
        exists: (userId, executor) => users.exists(userId, executor),
        idByUsername: (username, executor) => users.idByUsername(username, executor),
        nostrPubkey: (userId, executor) => users.nostrPubkey(userId, executor),
        premiumUntil: (userId, executor) => users.premiumUntil(userId, executor),
        // Premium's metrics gauge: cancelled on Postgres once it outlasts a scrape's budget.
        countPremiumActive: (now) => users.countPremiumActive(now, { timeoutMs: STATE_READ_BUDGET_MS }),
        lock: (trx, userId) => users.lock(trx, userId),
        extendPremium: (trx, userId, days) => users.extendPremium(trx, userId, days),
        idByNostrPubkey: (pubkey, executor) => users.idByNostrPubkey(pubkey, executor),
        erase: async (trx, userId, options) => {
          const erased = await users.erase(trx, userId, options);
          nip05Cache.forget(trx);
          return erased;
        },
      },
      audit: { append: (trx, entry, options) => audit.append(trx, entry, options), verify: () => audit.verify(), redact: (trx, userId) => audit.redact(trx, userId) },
      chains: this.views.chains,
      processor: this.views.processor,
      scheduler: { every: (name, intervalMs, task, options) => this.refuse(owner, () => services.scheduler.every(`${owner}.${name}`, intervalMs, task, options)) },
      capabilities: { contribute: (contributor) => this.capabilities.contribute(owner, contributor) },
      metrics: {
        gauge: (gauge) => {
          const invalid = stateGaugeProblems(gauge);
          if (invalid.length === 0 && this.gaugeNames.has(gauge.name)) invalid.push(`metrics gauge "${gauge.name}" is registered twice`);
          if (invalid.length > 0) {
            this.problems.push(...invalid.map((problem) => `${owner}: ${problem}`));
            return;
          }
          this.gaugeNames.add(gauge.name);
          metrics?.addStateGauge(gauge);
        },
      },
      hooks: {
        onUserErasure: (handler) => hooks.onUserErasure(owner, handler),
        onUserExport: (handler) => hooks.onUserExport(owner, handler),
        onUserSummary: (handler) => hooks.onUserSummary(owner, handler),
        runUserErasure: (trx, userId) => hooks.runUserErasure(trx, userId),
        collectUserExport: (userId) => hooks.collectUserExport(userId),
      },
      onClose: (handler) => this.closers.push({ owner, handler }),
      crypto: this.views.crypto,
      clock,
      logger: logger.child({ plugin: owner }),
    };
  }
}
