import { adminErrors } from './errors.js';
import { setupErrors } from './setup.js';
import type { CoreFeature } from '../extensions/index.js';
import { adminRoutes } from './routes.js';

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
      'GET /api/v1/landing',
    ],
    setup(ctx, core) {
      for (const route of adminRoutes(core.admin, core.operatorSettings)) ctx.routes.add(route);
    },
  };
}
