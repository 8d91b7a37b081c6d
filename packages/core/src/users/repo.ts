import type { Clock } from '../clock/index.js';
import { normaliseUsername } from '../directory/index.js';
import { cancellingTimeout } from '../metrics/index.js';
import { isUuid, lockRowsForUpdate, PreparedStatement, readOptionalTime, readTime, type Database, type Knex } from '../storage/index.js';

/** The caller's own view of their account (spec: UserInfo). */
export interface UserInfo {
  id: string;
  username: string | null;
  nostr_pubkey: string | null;
  premium_until: string | null;
  premium_active: boolean;
  created_at: string;
}

/**
 * The user rows each transaction has locked through `UserRepository` (every instance): a lock is
 * held until the transaction ends. A savepoint (a nested knex transaction) is its own key: a lock
 * it took is not taken for its parent. (A lock the parent takes while a savepoint is open, then
 * rolled back to, would be remembered though released; nothing here locks that way.)
 */
const lockedIn = new WeakMap<Knex.Transaction, Set<string>>();

/** The user's row locked for update, with its suspension: every login's session guards run it. */
const LOCKED_USER = new PreparedStatement<{ id: string }>('locked_user', (knex, param) =>
  lockRowsForUpdate(knex('users').select('id', 'suspended_at').where({ id: param('id') })).first(),
);

/** `GET /auth/me`'s read, on every call of it. */
const USER_INFO = new PreparedStatement<{ id: string }>('user_info', (knex, param) =>
  knex('users').select('id', 'username', 'nostr_pubkey', 'premium_until', 'created_at').where({ id: param('id') }).first(),
);

interface StoredUser {
  id: string;
  username: string | null;
  nostr_pubkey: string | null;
  premium_until: unknown;
  created_at: unknown;
}

/**
 * Core's one statement of "premium is active": the period ends after `now` (`premium_until >
 * now`, strictly; never premium is not active). {@link UserRepository.countPremiumActive} is the
 * same rule in SQL.
 */
export function premiumActive(premiumUntil: Date | null, now: Date): boolean {
  return premiumUntil !== null && premiumUntil > now;
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

  async idByNostrPubkey(pubkey: string, executor: Knex | Knex.Transaction = this.db.knex): Promise<string | null> {
    if (!/^[0-9a-f]{64}$/.test(pubkey)) return null;
    const row = (await executor('users').select('id').where({ nostr_pubkey: pubkey }).first()) as { id: string } | undefined;
    return row?.id ?? null;
  }

  /** The user's linked Nostr key (64 hex), or null (none linked, or unknown user). */
  async nostrPubkey(userId: string, executor: Knex | Knex.Transaction = this.db.knex): Promise<string | null> {
    if (!isUuid(userId)) return null;
    const row = (await executor('users').select('nostr_pubkey').where({ id: userId.toLowerCase() }).first()) as { nostr_pubkey: string | null } | undefined;
    return row?.nostr_pubkey ?? null;
  }

  /** The end of the user's premium period (null when never premium or unknown user). */
  async premiumUntil(userId: string, executor: Knex | Knex.Transaction = this.db.knex): Promise<Date | null> {
    if (!isUuid(userId)) return null;
    const row = (await executor('users').select('premium_until').where({ id: userId.toLowerCase() }).first()) as { premium_until: unknown } | undefined;
    return row === undefined ? null : readOptionalTime(row.premium_until);
  }

  /**
   * How many users' premium is active at `now` ({@link premiumActive} in SQL; the
   * `users_premium_until` index answers it). With `timeoutMs` the statement is cancelled on
   * Postgres once it runs that long (a metrics read the scrape gave up on); SQLite cannot
   * interrupt it.
   */
  async countPremiumActive(now: Date, options: { timeoutMs?: number } = {}): Promise<number> {
    const query = this.db.knex('users').where('premium_until', '>', this.db.dialect.time(now)).count({ n: '*' });
    const row = (await (options.timeoutMs === undefined ? query : cancellingTimeout(query, options.timeoutMs)).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  /**
   * Locks the user's row until `trx` ends (serialises one user's read-modify-write); false for an
   * unknown user. A row `trx` already locked here costs no statement: a login's session guards
   * (core's suspension check, erasure's freeze check) each lock the same row.
   */
  async lock(trx: Knex.Transaction, userId: string): Promise<boolean> {
    if (!isUuid(userId)) return false;
    if (lockedIn.get(trx)?.has(userId.toLowerCase())) return true;
    return (await this.lockedSuspension(trx, userId)) !== undefined;
  }

  /** Locks the user's row as `lock` does and reads its suspension time: undefined for an unknown user. */
  async lockedSuspension(trx: Knex.Transaction, userId: string): Promise<Date | null | undefined> {
    if (!isUuid(userId)) return undefined;
    const id = userId.toLowerCase();
    const row = await LOCKED_USER.first<{ suspended_at: unknown }>(trx, { id });
    if (row === undefined) return undefined;
    const locked = lockedIn.get(trx) ?? new Set<string>();
    lockedIn.set(trx, locked.add(id));
    return readOptionalTime(row.suspended_at);
  }

  /**
   * Extends the premium period by `days` from the later of now and its current end, inside `trx`
   * with the user's row locked (so two extensions stack instead of overwriting each other).
   * Null when the user does not exist.
   */
  async extendPremium(trx: Knex.Transaction, userId: string, days: number): Promise<Date | null> {
    if (!isUuid(userId)) return null;
    const id = userId.toLowerCase();
    const row = (await this.db.dialect.lockRowsForUpdate(trx('users').select('premium_until').where({ id })).first()) as { premium_until: unknown } | undefined;
    if (row === undefined) return null;
    const now = this.clock.now().getTime();
    const current = readOptionalTime(row.premium_until)?.getTime() ?? now;
    const until = new Date(Math.max(now, current) + days * 86_400_000);
    await trx('users').where({ id }).update({ premium_until: this.db.dialect.time(until) });
    return until;
  }

  /**
   * Removes the account inside the erasure's transaction: its login events are purged (or, with
   * `anonymize`, kept without the user link and fingerprint), then the user row is deleted, which
   * cascades to keys and sessions and sets null on every other link. False for an unknown user.
   */
  async erase(trx: Knex.Transaction, userId: string, options: { loginEvents: 'purge' | 'anonymize' }): Promise<boolean> {
    if (!isUuid(userId)) return false;
    const id = userId.toLowerCase();
    if (options.loginEvents === 'purge') await trx('login_events').where({ user_id: id }).delete();
    else await trx('login_events').where({ user_id: id }).update({ user_id: null, fingerprint: null });
    return (await trx('users').where({ id }).delete()) > 0;
  }

  /**
   * Core's section of a user's data export: the account, its suspension (or null), its receiving
   * keys, sessions and login events, without peppered hashes, token hashes or IP hashes (they describe nothing to the
   * user and are secrets' outputs).
   */
  async exportAccount(userId: string): Promise<Record<string, unknown>> {
    if (!isUuid(userId)) return {};
    const id = userId.toLowerCase();
    const knex = this.db.knex;
    const info = await this.findInfo(id);
    if (info === null) return {};
    // The account as /auth/me shows it, without the derived premium_active.
    const { premium_active: _derived, ...account } = info;
    const time = (value: unknown) => readOptionalTime(value)?.toISOString() ?? null;
    const keys = (await knex('user_keys').select('asset', 'key_type', 'public_key', 'public_spend_key', 'proven_at', 'created_at').where({ user_id: id }).orderBy(['asset', 'key_type'])) as Array<Record<string, unknown>>;
    const sessions = (await knex('sessions').select('platform', 'created_at', 'expires_at', 'revoked_at').where({ user_id: id }).orderBy('created_at')) as Array<Record<string, unknown>>;
    const logins = (await knex('login_events').select('platform', 'created_at').where({ user_id: id }).orderBy('created_at')) as Array<Record<string, unknown>>;
    const suspension = (await knex('users').select('suspended_at', 'suspension_reason').where({ id }).first()) as { suspended_at: unknown; suspension_reason: string | null } | undefined;
    return {
      account,
      // What the operator holds against the account, and why: the user's to see too.
      suspension: suspension?.suspended_at == null ? null : { suspended_at: time(suspension.suspended_at), reason: suspension.suspension_reason },
      keys: keys.map((key) => ({ asset: key.asset, key_type: key.key_type, public_key: key.public_key, public_spend_key: key.public_spend_key ?? null, proven: key.proven_at !== null, created_at: time(key.created_at) })),
      sessions: sessions.map((session) => ({ platform: session.platform, created_at: time(session.created_at), expires_at: time(session.expires_at), revoked_at: time(session.revoked_at) })),
      login_events: logins.map((login) => ({ platform: login.platform, created_at: time(login.created_at) })),
    };
  }

  async findInfo(userId: string): Promise<UserInfo | null> {
    const row = await USER_INFO.first<StoredUser>(this.db.knex, { id: userId });
    if (!row) return null;
    const premiumUntil = readOptionalTime(row.premium_until);
    return {
      id: row.id,
      username: row.username,
      nostr_pubkey: row.nostr_pubkey,
      premium_until: premiumUntil?.toISOString() ?? null,
      premium_active: premiumActive(premiumUntil, this.clock.now()),
      created_at: readTime(row.created_at).toISOString(),
    };
  }
}
