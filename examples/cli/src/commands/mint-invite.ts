import { withBackend } from '../backend.js';
import { printJson, usageError, type CliIo } from '../io.js';

export interface MintInviteOptions {
  count: string;
  label?: string;
  expiresDays?: string;
  json?: boolean;
}

/** `mint-invite --json`: the raw codes (shown only now) and what was stored with them. */
export interface MintInviteJson {
  count: number;
  label: string | null;
  expires_at: string | null;
  codes: string[];
}

const MAX_COUNT = 10_000;

function positiveInt(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw usageError(`${name} must be a whole number from 1 to ${max}`);
  return Number(value);
}

/**
 * `wallet-backend mint-invite --count N [--label L] [--expires-days D] [--json]`: prints N new
 * invite codes, one per line on stdout (or one JSON document with `--json`), exactly once; the
 * database keeps only their sha256. Progress and the summary go to stderr so the output can be
 * piped straight into a file. Bad option values are usage errors (exit code 2).
 */
export async function mintInviteCommand(io: CliIo, options: MintInviteOptions): Promise<void> {
  const count = positiveInt(options.count, '--count', MAX_COUNT)!;
  const expiresDays = positiveInt(options.expiresDays, '--expires-days', 3_650);
  if (options.label !== undefined && (options.label.length === 0 || options.label.length > 100)) throw usageError('--label must be 1 to 100 characters');
  await withBackend(io, 'invite_codes', async (backend) => {
    const expiresAt = expiresDays === undefined ? undefined : new Date(Date.now() + expiresDays * 86_400_000);
    const minted: string[] = [];
    const batch = 500;
    try {
      for (let done = 0; done < count; done += batch) {
        // Each batch in one transaction with its audit entry (actor `cli`, the invites by id).
        const codes = (await backend.setup.mintInvites(Math.min(batch, count - done), { label: options.label, expiresAt })).map((invite) => invite.code);
        minted.push(...codes);
        if (!options.json) for (const code of codes) io.out(code);
        if (count > batch) io.err(`minted ${Math.min(done + batch, count)}/${count}`);
      }
    } finally {
      // Codes already stored are shown even when a later batch fails: they are usable.
      if (options.json && minted.length > 0) {
        printJson(io, { count: minted.length, label: options.label ?? null, expires_at: expiresAt?.toISOString() ?? null, codes: minted } satisfies MintInviteJson);
      }
    }
    io.err(
      `${count} invite code${count === 1 ? '' : 's'} minted${options.label ? ` (label "${options.label}")` : ''}${expiresAt ? `, expiring ${expiresAt.toISOString()}` : ''}. ` +
        'They are shown only now; the database keeps only their hashes.',
    );
  });
}
