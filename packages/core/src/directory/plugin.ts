import { directoryErrors } from './errors.js';
import type { WalletPlugin } from '../plugin/index.js';
import { DirectoryService } from './directory-service.js';
import { KeyRepository } from './key-repo.js';
import type { Nip05Cache } from './nip05-cache.js';
import { directoryRoutes } from './routes.js';
import { UsernameService } from './usernames.js';

/** Receiving keys, usernames, the NIP-05 document and Grin address lookup, as a core plugin. */
export function directoryPlugin(options: { nip05Cache: Nip05Cache }): WalletPlugin {
  return {
    name: 'core-directory',
    errors: [directoryErrors],
    setup(ctx) {
      const keys = new KeyRepository(ctx.db, ctx.clock);
      const directory = new DirectoryService(ctx.db, keys, ctx.settings.chainNetwork, ctx.settings.nip05Relays, ctx.settings.publicApiUrl, options.nip05Cache);
      const usernames = new UsernameService(ctx.db, ctx.clock, () => options.nip05Cache.forget());
      for (const route of directoryRoutes(directory, usernames)) ctx.routes.add(route);
    },
  };
}
