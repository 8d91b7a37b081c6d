import { identityErrors } from './errors.js';
import { KeyRepository } from '../directory/index.js';
import type { CoreFeature } from '../extensions/index.js';
import { ExtensionLoginService } from './extension-service.js';
import { IdentityRepository } from './identity-repo.js';
import { LoginEventLog } from './login-events.js';
import { NostrIdentityService } from './nostr-service.js';
import { RestoreCheckService } from './restore-service.js';
import { identityRoutes } from './routes.js';
import { SpentProofStore } from './spent-proofs.js';
import { WebsiteLoginService } from './website-service.js';

/**
 * Identity as a core feature: extension (BTC key), Nostr and website login, the restore check,
 * and the retention sweeps of what they record. It runs the registration gates every plugin
 * added, tells the NIP-05 cache when a key is linked, and reads the restore governors and the
 * login-event retention from the operator settings overlay (all core extensions).
 */
export function identityPlugin(): CoreFeature {
  return {
    name: 'core-identity',
    errors: [identityErrors],
    routes: [
      'POST /api/v1/auth/extension',
      'POST /api/v1/auth/check-restore',
      'POST /api/v1/auth/nostr',
      'GET /api/v1/auth/nostr/link-challenge',
      'POST /api/v1/auth/nostr/link',
      'GET /api/v1/auth/nostr/register-challenge',
      'POST /api/v1/auth/nostr/register',
      'POST /api/v1/auth/website/challenge',
      'POST /api/v1/auth/website/verify',
    ],
    setup(ctx, core) {
      const { db, clock, settings } = ctx;
      const gates = core.registrationGates;
      const identities = new IdentityRepository(db, clock, (executor) => core.nip05Cache.forget(executor));
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
      const restore = new RestoreCheckService(db, ctx.crypto, clock, async () => {
        const governor = await core.operatorSettings.effective('restore');
        return { ipThreshold: governor.ip_threshold!, failThreshold: governor.fail_threshold!, windowSec: governor.window_sec! };
      });
      const services = {
        extension: new ExtensionLoginService({ ...common, db, gates, spentProofs }),
        restore,
        nostr: new NostrIdentityService({ ...common, db, challenges: ctx.auth.challenges, signedActions: ctx.auth.signedActions, gates, spentProofs }),
        website: new WebsiteLoginService({ ...common, db, challenges: ctx.auth.challenges }),
      };
      for (const route of identityRoutes(services)) ctx.routes.add(route);

      const every = settings.retentionSweepIntervalSec * 1000;
      ctx.scheduler.every('login-event-retention', every, async () => {
        const removed = await loginEvents.sweep((await core.operatorSettings.effective('retention')).login_event_retention_days!);
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
