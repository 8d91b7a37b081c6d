import type { Clock } from '../clock/index.js';
import { isUniqueViolation, type Database } from '../storage/index.js';
import { directoryErrors } from './errors.js';

const USERNAME = /^[a-z0-9_]{3,30}$/;

/**
 * Handles nobody may take: they impersonate the operator or a role, or collide with routes and
 * NIP-05 conventions. Matching is on the lower-cased handle.
 */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'abuse', 'admin', 'administrator', 'anonymous', 'api', 'backend', 'billing', 'help', 'hostmaster', 'info', 'invite',
  'login', 'logout', 'mail', 'me', 'moderator', 'noreply', 'no_reply', 'nostr', 'null', 'official', 'operator', 'owner',
  'payments', 'postmaster', 'premium', 'register', 'relay', 'root', 'security', 'staff', 'support', 'sysadmin', 'system',
  'tips', 'undefined', 'user', 'users', 'wallet', 'webmaster', 'www',
]);

/** Lower-cases a handle; null when it is not of the allowed form. */
export function normaliseUsername(value: string): string | null {
  const lowered = value.toLowerCase();
  return USERNAME.test(lowered) ? lowered : null;
}

/** Usernames (spec › Keys and usernames): unique, lowercase, validated, reserved list; a collision is 409 even when raced. */
export class UsernameService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    /** Told when a name may resolve differently (the NIP-05 cache). */
    private readonly namesChanged: () => void,
  ) {}

  async get(userId: string): Promise<{ username: string | null }> {
    const row = (await this.db.knex('users').select('username').where({ id: userId }).first()) as { username: string | null } | undefined;
    return { username: row?.username ?? null };
  }

  async set(userId: string, requested: string): Promise<{ username: string }> {
    const username = normaliseUsername(requested);
    if (username === null) throw directoryErrors.create.username_invalid();
    if (RESERVED_USERNAMES.has(username)) throw directoryErrors.create.username_unavailable();
    try {
      // The unique index decides races: the loser's update raises a unique violation, never a second owner.
      await this.db.knex('users').where({ id: userId }).update({ username, updated_at: this.db.dialect.time(this.clock.now()) });
      // The old name is free and the new one taken: both lookups change.
      this.namesChanged();
    } catch (err) {
      if (isUniqueViolation(err)) throw directoryErrors.create.username_unavailable({ cause: err });
      throw err;
    }
    return { username };
  }
}
