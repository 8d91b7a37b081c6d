import { adminErrors } from './errors.js';
import { setupErrors } from './setup.js';
import type { WalletPlugin } from '../plugin/index.js';
import type { OperatorSettings } from './overlay.js';
import { adminRoutes } from './routes.js';
import type { AdminService } from './service.js';

/** Operator administration as a core plugin; the stores are built by the backend, which also needs them at boot. */
export function adminPlugin(options: { service: () => AdminService; overlay: () => OperatorSettings }): WalletPlugin {
  return {
    name: 'core-admin',
    errors: [adminErrors, setupErrors],
    setup(ctx) {
      for (const route of adminRoutes(options.service(), options.overlay())) ctx.routes.add(route);
    },
  };
}
