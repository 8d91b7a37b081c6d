import type { Clock } from '../clock/index.js';
import { normaliseUsername } from '../directory/index.js';
import { isUuid, readOptionalTime, readTime, type Database, type Knex } from '../storage/index.js';

/** The caller's own view of their account (spec: UserInfo). */
export interface UserInfo {
  id: string;
  username: string | null;
  nostr_pubkey: string | null;
  premium_until: string | null;
  premium_active: boolean;
  created_at: string;
}

interface StoredUser {
  id: string;
  username: string | null;
  nostr_pubkey: string | null;
  premium_until: unknown;
  created_at: unknown;
}

/** Reads of the users table needed by core; identity and directory add their own. */
export class UserRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Whether a registered user has this id (false for a malformed id, never a throw). */
  async exists(userId: string, executor: Knex | Knex.Transaction = this.db.knex): Promise<boolean> {
    if (!isUuid(userId)) return false;
    return (await executor('users').select('id').where({ id: userId.toLowerCase() }).first()) !== undefined;
  }

  /** The id of the user holding this username (any case), or null; never a throw for a malformed handle. */
  async idByUsername(username: string, executor: Knex | Knex.Transaction = this.db.knex): Promise<string | null> {
    const normalised = normaliseUsername(username);
    if (normalised === null) return null;
    const row = (await executor('users').select('id').where({ username: normalised }).first()) as { id: string } | undefined;
    return row?.id ?? null;
  }

  async findInfo(userId: string): Promise<UserInfo | null> {
    const row = (await this.db
      .knex<StoredUser>('users')
      .select('id', 'username', 'nostr_pubkey', 'premium_until', 'created_at')
      .where({ id: userId })
      .first()) as StoredUser | undefined;
    if (!row) return null;
    const premiumUntil = readOptionalTime(row.premium_until);
    return {
      id: row.id,
      username: row.username,
      nostr_pubkey: row.nostr_pubkey,
      premium_until: premiumUntil?.toISOString() ?? null,
      premium_active: premiumUntil !== null && premiumUntil > this.clock.now(),
      created_at: readTime(row.created_at).toISOString(),
    };
  }
}
