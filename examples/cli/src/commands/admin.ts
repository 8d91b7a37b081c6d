import { withBackend } from '../backend.js';
import { CliFailure, type CliIo } from '../io.js';

/** `wallet-backend admin list`: every admin key, one per line, with its state and integrity. */
export async function adminListCommand(io: CliIo): Promise<void> {
  await withBackend(io, 'admin_keys', async (backend) => {
    const keys = await backend.setup.listKeys();
    if (keys.length === 0) io.err('no admin keys; bootstrap one with `wallet-backend setup <pubkey>`');
    for (const key of keys) {
      const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : key.activatedAt ? 'active' : 'created (activates at first login)';
      io.out(`${key.id}  ${key.pubkey}  ${key.scope.padEnd(4)}  ${state}${key.intact ? '' : '  INTEGRITY CHECK FAILED (refused)'}`);
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
