import { directoryErrors } from './errors.js';
import type { CoreFeature } from '../extensions/index.js';
import { DirectoryService } from './directory-service.js';
import { KeyRepository } from './key-repo.js';
import { directoryRoutes } from './routes.js';
import { UsernameService } from './usernames.js';

/** Receiving keys, usernames, the NIP-05 document and Grin address lookup, as a core feature (it serves the shared NIP-05 cache). */
export function directoryPlugin(): CoreFeature {
  return {
    name: 'core-directory',
    errors: [directoryErrors],
    routes: [
      'GET /api/v1/usernames/{username}',
      'GET /api/v1/users/by-username/{username}',
      'GET /.well-known/nostr.json',
      'GET /api/v1/.well-known/nostr.json',
      'OPTIONS /.well-known/nostr.json',
      'OPTIONS /api/v1/.well-known/nostr.json',
      'POST /api/v1/keys',
      'GET /api/v1/users/{user_id}/keys',
      'GET /api/v1/users/{user_id}/keys/{asset}',
      'GET /api/v1/users/me/username',
      'POST /api/v1/users/me/username',
      'GET /api/v1/wallet/grin/address/{addr}/user',
    ],
    setup(ctx, core) {
      const keys = new KeyRepository(ctx.db, ctx.clock);
      const directory = new DirectoryService(ctx.db, keys, ctx.settings.chainNetwork, ctx.settings.nip05Relays, ctx.settings.publicApiUrl, core.nip05Cache);
      const usernames = new UsernameService(ctx.db, ctx.clock, () => core.nip05Cache.forget());
      for (const route of directoryRoutes(directory, usernames)) ctx.routes.add(route);
    },
  };
}
