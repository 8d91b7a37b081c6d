import type { WalletPlugin } from '../plugin/index.js';
import { DirectoryService } from './directory-service.js';
import { KeyRepository } from './key-repo.js';
import { directoryRoutes } from './routes.js';
import { UsernameService } from './usernames.js';

/** Receiving keys, usernames, the NIP-05 document and Grin address lookup, as a core plugin. */
export function directoryPlugin(): WalletPlugin {
  return {
    name: 'core-directory',
    setup(ctx) {
      const keys = new KeyRepository(ctx.db, ctx.clock);
      const directory = new DirectoryService(ctx.db, keys, ctx.settings.chainNetwork, ctx.settings.nip05Relays, ctx.settings.publicApiUrl);
      const usernames = new UsernameService(ctx.db, ctx.clock);
      for (const route of directoryRoutes(directory, usernames)) ctx.routes.add(route);
    },
  };
}
