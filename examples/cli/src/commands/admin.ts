import type { AdminKey } from '@wallet/backend-core';
import { withBackend } from '../backend.js';
import { CliFailure, printJson, type CliIo } from '../io.js';

/** `admin list --json`: `{ keys: AdminKeyJson[] }`, the admin API's `GET /admin/keys` fields plus `state`. */
export interface AdminKeyJson {
  id: string;
  pubkey: string;
  scope: string;
  state: 'active' | 'created' | 'revoked';
  created_at: string;
  activated_at: string | null;
  revoked_at: string | null;
  intact: boolean;
}

function keyJson(key: AdminKey): AdminKeyJson {
  return {
    id: key.id,
    pubkey: key.pubkey,
    scope: key.scope,
    state: key.revokedAt ? 'revoked' : key.activatedAt ? 'active' : 'created',
    created_at: key.createdAt.toISOString(),
    activated_at: key.activatedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    intact: key.intact,
  };
}

/** `wallet-backend admin list [--json]`: every admin key, one per line, with its state and integrity. */
export async function adminListCommand(io: CliIo, options: { json?: boolean } = {}): Promise<void> {
  await withBackend(io, 'admin_keys', async (backend) => {
    const keys = await backend.setup.listKeys();
    if (options.json) {
      printJson(io, { keys: keys.map(keyJson) });
    } else {
      if (keys.length === 0) io.err('no admin keys; bootstrap one with `wallet-backend setup <pubkey>`');
      for (const key of keys) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : key.activatedAt ? 'active' : 'created (activates at first login)';
        io.out(`${key.id}  ${key.pubkey}  ${key.scope.padEnd(4)}  ${state}${key.intact ? '' : '  INTEGRITY CHECK FAILED (refused)'}`);
      }
    }
    if (keys.some((key) => !key.intact)) throw new CliFailure('some admin key rows failed their integrity check (edited in the database?)', []);
  });
}

/** `wallet-backend admin revoke <id|pubkey>`: the shell's way out, with no last-key guard. */
export async function adminRevokeCommand(io: CliIo, idOrPubkey: string): Promise<void> {
  await withBackend(io, 'admin_keys', async (backend) => {
    const revoked = await backend.setup.revokeKey(idOrPubkey);
    if (revoked === null) throw new CliFailure(`no live admin key matches ${idOrPubkey}`, []);
    io.out(`admin key ${revoked.id} (${revoked.pubkey}) revoked; its sessions ended.`);
  });
}
