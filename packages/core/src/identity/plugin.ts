import { identityErrors } from './errors.js';
import { KeyRepository } from '../directory/index.js';
import type { WalletPlugin } from '../plugin/index.js';
import type { Executor } from '../storage/index.js';
import { ExtensionLoginService } from './extension-service.js';
import type { RegistrationGates } from './gates.js';
import { IdentityRepository } from './identity-repo.js';
import { LoginEventLog } from './login-events.js';
import { NostrIdentityService } from './nostr-service.js';
import { RestoreCheckService, type RestoreGovernor } from './restore-service.js';
import { identityRoutes } from './routes.js';
import { SpentProofStore } from './spent-proofs.js';
import { WebsiteLoginService } from './website-service.js';

/**
 * Identity as a core plugin: extension (BTC key), Nostr and website login, the restore check,
 * and the retention sweeps of what they record. `gates` is core's one registration hook point.
 */
export interface IdentityPluginOptions {
  gates: RegistrationGates;
  /** The restore governors now (the operator settings overlay over the configured defaults). */
  restoreGovernor: () => Promise<RestoreGovernor>;
  /** Told when an account's Nostr key is linked through `executor` (the NIP-05 cache forgets). */
  nostrKeyLinked: (executor: Executor) => void;
  /** How long login events are kept now, in days (same source). */
  loginEventRetentionDays: () => Promise<number>;
}

export function identityPlugin(options: IdentityPluginOptions): WalletPlugin {
  return {
    name: 'core-identity',
    errors: [identityErrors],
    setup(ctx) {
      const { db, clock, settings } = ctx;
      const identities = new IdentityRepository(db, clock, options.nostrKeyLinked);
      const keys = new KeyRepository(db, clock);
      const spentProofs = new SpentProofStore(db, clock);
      const loginEvents = new LoginEventLog(db, ctx.crypto, clock);
      const common = {
        identities,
        keys,
        sessions: ctx.auth.sessions,
        loginEvents,
        peppers: ctx.crypto,
        clock,
        service: settings.publicApiUrl,
        network: settings.chainNetwork,
      };
      const restore = new RestoreCheckService(db, ctx.crypto, clock, options.restoreGovernor);
      const services = {
        extension: new ExtensionLoginService({ ...common, db, gates: options.gates, spentProofs }),
        restore,
        nostr: new NostrIdentityService({ ...common, db, challenges: ctx.auth.challenges, signedActions: ctx.auth.signedActions, gates: options.gates, spentProofs }),
        website: new WebsiteLoginService({ ...common, db, challenges: ctx.auth.challenges }),
      };
      for (const route of identityRoutes(services)) ctx.routes.add(route);

      const every = settings.retentionSweepIntervalSec * 1000;
      ctx.scheduler.every('login-event-retention', every, async () => {
        const removed = await loginEvents.sweep(await options.loginEventRetentionDays());
        if (removed > 0) ctx.logger.info('login events expired', { removed });
      });
      ctx.scheduler.every('restore-attempt-retention', every, async () => {
        const removed = await restore.sweep();
        if (removed > 0) ctx.logger.info('restore attempts expired', { removed });
      });
      ctx.scheduler.every('spent-proof-sweep', every, async () => {
        await spentProofs.sweepExpired();
      });
    },
  };
}
