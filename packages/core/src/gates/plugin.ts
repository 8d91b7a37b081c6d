import { gateErrors } from './errors.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Settings } from '../config/index.js';
import { IdentityRepository, SpentProofStore } from '../identity/index.js';
import type { WalletPlugin } from '../plugin/index.js';
import type { PaymentProcessor } from '../plugin/index.js';
import { InviteStore } from './invites.js';
import { RegistrationPayments } from './payment.js';
import { ProofOfWork } from './pow.js';
import { gateRoutes } from './routes.js';

/**
 * The registration gates as a core plugin, registered in the spec's order: proof of work,
 * invite, payment. With none configured (self-hosting) nothing is asked.
 */
export function gatesPlugin(options: { settings: () => Settings; processor: () => PaymentProcessor | null }): WalletPlugin {
  return {
    name: 'core-gates',
    errors: [gateErrors],
    setup(ctx) {
      const settings = options.settings();
      // A key of its own for ALTCHA, derived so that no configured secret is ever used twice.
      const hmacKey = bytesToHex(hmac(sha256, utf8ToBytes(settings.pepperSecret), utf8ToBytes('wallet-backend/altcha')));
      const spentProofs = new SpentProofStore(ctx.db, ctx.clock);
      const pow = new ProofOfWork({ hmacKey, difficulty: settings.powDifficulty, ttlSec: settings.powChallengeTtlSec, clock: ctx.clock, spentProofs });
      const invites = new InviteStore(ctx.db, ctx.clock);
      const processor = options.processor();
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
      ctx.capabilities.contribute(() => ({
        proof_of_work: settings.registrationRequirePow,
        invite_required: settings.registrationRequireInvite,
        payment_required: payments !== null,
        registration_price: payments === null ? null : { amount: settings.registrationPrice, currency: settings.registrationCurrency },
      }));
    },
  };
}
