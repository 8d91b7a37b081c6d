import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import type { Clock } from '../clock/index.js';
import type { PageCursor } from '../http/index.js';
import type { RegistrationAttempt, RegistrationGate } from '../identity/index.js';
import { readOptionalTime, type Database, type Knex } from '../storage/index.js';
import { gateErrors } from './errors.js';

const codeHash = (code: string) => bytesToHex(sha256(utf8ToBytes(code.trim())));

/** What an invite is at one instant: used and revoked are final; an unused code past its expiry is expired. */
export type InviteState = 'unused' | 'used' | 'expired' | 'revoked';
export const INVITE_STATES = ['unused', 'used', 'expired', 'revoked'] as const satisfies readonly InviteState[];

/** A freshly minted invite: the raw code exists only in this value. */
export interface MintedInvite {
  id: string;
  code: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
}

/** An invite as the operator sees it: never its code or the code's hash. */
export interface InviteView {
  id: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  used_at: string | null;
  revoked_at: string | null;
  state: InviteState;
}

interface StoredInvite {
  id: string;
  label: string | null;
  created_at: unknown;
  expires_at: unknown;
  used_at: unknown;
  revoked_at: unknown;
}

/** The columns an operator may see: the code's hash is never selected. */
const VIEW_COLUMNS = ['id', 'label', 'created_at', 'expires_at', 'used_at', 'revoked_at'];

const iso = (value: unknown) => readOptionalTime(value)?.toISOString() ?? null;

function view(row: StoredInvite, now: Date): InviteView {
  const expiresAt = readOptionalTime(row.expires_at);
  const state: InviteState =
    row.used_at !== null && row.used_at !== undefined
      ? 'used'
      : row.revoked_at !== null && row.revoked_at !== undefined
        ? 'revoked'
        : expiresAt !== null && expiresAt.getTime() <= now.getTime()
          ? 'expired'
          : 'unused';
  return { id: row.id, label: row.label, created_at: iso(row.created_at)!, expires_at: iso(row.expires_at), used_at: iso(row.used_at), revoked_at: iso(row.revoked_at), state };
}

/**
 * Invite codes (spec › Invite code): 128 random bits in base58, stored only as sha256(code) with a
 * public id to list and revoke it by; consumed once by a conditional update; one literal error
 * for unknown, used, expired and revoked.
 */
export class InviteStore implements RegistrationGate {
  readonly name = 'invite';

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates `count` codes and returns them raw: the only time they exist outside the holder.
   * Writes no audit entry: an operator's tool mints through `backend.setup.mintInvites`, which does.
   */
  async mint(count: number, options: { label?: string; expiresAt?: Date } = {}): Promise<string[]> {
    const minted = await this.db.transaction((trx) => this.insert(trx, count, options));
    return minted.map((invite) => invite.code);
  }

  /** Inserts `count` new codes inside `trx`, each with its own id; returned raw with what was stored with them. */
  async insert(trx: Knex.Transaction, count: number, options: { label?: string; expiresAt?: Date } = {}): Promise<MintedInvite[]> {
    const now = this.clock.now();
    const label = options.label ?? null;
    const minted: MintedInvite[] = [];
    for (let i = 0; i < count; i++) {
      const invite: MintedInvite = { id: randomUUID(), code: base58.encode(randomBytes(16)), label, created_at: now.toISOString(), expires_at: options.expiresAt?.toISOString() ?? null };
      await trx('invite_codes').insert({
        id: invite.id,
        code_hash: codeHash(invite.code),
        label,
        created_at: this.db.dialect.time(now),
        expires_at: options.expiresAt ? this.db.dialect.time(options.expiresAt) : null,
        used_at: null,
        revoked_at: null,
      });
      minted.push(invite);
    }
    return minted;
  }

  /**
   * Invites newest first (created, then id), at most `limit` rows, those after the position
   * `after` (a page cursor: the previous page's last created_at and id), in `state` as of `now`.
   */
  async list(filter: { state: InviteState | 'all'; limit: number; after?: PageCursor | undefined }, now: Date): Promise<InviteView[]> {
    const { knex, dialect } = this.db;
    const at = dialect.time(now);
    const query = knex('invite_codes').select(VIEW_COLUMNS);
    const { after } = filter;
    if (after !== undefined) {
      const createdAt = dialect.time(after.at);
      query.where((w) => w.where('created_at', '<', createdAt).orWhere((same) => same.where('created_at', '=', createdAt).andWhere('id', '<', after.id)));
    }
    switch (filter.state) {
      case 'used':
        query.whereNotNull('used_at');
        break;
      case 'revoked':
        query.whereNull('used_at').whereNotNull('revoked_at');
        break;
      case 'expired':
        query.whereNull('used_at').whereNull('revoked_at').where('expires_at', '<=', at);
        break;
      case 'unused':
        query.whereNull('used_at').whereNull('revoked_at').where((w) => w.whereNull('expires_at').orWhere('expires_at', '>', at));
        break;
      case 'all':
        break;
    }
    const rows = (await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(filter.limit)) as StoredInvite[];
    return rows.map((row) => view(row, now));
  }

  /**
   * Revokes an unused, unexpired, unrevoked invite inside `trx` by a conditional update (a
   * registration redeeming the code at the same moment: exactly one of them changes the row).
   * Null when the id is known but the invite cannot be revoked; `invite_not_found` when unknown.
   */
  async revoke(trx: Knex.Transaction, id: string, now: Date): Promise<InviteView | null> {
    const at = this.db.dialect.time(now);
    const revoked = await this.db.transitionOne<StoredInvite>(
      'invite_codes',
      (qb) => qb.where({ id }).whereNull('used_at').whereNull('revoked_at').where((w) => w.whereNull('expires_at').orWhere('expires_at', '>', at)),
      { revoked_at: at },
      trx,
    );
    if (revoked !== null) return view(revoked, now);
    const known = await trx('invite_codes').select('id').where({ id }).first();
    if (known === undefined) throw gateErrors.create.invite_not_found();
    return null;
  }

  async precheck(attempt: RegistrationAttempt): Promise<void> {
    if (attempt.inputs.invite_code === undefined) throw gateErrors.create.invite_invalid();
  }

  async admit(attempt: RegistrationAttempt, trx: Knex.Transaction): Promise<void> {
    const code = attempt.inputs.invite_code;
    if (code === undefined) throw gateErrors.create.invite_invalid();
    const now = this.db.dialect.time(this.clock.now());
    const used = await this.db.transitionOne(
      'invite_codes',
      (qb) => qb.where({ code_hash: codeHash(code) }).whereNull('used_at').whereNull('revoked_at').where((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now)),
      { used_at: now },
      trx,
    );
    if (used === null) throw gateErrors.create.invite_invalid();
  }
}
