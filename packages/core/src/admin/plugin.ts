import { adminErrors } from './errors.js';
import { setupErrors } from './setup.js';
import type { CoreFeature } from '../extensions/index.js';
import { accountRoutes } from './account-routes.js';
import { adminRoutes, serviceRoutes } from './routes.js';
import { systemReport } from './system-report.js';

/** Operator administration as a core feature; its stores are built by the composition root, which shares them with the operator shell. */
export function adminPlugin(): CoreFeature {
  return {
    name: 'core-admin',
    errors: [adminErrors, setupErrors],
    routes: [
      'GET /api/v1/admin/login-challenge',
      'POST /api/v1/admin/login',
      'POST /api/v1/admin/logout',
      'GET /api/v1/admin/me',
      'GET /api/v1/admin/keys',
      'POST /api/v1/admin/keys',
      'POST /api/v1/admin/keys/{key_id}/revoke',
      'GET /api/v1/admin/config/{section}',
      'PUT /api/v1/admin/config/{section}',
      'GET /api/v1/admin/audit',
      'GET /api/v1/admin/audit/verify',
      'GET /api/v1/admin/users',
      'GET /api/v1/admin/users/{user_id}',
      'POST /api/v1/admin/users/{user_id}/suspend',
      'POST /api/v1/admin/users/{user_id}/reinstate',
      'GET /api/v1/admin/system',
      'GET /api/v1/admin/openapi.json',
      'GET /api/v1/landing',
    ],
    setup(ctx, core) {
      const startedAt = ctx.clock.now();
      const report = () =>
        systemReport({
          db: ctx.db,
          clock: ctx.clock,
          chains: core.chainRegistry,
          startedAt,
          expectedMigrations: core.backend.expectedMigrations,
          features: core.backend.features,
          capabilities: core.backend.capabilities,
        });
      for (const route of [...adminRoutes(core.admin, core.operatorSettings), ...accountRoutes(core.accounts), ...serviceRoutes(report, core.backend.adminOpenapi)]) ctx.routes.add(route);
    },
  };
}
