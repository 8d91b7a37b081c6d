import { gateErrors } from './errors.js';
import type { CoreFeature } from '../extensions/index.js';
import { IdentityRepository, SpentProofStore } from '../identity/index.js';
import { InviteStore } from './invites.js';
import { InviteAdmin } from './invites-admin.js';
import { RegistrationPayments } from './payment.js';
import { ProofOfWork } from './pow.js';
import { gateRoutes, inviteAdminRoutes } from './routes.js';

/**
 * The registration gates as a core feature, registered in the spec's order: proof of work,
 * invite, payment. With none configured (self-hosting) nothing is asked. ALTCHA's key is the one
 * core extension it needs.
 */
export function gatesPlugin(): CoreFeature {
  return {
    name: 'core-gates',
    errors: [gateErrors],
    routes: [
      'POST /api/v1/auth/pow-challenge',
      'POST /api/v1/auth/payment-invoice',
      'POST /api/v1/admin/invites',
      'GET /api/v1/admin/invites',
      'POST /api/v1/admin/invites/{invite_id}/revoke',
    ],
    setup(ctx, core) {
      const { settings } = ctx;
      const hmacKey = core.keys.altcha;
      const spentProofs = new SpentProofStore(ctx.db, ctx.clock);
      const pow = new ProofOfWork({ hmacKey, difficulty: settings.powDifficulty, ttlSec: settings.powChallengeTtlSec, clock: ctx.clock, spentProofs });
      const invites = new InviteStore(ctx.db, ctx.clock);
      const processor = ctx.processor;
      const payments =
        settings.registrationRequirePayment && processor !== null && settings.registrationPrice !== undefined
          ? new RegistrationPayments(ctx.db, processor, ctx.crypto, ctx.clock, {
              price: settings.registrationPrice,
              currency: settings.registrationCurrency,
              confirmations: settings.registrationConfirmations as 1 | 2 | 6,
              expiryMinutes: settings.registrationInvoiceExpiryMinutes,
            })
          : null;
      if (settings.registrationRequirePow) ctx.registration.addGate(pow);
      if (settings.registrationRequireInvite) ctx.registration.addGate(invites);
      if (payments !== null) ctx.registration.addGate(payments);
      for (const route of gateRoutes({ pow, payments, identities: new IdentityRepository(ctx.db, ctx.clock), peppers: ctx.crypto })) ctx.routes.add(route);
      // The operator's invites, whether or not registration asks for one (codes can be minted ahead).
      for (const route of inviteAdminRoutes(new InviteAdmin(ctx.db, ctx.clock, invites, ctx.audit))) ctx.routes.add(route);
      ctx.capabilities.contribute(() => ({
        proof_of_work: settings.registrationRequirePow,
        invite_required: settings.registrationRequireInvite,
        payment_required: payments !== null,
        registration_price: payments === null ? null : { amount: settings.registrationPrice, currency: settings.registrationCurrency },
      }));
    },
  };
}
