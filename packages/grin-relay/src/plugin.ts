import { grinRelayErrors } from './errors.js';
import type { WalletPlugin } from '@wallet/backend-core';
import { relayMigrations } from './migrations.js';
import { RELAY_DEFAULTS, relayOptionProblems, type GrinRelayOptions } from './options.js';
import { relayRoutes } from './routes.js';
import { RelayService } from './service.js';
import { MAX_SLATEPACK_BYTES } from './slatepack.js';

/**
 * The Grin slatepack relay (spec › Grin slatepack relay): a mailbox between two registered users
 * that stores opaque slatepacks and their lifecycle, and never finalizes or broadcasts.
 *
 * @example
 * const backend = await createWalletBackend({ ...settings, plugins: [grinRelayPlugin({ expiryHours: 72 })] });
 */
export function grinRelayPlugin(options: GrinRelayOptions = {}): WalletPlugin {
  const enabled = options.enabled ?? RELAY_DEFAULTS.enabled;
  const expiryHours = options.expiryHours ?? RELAY_DEFAULTS.expiryHours;
  const sweepIntervalSec = options.sweepIntervalSec ?? RELAY_DEFAULTS.sweepIntervalSec;
  return {
    name: 'grin-relay',
    errors: [grinRelayErrors],
    version: '0.3.0',
    migrations: relayMigrations,
    routes: [
      'POST /api/v1/wallet/grin/relay/create',
      'GET /api/v1/wallet/grin/relay/pending',
      'POST /api/v1/wallet/grin/relay/get',
      'POST /api/v1/wallet/grin/relay/respond',
      'POST /api/v1/wallet/grin/relay/finalize',
      'POST /api/v1/wallet/grin/relay/cancel',
    ],
    validateConfig: () => relayOptionProblems(options),
    setup(ctx) {
      const service = new RelayService(ctx.db, ctx.clock, ctx.users, expiryHours * 3_600_000);
      // Data kept while the relay was on is erased and exported whether or not it is on now.
      ctx.hooks.onUserErasure((trx, userId) => service.eraseUser(trx, userId));
      ctx.hooks.onUserExport((userId) => service.exportFor(userId));
      ctx.capabilities.contribute(() => ({
        grin_relay: enabled ? { enabled, expiry_hours: expiryHours, max_slatepack_bytes: MAX_SLATEPACK_BYTES } : { enabled },
      }));
      if (!enabled) return;
      for (const route of relayRoutes(service)) ctx.routes.add(route);
      ctx.scheduler.every('expiry-sweep', sweepIntervalSec * 1000, async ({ now, logger }) => {
        const expired = await service.expireDue(now);
        if (expired > 0) logger.info('relay entries expired', { expired });
      });
    },
  };
}
