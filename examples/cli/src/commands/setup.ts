import { parseNostrPubkey } from '@wallet/backend-core';
import { withBackend } from '../backend.js';
import { CliFailure, printJson, usageError, type CliIo } from '../io.js';

/**
 * `wallet-backend setup <pubkey>`: bootstraps the first admin (full scope, activated) and locks
 * the setup latch, in one transaction. Refused once the latch is locked or an admin is active.
 */
export async function setupCommand(io: CliIo, pubkeyText: string): Promise<void> {
  const pubkey = parseNostrPubkey(pubkeyText);
  if (pubkey === null) throw usageError('the admin public key must be 64 hex characters or an npub1… key');
  await withBackend(io, 'server_config', async (backend) => {
    const key = await backend.setup.bootstrap(pubkey);
    io.out(`admin key ${key.id} (${key.pubkey}, full scope) is active; setup is locked.`);
    io.err('Log in to the admin API with this key (see docs/admin.md).');
  });
}

/** `setup-status --json`: the latch state (`fresh`, `uninitialized`, `locked`, `tampered`) and the active admin keys. */
export interface SetupStatusJson {
  state: string;
  active_admins: number;
}

/** `wallet-backend setup-status [--json]`: the latch state as the server would see it at start-up. */
export async function setupStatusCommand(io: CliIo, options: { json?: boolean } = {}): Promise<void> {
  await withBackend(io, 'server_config', async (backend) => {
    const { state, activeAdmins } = await backend.setup.status();
    if (options.json) printJson(io, { state, active_admins: activeAdmins } satisfies SetupStatusJson);
    else io.out(`setup latch: ${state}; active admin keys: ${activeAdmins}`);
    if (state === 'tampered') throw new CliFailure('the setup latch failed its integrity check: the server refuses to start', []);
  });
}

/**
 * `wallet-backend reset-setup --acknowledge`: locked → uninitialized. Admin keys stay; every
 * admin session ends. Without the flag nothing happens (a usage error, exit code 2).
 */
export async function resetSetupCommand(io: CliIo, options: { acknowledge?: boolean }): Promise<void> {
  if (options.acknowledge !== true) {
    throw usageError('reset-setup reopens first-run setup; run it again with --acknowledge to confirm', [
      'admin keys are kept; every admin session is ended',
      'until `wallet-backend setup <pubkey>` runs again, nobody can log in to the admin API',
    ]);
  }
  await withBackend(io, 'server_config', async (backend) => {
    await backend.setup.reset(true);
    io.out('setup latch reset to uninitialized; admin sessions ended. Run `wallet-backend setup <pubkey>` to lock it again.');
  });
}
