import type { Clock } from '../clock/index.js';
import { nextAfter, type AdminAuth, type PageCursor } from '../http/index.js';
import type { AuditEntry, AuditInput } from '../admin/index.js';
import type { Database, Knex } from '../storage/index.js';
import { gateErrors } from './errors.js';
import type { InviteState, InviteStore, InviteView, MintedInvite } from './invites.js';

/** Who mints: an admin over the admin API (its key and real peer address are audited), or the operator shell. */
export type InviteMinter = { kind: 'admin'; pubkey: string; peerIp: string } | { kind: 'cli' };

export interface MintRequest {
  count: number;
  label?: string;
  /** Already a valid instant; it must be after the request's time. */
  expiresAt?: Date;
}

/**
 * The operator's invites (admin API and operator shell): mint (the raw codes shown once), list
 * (never a code or its hash), revoke. Every change is audited in the transaction that makes it,
 * whoever makes it, and the audit entry names invites by id only. Scope is the HTTP kit's
 * business, never checked here.
 */
export class InviteAdmin {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly store: InviteStore,
    private readonly audit: { append(trx: Knex.Transaction, entry: AuditInput): Promise<AuditEntry> },
  ) {}

  async mint(minter: InviteMinter, request: MintRequest): Promise<{ invites: MintedInvite[] }> {
    if (request.expiresAt !== undefined && request.expiresAt.getTime() <= this.clock.now().getTime()) throw gateErrors.create.invite_expiry_past();
    const invites = await this.db.transaction(async (trx) => {
      const minted = await this.store.insert(trx, request.count, { label: request.label, expiresAt: request.expiresAt });
      await this.audit.append(trx, {
        action: 'invites_minted',
        actorKind: minter.kind,
        ...(minter.kind === 'admin' ? { actorPubkey: minter.pubkey, peerIp: minter.peerIp } : {}),
        // Ids only: never a code or its hash.
        details: { count: minted.length, label: request.label ?? null, expires_at: request.expiresAt?.toISOString() ?? null, ids: minted.map((invite) => invite.id) },
      });
      return minted;
    });
    return { invites };
  }

  /** A page of invites, newest first, paged as every admin list (http/paging.ts): `limit + 1` rows read, `next_after` while more remain. */
  async list(filter: { state: InviteState | 'all'; limit: number; after?: PageCursor | undefined }): Promise<{ invites: InviteView[]; next_after: string | null }> {
    const rows = await this.store.list({ ...filter, limit: filter.limit + 1 }, this.clock.now());
    return { invites: rows.slice(0, filter.limit), next_after: nextAfter(rows, filter.limit, (row) => ({ at: new Date(row.created_at), id: row.id })) };
  }

  async revoke(admin: AdminAuth, id: string, peerIp: string): Promise<InviteView> {
    return this.db.transaction(async (trx) => {
      const revoked = await this.store.revoke(trx, id, this.clock.now());
      if (revoked === null) throw gateErrors.create.invite_not_revocable();
      await this.audit.append(trx, { action: 'invite_revoked', actorKind: 'admin', actorPubkey: admin.pubkey, target: `invite:${id}`, peerIp });
      return revoked;
    });
  }
}
