import { randomUUID } from 'node:crypto';
import { type Clock, type Database, type Knex, type PluginContext } from '@wallet/backend-core';
import { OPEN_STATUSES, RELAY_STATUS, toRelayEntry, type RelayEntry, type StoredRelayEntry } from './entry.js';
import { grinRelayErrors } from './errors.js';
import { RELAY_TABLE } from './migrations.js';

export interface NewRelayEntry {
  recipient_user_id: string;
  slate_id: string;
  slatepack: string;
  amount_nanogrin: string;
}

/** At most this many entries in one `pending` answer, oldest first, so none starves. */
export const PENDING_PAGE = 100;

/**
 * The slatepack mailbox. Every step after `create` is ONE conditional update keyed on the
 * entry's primary key whose WHERE carries all of the step's preconditions (party, state,
 * expiry): of concurrent callers exactly one can match. Only when it matches nothing is the row
 * read again, to say why (409) — that read decides nothing.
 */
export class RelayService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly users: PluginContext['users'],
    private readonly expiryMs: number,
  ) {}

  async create(senderId: string, input: NewRelayEntry): Promise<RelayEntry> {
    const recipientId = input.recipient_user_id.toLowerCase();
    if (recipientId === senderId) throw grinRelayErrors.create.relay_recipient_self();
    const now = this.clock.now();
    return this.db.transaction(async (trx) => {
      if (!(await this.users.exists(recipientId, trx))) throw grinRelayErrors.create.relay_recipient_unknown();
      const row = await this.db.insertOrNull<StoredRelayEntry>(
        RELAY_TABLE,
        {
          id: randomUUID(),
          slate_id: input.slate_id.toLowerCase(),
          sender_user_id: senderId,
          recipient_user_id: recipientId,
          slatepack: input.slatepack,
          response_slatepack: null,
          amount_nanogrin: input.amount_nanogrin,
          status: RELAY_STATUS.pendingRecipient,
          tx_hash: null,
          created_at: this.db.dialect.time(now),
          updated_at: this.db.dialect.time(now),
          expires_at: this.db.dialect.time(new Date(now.getTime() + this.expiryMs)),
        },
        ['slate_id'],
        trx,
      );
      if (row === null) throw grinRelayErrors.create.relay_slate_exists();
      return toRelayEntry(row);
    });
  }

  /** Entries waiting for the caller's response (the caller is the recipient, not yet expired). */
  async pending(userId: string): Promise<RelayEntry[]> {
    const rows = (await this.db
      .knex(RELAY_TABLE)
      .where({ recipient_user_id: userId, status: RELAY_STATUS.pendingRecipient })
      .where('expires_at', '>', this.db.dialect.time(this.clock.now()))
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(PENDING_PAGE)) as StoredRelayEntry[];
    return rows.map(toRelayEntry);
  }

  async get(userId: string, slateId: string): Promise<RelayEntry> {
    return toRelayEntry(await this.partyEntry(userId, slateId));
  }

  /** pending recipient → pending_sender, by the recipient, before expiry. */
  async respond(userId: string, slateId: string, responseSlatepack: string): Promise<RelayEntry> {
    const entry = await this.partyEntry(userId, slateId);
    const now = this.clock.now();
    const row = await this.db.transitionOne<StoredRelayEntry>(
      RELAY_TABLE,
      (qb) => this.unexpired(qb.where({ id: entry.id, recipient_user_id: userId, status: RELAY_STATUS.pendingRecipient }), now),
      { status: RELAY_STATUS.pendingSender, response_slatepack: responseSlatepack, updated_at: this.db.dialect.time(now) },
    );
    if (row === null) throw await this.whyNot(entry.id, userId, 'recipient', RELAY_STATUS.pendingRecipient, grinRelayErrors.create.relay_not_awaiting_response());
    return toRelayEntry(row);
  }

  /** pending_sender → finalized with the transaction hash, by the sender, before expiry. */
  async finalize(userId: string, slateId: string, txHash: string): Promise<RelayEntry> {
    const entry = await this.partyEntry(userId, slateId);
    const now = this.clock.now();
    const row = await this.db.transitionOne<StoredRelayEntry>(
      RELAY_TABLE,
      (qb) => this.unexpired(qb.where({ id: entry.id, sender_user_id: userId, status: RELAY_STATUS.pendingSender }), now),
      { status: RELAY_STATUS.finalized, tx_hash: txHash.toLowerCase(), updated_at: this.db.dialect.time(now) },
    );
    if (row === null) throw await this.whyNot(entry.id, userId, 'sender', RELAY_STATUS.pendingSender, grinRelayErrors.create.relay_not_awaiting_finalization());
    return toRelayEntry(row);
  }

  /** Any state but finalized → cancelled, by either party. */
  async cancel(userId: string, slateId: string): Promise<RelayEntry> {
    const entry = await this.partyEntry(userId, slateId);
    const row = await this.db.transitionOne<StoredRelayEntry>(
      RELAY_TABLE,
      (qb) =>
        qb
          .where({ id: entry.id })
          .whereNot({ status: RELAY_STATUS.finalized })
          .where((party) => party.where({ sender_user_id: userId }).orWhere({ recipient_user_id: userId })),
      { status: RELAY_STATUS.cancelled, updated_at: this.db.dialect.time(this.clock.now()) },
    );
    if (row === null) {
      const current = (await this.db.knex(RELAY_TABLE).where({ id: entry.id }).first()) as StoredRelayEntry | undefined;
      const stillParty = current !== undefined && (current.sender_user_id === userId || current.recipient_user_id === userId);
      throw stillParty ? grinRelayErrors.create.relay_finalized() : grinRelayErrors.create.relay_not_found();
    }
    return toRelayEntry(row);
  }

  /** Moves open entries past their expiry to `expired`; returns how many. */
  async expireDue(now: Date): Promise<number> {
    return this.db
      .knex(RELAY_TABLE)
      .whereIn('status', OPEN_STATUSES)
      .where('expires_at', '<=', this.db.dialect.time(now))
      .update({ status: RELAY_STATUS.expired, updated_at: this.db.dialect.time(now) });
  }

  /**
   * Erasure of a user: entries they sent are deleted with their slatepacks; on entries they were
   * to receive, their link and their response slatepack are removed and an open entry is
   * cancelled (it can no longer complete).
   */
  async eraseUser(trx: Knex.Transaction, userId: string): Promise<void> {
    const now = this.db.dialect.time(this.clock.now());
    await trx(RELAY_TABLE).where({ sender_user_id: userId }).delete();
    await trx(RELAY_TABLE).where({ recipient_user_id: userId }).whereIn('status', OPEN_STATUSES).update({ status: RELAY_STATUS.cancelled });
    await trx(RELAY_TABLE).where({ recipient_user_id: userId }).update({ recipient_user_id: null, response_slatepack: null, updated_at: now });
  }

  /** The user's part in the relay for a data export: metadata, no slatepacks. */
  async exportFor(userId: string): Promise<Record<string, unknown>> {
    const rows = (await this.db
      .knex(RELAY_TABLE)
      .where({ sender_user_id: userId })
      .orWhere({ recipient_user_id: userId })
      .orderBy('created_at')) as StoredRelayEntry[];
    return {
      entries: rows.map((row) => {
        const { slatepack: _slatepack, response_slatepack: _response, ...entry } = toRelayEntry(row);
        return { ...entry, role: row.sender_user_id === userId ? 'sender' : 'recipient' };
      }),
    };
  }

  /** The entry with this slate_id when the user is one of its parties; 404 otherwise, whether it exists or not. */
  private async partyEntry(userId: string, slateId: string): Promise<StoredRelayEntry> {
    const row = (await this.db
      .knex(RELAY_TABLE)
      .where({ slate_id: slateId.toLowerCase() })
      .where((party) => party.where({ sender_user_id: userId }).orWhere({ recipient_user_id: userId }))
      .first()) as StoredRelayEntry | undefined;
    if (row === undefined) throw grinRelayErrors.create.relay_not_found();
    return row;
  }

  private unexpired(qb: Knex.QueryBuilder, now: Date): Knex.QueryBuilder {
    return qb.where('expires_at', '>', this.db.dialect.time(now));
  }

  /**
   * Why a step's conditional update matched nothing, read after the fact. An entry still in the
   * awaited state failed only the update's expiry condition: states only move forward and a party
   * is only ever removed, so the row matched id, party (checked just above) and state then too.
   */
  private async whyNot(id: string, userId: string, role: 'sender' | 'recipient', awaited: string, stateError: Error): Promise<Error> {
    const row = (await this.db.knex(RELAY_TABLE).where({ id }).first()) as StoredRelayEntry | undefined;
    if (row === undefined) return grinRelayErrors.create.relay_not_found();
    if ((role === 'sender' ? row.sender_user_id : row.recipient_user_id) !== userId) return grinRelayErrors.create.relay_wrong_party();
    if (row.status === RELAY_STATUS.expired || row.status === awaited) return grinRelayErrors.create.relay_expired();
    return stateError;
  }
}
