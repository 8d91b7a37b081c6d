import type { Sessions } from '../auth/index.js';
import { ASSETS } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { parseNostrPubkey } from '../crypto/index.js';
import { normaliseUsername, type Nip05Cache } from '../directory/index.js';
import type { HookRegistry } from '../hooks/index.js';
import type { AdminAuth } from '../http/index.js';
import { isUuid, readOptionalTime, readTime, type Database, type Knex } from '../storage/index.js';
import type { UserRepository } from '../users/index.js';
import type { AuditChain } from './audit.js';
import { adminErrors } from './errors.js';

/** One account as a search lists it. */
export interface AccountListing {
  user_id: string;
  username: string | null;
  nostr_pubkey: string | null;
  created_at: string;
  suspended_at: string | null;
}

/** The operator's view of one account: what it is and what it holds, never a peppered or hashed value. */
export interface AccountView extends AccountListing {
  /** Whether the account has a browser-extension identity (its peppered BTC key hash is not shown). */
  extension_identity: boolean;
  premium_until: string | null;
  suspension_reason: string | null;
  keys: Array<{ asset: string; key_type: string; public_key: string; public_spend_key: string | null; proven: boolean; created_at: string }>;
  sessions: { live: number; list: Array<{ platform: string; created_at: string; expires_at: string }> };
  /** Each plugin's section (tips, premium, erasure…), by plugin name. */
  sections: Record<string, Record<string, unknown>>;
}

export interface AccountAdminDeps {
  db: Database;
  clock: Clock;
  sessions: Sessions;
  audit: AuditChain;
  hooks: HookRegistry;
  nip05Cache: Nip05Cache;
  users: UserRepository;
}

/** At most this many accounts answer one search (every match is exact, so more means a shared key). */
const SEARCH_LIMIT = 20;
const LISTING_COLUMNS = ['id', 'username', 'nostr_pubkey', 'created_at', 'suspended_at'] as const;

type StoredListing = { id: string; username: string | null; nostr_pubkey: string | null; created_at: unknown; suspended_at: unknown };

const time = (value: unknown) => readOptionalTime(value)?.toISOString() ?? null;
const toListing = (row: StoredListing): AccountListing => ({
  user_id: row.id,
  username: row.username,
  nostr_pubkey: row.nostr_pubkey,
  created_at: readTime(row.created_at).toISOString(),
  suspended_at: time(row.suspended_at),
});

/**
 * Accounts as the operator sees them: found by what identifies them publicly, viewed without any
 * secret's output, suspended and reinstated. A suspension ends every session in its own
 * transaction and is enforced by the session guard (`refuseSuspended`), which locks the same
 * user row, so a login or refresh racing it either finishes first (and its session is ended) or
 * is refused.
 */
export class AccountAdmin {
  constructor(private readonly deps: AccountAdminDeps) {}

  /**
   * Exact matches only, never a pattern: a user id, a username (any case, with or without `@`),
   * a Nostr key (hex or npub), or a receiving key (any asset's public key or spend key).
   */
  async find(query: string): Promise<{ users: AccountListing[] }> {
    const text = query.trim();
    const knex = this.deps.db.knex;
    const ids = new Set<string>();
    if (isUuid(text)) ids.add(text.toLowerCase());
    const username = normaliseUsername(text.replace(/^@/, ''));
    const nostr = parseNostrPubkey(text);
    const byName = [...(username === null ? [] : [{ username }]), ...(nostr === null ? [] : [{ nostr_pubkey: nostr }])];
    if (byName.length > 0) {
      const rows = (await knex('users').select('id').where((where) => byName.forEach((match) => where.orWhere(match))).limit(SEARCH_LIMIT)) as Array<{ id: string }>;
      for (const row of rows) ids.add(row.id);
    }
    if (text.length > 0 && text.length <= 200) {
      // The (asset, public_key) and (asset, public_spend_key) indexes lead with the asset.
      const byKey = (await knex('user_keys')
        .distinct('user_id')
        .whereIn('asset', ASSETS)
        .where((where) => where.where({ public_key: text }).orWhere({ public_spend_key: text }))
        .limit(SEARCH_LIMIT)) as Array<{ user_id: string }>;
      for (const row of byKey) ids.add(row.user_id);
    }
    if (ids.size === 0) return { users: [] };
    const rows = (await knex('users').select(...LISTING_COLUMNS).whereIn('id', [...ids]).orderBy('created_at').limit(SEARCH_LIMIT)) as StoredListing[];
    return { users: rows.map(toListing) };
  }

  async view(userId: string): Promise<AccountView> {
    const id = userId.toLowerCase();
    const knex = this.deps.db.knex;
    const row = (await knex('users')
      .select(...LISTING_COLUMNS, 'pubkey_hash', 'premium_until', 'suspension_reason')
      .where({ id })
      .first()) as (StoredListing & { pubkey_hash: string | null; premium_until: unknown; suspension_reason: string | null }) | undefined;
    if (row === undefined) throw adminErrors.create.admin_user_not_found();
    const now = this.deps.db.dialect.time(this.deps.clock.now());
    const [keys, sessions, sections] = await Promise.all([
      knex('user_keys').select('asset', 'key_type', 'public_key', 'public_spend_key', 'proven_at', 'created_at').where({ user_id: id }).orderBy(['asset', 'key_type']) as Promise<Array<Record<string, unknown>>>,
      knex('sessions').select('platform', 'created_at', 'expires_at').where({ user_id: id }).whereNull('revoked_at').where('expires_at', '>', now).orderBy('created_at') as Promise<Array<Record<string, unknown>>>,
      this.deps.hooks.collectUserSummary(id),
    ]);
    return {
      ...toListing(row),
      extension_identity: row.pubkey_hash !== null,
      premium_until: time(row.premium_until),
      suspension_reason: row.suspension_reason,
      keys: keys.map((key) => ({
        asset: key.asset as string,
        key_type: key.key_type as string,
        public_key: key.public_key as string,
        public_spend_key: (key.public_spend_key as string | null) ?? null,
        proven: key.proven_at !== null && key.proven_at !== undefined,
        created_at: readTime(key.created_at).toISOString(),
      })),
      sessions: {
        live: sessions.length,
        list: sessions.map((session) => ({ platform: session.platform as string, created_at: readTime(session.created_at).toISOString(), expires_at: readTime(session.expires_at).toISOString() })),
      },
      sections,
    };
  }

  /** Ends every session, refuses every later login, withdraws the NIP-05 entry; audited with the reason. */
  async suspend(admin: AdminAuth, userId: string, reason: string, peerIp: string): Promise<AccountView> {
    const id = userId.toLowerCase();
    const { db, clock } = this.deps;
    await db.transaction(async (trx) => {
      const current = await this.deps.users.lockedSuspension(trx, id);
      if (current === undefined) throw adminErrors.create.admin_user_not_found();
      if (current !== null) throw adminErrors.create.account_already_suspended();
      await trx('users').where({ id }).update({ suspended_at: db.dialect.time(clock.now()), suspension_reason: reason });
      const ended = await this.deps.sessions.revokeAllForUser(id, trx);
      this.deps.nip05Cache.forget(trx);
      await this.deps.audit.append(trx, { action: 'account_suspended', actorKind: 'admin', actorPubkey: admin.pubkey, target: `user:${id}`, details: { reason, sessions_ended: ended }, peerIp });
    });
    return this.view(id);
  }

  /** Lifts a suspension: logins work again (no session comes back) and the NIP-05 entry returns; audited with the reason. */
  async reinstate(admin: AdminAuth, userId: string, reason: string, peerIp: string): Promise<AccountView> {
    const id = userId.toLowerCase();
    const { db } = this.deps;
    await db.transaction(async (trx) => {
      const current = await this.deps.users.lockedSuspension(trx, id);
      if (current === undefined) throw adminErrors.create.admin_user_not_found();
      if (current === null) throw adminErrors.create.account_not_suspended();
      await trx('users').where({ id }).update({ suspended_at: null, suspension_reason: null });
      this.deps.nip05Cache.forget(trx);
      await this.deps.audit.append(trx, { action: 'account_reinstated', actorKind: 'admin', actorPubkey: admin.pubkey, target: `user:${id}`, details: { reason }, peerIp });
    });
    return this.view(id);
  }

  /**
   * The session guard: a suspended account opens no session by any login path or refresh. It
   * locks the user's row, as a suspension does, so the two never interleave.
   */
  async refuseSuspended(userId: string, trx: Knex.Transaction): Promise<void> {
    if ((await this.deps.users.lockedSuspension(trx, userId.toLowerCase())) != null) throw adminErrors.create.account_suspended();
  }
}
