import { appliedMigrations } from '@wallet/backend-core';
import { openBackend } from '../backend.js';
import type { CliIo } from '../io.js';

/** `wallet-backend migrate`: applies pending migrations (core's, then each plugin's). */
export async function migrateCommand(io: CliIo, options: { status?: boolean }): Promise<void> {
  const backend = await openBackend(io);
  try {
    io.out(`database: ${backend.db.dialect.kind}`);
    if (options.status) {
      const done = await appliedMigrations(backend.db.knex);
      io.out(done.length === 0 ? 'no migrations applied yet' : `${done.length} applied:`);
      for (const id of done) io.out(`  ${id}`);
      return;
    }
    const applied = await backend.migrate();
    if (applied.length === 0) io.out('already up to date');
    for (const id of applied) io.out(`applied ${id}`);
    if (applied.length > 0) io.out(`${applied.length} migration${applied.length === 1 ? '' : 's'} applied`);
  } finally {
    await backend.close();
  }
}
