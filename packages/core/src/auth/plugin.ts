import type { CoreFeature } from '../extensions/index.js';
import { UserRepository } from '../users/index.js';
import { sessionRoutes } from './routes.js';

/** Sessions (refresh, logout, me) as a core feature; it needs nothing beyond the plugin context. */
export function sessionsPlugin(): CoreFeature {
  return {
    name: 'core-sessions',
    routes: [
      'POST /api/v1/auth/refresh',
      'POST /api/v1/auth/logout',
      'GET /api/v1/auth/me',
    ],
    setup(ctx) {
      const users = new UserRepository(ctx.db, ctx.clock);
      for (const route of sessionRoutes(ctx.auth.sessions, users)) ctx.routes.add(route);
    },
  };
}
