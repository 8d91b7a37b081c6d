import { premiumErrors } from './errors.js';
import type { WalletPlugin } from '@wallet/backend-core';
import { premiumMigrations } from './migrations.js';
import { registerPremiumMetrics } from './metrics.js';
import { PREMIUM_DEFAULTS, premiumOptionProblems, premiumTerms, type PremiumOptions } from './options.js';
import { PremiumAdmin } from './admin.js';
import { premiumAdminRoutes, premiumRoutes } from './routes.js';
import { PremiumService } from './service.js';

/**
 * Paid premium plans for the operator's Nostr relay (spec › Premium). The user routes are always
 * mounted: invoice and activate answer 400 `premium_off` while premium is off, status answers
 * always. The admin routes (`/admin/premium/…`) are mounted only while premium is on. The
 * relay admits premium authors through `@wallet/relay-admission`, which reads `premium_until`
 * from the same database.
 *
 * @example
 * premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example', writePolicy: 'premium-post' })
 */
export function premiumPlugin(options: PremiumOptions = {}): WalletPlugin {
  const enabled = options.enabled ?? PREMIUM_DEFAULTS.enabled;
  return {
    name: 'premium',
    errors: [premiumErrors],
    version: '0.3.0',
    migrations: premiumMigrations,
    routes: [
      'POST /api/v1/premium/invoice',
      'POST /api/v1/premium/activate',
      'GET /api/v1/premium/status',
      'GET /api/v1/admin/premium/invoices',
      'GET /api/v1/admin/premium/users/{user_id}',
    ],
    validateConfig: (settings) => premiumOptionProblems(options, settings),
    setup(ctx) {
      const terms = enabled && ctx.processor !== null ? premiumTerms(options) : null;
      const service = new PremiumService({ db: ctx.db, clock: ctx.clock, users: ctx.users, processor: ctx.processor, terms });
      ctx.hooks.onUserErasure((trx, userId) => service.eraseUser(trx, userId));
      ctx.hooks.onUserExport((userId) => service.exportFor(userId));
      ctx.capabilities.contribute(() => ({
        premium_relay: terms !== null,
        ...(terms === null ? {} : { premium: { currency: terms.currency, plans: terms.plans.map((plan) => ({ ...plan })), relay_url: terms.relayUrl } }),
      }));
      // Off, the routes still answer (`premium_off`) but this server's document leaves them out.
      for (const route of premiumRoutes(service)) ctx.routes.add(terms !== null ? route : { ...route, openapi: 'internal' });
      // The operator's view exists only while premium is on (off, neither its routes nor its
      // section of the account view).
      if (terms !== null) {
        const admin = new PremiumAdmin({ db: ctx.db, clock: ctx.clock, users: ctx.users });
        for (const route of premiumAdminRoutes(admin)) ctx.routes.add(route);
        ctx.hooks.onUserSummary((userId) => admin.userSummary(userId));
      }
      registerPremiumMetrics(ctx);
    },
  };
}
