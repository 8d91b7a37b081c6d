import { InviteStore, systemClock } from '@wallet/backend-core';
import { withBackend } from '../backend.js';
import { CliFailure, type CliIo } from '../io.js';

export interface MintInviteOptions {
  count: string;
  label?: string;
  expiresDays?: string;
}

const MAX_COUNT = 10_000;

function positiveInt(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new CliFailure(`${name} must be a whole number from 1 to ${max}`, []);
  return Number(value);
}

/**
 * `wallet-backend mint-invite --count N [--label L] [--expires-days D]`: prints N new invite
 * codes, one per line on stdout, exactly once; the database keeps only their sha256. Progress
 * and the summary go to stderr so the output can be piped straight into a file.
 */
export async function mintInviteCommand(io: CliIo, options: MintInviteOptions): Promise<void> {
  const count = positiveInt(options.count, '--count', MAX_COUNT)!;
  const expiresDays = positiveInt(options.expiresDays, '--expires-days', 3_650);
  if (options.label !== undefined && (options.label.length === 0 || options.label.length > 100)) throw new CliFailure('--label must be 1 to 100 characters', []);
  await withBackend(io, 'invite_codes', async (backend) => {
    const store = new InviteStore(backend.db, systemClock);
    const expiresAt = expiresDays === undefined ? undefined : new Date(Date.now() + expiresDays * 86_400_000);
    const batch = 500;
    for (let done = 0; done < count; done += batch) {
      const codes = await store.mint(Math.min(batch, count - done), { label: options.label, expiresAt });
      for (const code of codes) io.out(code);
      if (count > batch) io.err(`minted ${Math.min(done + batch, count)}/${count}`);
    }
    io.err(
      `${count} invite code${count === 1 ? '' : 's'} minted${options.label ? ` (label "${options.label}")` : ''}${expiresAt ? `, expiring ${expiresAt.toISOString()}` : ''}. ` +
        'They are shown only now; the database keeps only their hashes.',
    );
  });
}
