import type { WalletPlugin } from '../plugin/index.js';
import { UserRepository } from '../users/index.js';
import { sessionRoutes } from './routes.js';

/** Sessions (refresh, logout, me) as a core plugin. */
export function sessionsPlugin(): WalletPlugin {
  return {
    name: 'core-sessions',
    setup(ctx) {
      const users = new UserRepository(ctx.db, ctx.clock);
      for (const route of sessionRoutes(ctx.auth.sessions, users)) ctx.routes.add(route);
    },
  };
}
