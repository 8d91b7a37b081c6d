import { randomUUID } from 'node:crypto';
import { isReceivingAddress, type ChainNetwork, type Clock, type Database, type Knex, type Logger, type PluginContext } from '@wallet/backend-core';
import { tipErrors } from './errors.js';
import { TIPS_TABLE } from './migrations.js';
import { AMOUNT_BOUNDS, STALE_TIP_MS, STUCK_CLAIMING_MS } from './options.js';
import {
  CLAIMABLE_STATUSES,
  CLAWABLE_STATUSES,
  INBOX_STATUSES,
  TIP_STATUS,
  toClaimedTip,
  toInboxTip,
  toPublicTip,
  toSentTip,
  type StoredTip,
  type TipAsset,
} from './tip.js';

export interface NewTip {
  asset: TipAsset;
  amount: string;
  tip_address?: string;
  draft: boolean;
  recipient?: string;
  ciphertext?: string;
  secret_hash?: string;
  grin_commitment?: string;
  funding_txid?: string;
  funding_tx_key?: string;
}

export interface Funding {
  funding_txid: string;
  funding_tx_key?: string;
}

export interface TipsServiceOptions {
  db: Database;
  clock: Clock;
  users: PluginContext['users'];
  network: ChainNetwork;
  /** Whether tips are on; every operation refuses with `tips_off` otherwise. */
  enabled: boolean;
  targeted: boolean;
  /** The assets tips may be made in now (their chain access is on). */
  assets: () => readonly TipAsset[];
  shareBase: string;
}

/** A sent tip nobody can act on any more (erasure deletes these). */
const OVER_STATUSES = [TIP_STATUS.draft, TIP_STATUS.cancelled, TIP_STATUS.claimed, TIP_STATUS.clawedBack];

/** At most this many tips in one list answer, newest first. */
export const LIST_LIMIT = 200;

/** Grin identifies a transaction by its kernel excess (66 hex); the others by a 64-hex txid. */
const TXID_LENGTH: Record<TipAsset, number> = { btc: 64, ltc: 64, xmr: 64, wow: 64, grin: 66 };
const USES_TX_KEY: ReadonlySet<TipAsset> = new Set(['xmr', 'wow']);

/**
 * Public and targeted tips (spec › Public tips). Every state change is ONE conditional update
 * (`transitionOne`) whose WHERE carries all of the step's preconditions, so of concurrent
 * callers exactly one can match; only when it matched nothing is the row read again, to say
 * why — that read decides nothing.
 */
export class TipsService {
  private readonly db: Database;
  private readonly clock: Clock;

  constructor(private readonly options: TipsServiceOptions) {
    this.db = options.db;
    this.clock = options.clock;
  }

  shareUrl(tipId: string): string {
    return `${this.options.shareBase}${tipId}`;
  }

  async create(senderId: string, input: NewTip) {
    this.requireOn();
    if (!this.options.assets().includes(input.asset)) throw tipErrors.create.tip_asset_disabled();
    const targeted = input.recipient !== undefined;
    if (targeted && !this.options.targeted) throw tipErrors.create.targeted_tips_off();
    this.checkShape(input, targeted);
    const now = this.clock.now();
    const time = this.db.dialect.time(now);
    return this.db.transaction(async (trx) => {
      let recipientId: string | null = null;
      if (targeted) {
        recipientId = await this.options.users.idByUsername(input.recipient!, trx);
        if (recipientId === null) throw tipErrors.create.tip_recipient_unknown();
        if (recipientId === senderId) throw tipErrors.create.tip_recipient_self();
      }
      const [row] = (await trx(TIPS_TABLE)
        .insert({
          id: randomUUID(),
          sender_user_id: senderId,
          recipient_user_id: recipientId,
          // Derived here from the recipient, never taken from the request.
          is_public: this.db.dialect.bool(recipientId === null),
          asset: input.asset,
          amount: input.amount,
          status: input.draft ? TIP_STATUS.draft : TIP_STATUS.pendingConfirmation,
          tip_address: input.tip_address ?? null,
          ciphertext: input.ciphertext ?? null,
          secret_hash: input.secret_hash?.toLowerCase() ?? null,
          grin_commitment: input.grin_commitment?.toLowerCase() ?? null,
          funding_txid: input.funding_txid?.toLowerCase() ?? null,
          funding_tx_key: input.funding_tx_key?.toLowerCase() ?? null,
          created_at: time,
          updated_at: time,
        })
        .returning('*')) as StoredTip[];
      return this.created(row!);
    });
  }

  async sent(senderId: string) {
    this.requireOn();
    const rows = (await this.db
      .knex(TIPS_TABLE)
      .where({ sender_user_id: senderId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(LIST_LIMIT)) as StoredTip[];
    return { tips: rows.map((row) => toSentTip(row, (id) => this.shareUrl(id))) };
  }

  /** draft → pending_confirmation with the funding txid, by the sender; the same txid again is answered as is. */
  async attachFunding(senderId: string, tipId: string, funding: Funding) {
    this.requireOn();
    const own = await this.ownTip(senderId, tipId);
    this.checkFunding(own.asset, funding);
    const txid = funding.funding_txid.toLowerCase();
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => qb.where({ id: own.id, sender_user_id: senderId, status: TIP_STATUS.draft }).whereNull('funding_txid'),
      {
        status: TIP_STATUS.pendingConfirmation,
        funding_txid: txid,
        funding_tx_key: funding.funding_tx_key?.toLowerCase() ?? null,
        updated_at: this.db.dialect.time(this.clock.now()),
      },
    );
    if (row !== null) return this.created(row);
    const current = await this.ownTip(senderId, tipId);
    if (current.funding_txid === txid) return this.created(current);
    throw current.funding_txid !== null ? tipErrors.create.tip_funding_conflict() : tipErrors.create.tip_not_draft();
  }

  /** draft → cancelled, by the sender; anything else is 404 (spec rule 2: a funded tip is recovered by clawback). */
  async cancel(senderId: string, tipId: string) {
    this.requireOn();
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => qb.where({ id: tipId.toLowerCase(), sender_user_id: senderId, status: TIP_STATUS.draft }),
      { status: TIP_STATUS.cancelled, updated_at: this.db.dialect.time(this.clock.now()) },
    );
    if (row === null) throw tipErrors.create.tip_not_found();
    return { tip_id: row.id, status: row.status };
  }

  /**
   * pending | claiming → claiming: hands over the encrypted claim key and the tip address. Any
   * holder of a public tip's id may claim, again, until the sweep confirms (the claim lock is a
   * signal, not a lock); a targeted tip only its recipient.
   */
  async claim(userId: string, tipId: string) {
    this.requireOn();
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => this.mayClaim(qb.where({ id: tipId.toLowerCase() }).whereIn('status', CLAIMABLE_STATUSES), userId),
      { status: TIP_STATUS.claiming, updated_at: this.db.dialect.time(this.clock.now()) },
    );
    if (row !== null) return toClaimedTip(row);
    const current = await this.visibleTo(userId, tipId);
    throw this.unclaimableBecause(current);
  }

  /** Any clawable state → clawed_back, by the sender, while no sweep has confirmed. */
  async clawback(senderId: string, tipId: string) {
    this.requireOn();
    const now = this.db.dialect.time(this.clock.now());
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => qb.where({ id: tipId.toLowerCase(), sender_user_id: senderId }).whereIn('status', CLAWABLE_STATUSES),
      { status: TIP_STATUS.clawedBack, updated_at: now, settled_at: now },
    );
    if (row !== null) {
      return { tip_id: row.id, asset: row.asset, amount: row.amount, status: row.status, tip_address: row.tip_address, grin_commitment: row.grin_commitment, funding_txid: row.funding_txid };
    }
    const current = (await this.db.knex(TIPS_TABLE).where({ id: tipId.toLowerCase(), sender_user_id: senderId }).first()) as StoredTip | undefined;
    if (current === undefined) throw tipErrors.create.tip_unknown();
    if (current.status === TIP_STATUS.draft) throw tipErrors.create.tip_not_clawable();
    throw tipErrors.create.tip_settled();
  }

  /**
   * Records the first sweep txid of a claimed tip and never another (first recorder wins; the
   * database refuses an overwrite too). Idempotent: every caller is told the recorded txid and
   * whether it is theirs. The tip stays `claiming`; the reconciler settles it from the chain.
   */
  async confirmSweep(userId: string, tipId: string, sweepTxid: string) {
    this.requireOn();
    const txid = sweepTxid.toLowerCase();
    // The asset never changes, so reading it first to check the txid's form decides nothing.
    const tip = await this.visibleTo(userId, tipId);
    if (tip === null) throw tipErrors.create.tip_unknown();
    if (txid.length !== TXID_LENGTH[tip.asset]) throw tipErrors.create.tip_invalid({ message: `sweep_txid must be ${TXID_LENGTH[tip.asset]} hex characters for ${tip.asset}` });
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => this.mayClaim(qb.where({ id: tip.id, status: TIP_STATUS.claiming }).whereNull('sweep_txid'), userId),
      { sweep_txid: txid, updated_at: this.db.dialect.time(this.clock.now()) },
    );
    const current = row ?? (await this.visibleTo(userId, tipId));
    if (current === null) throw tipErrors.create.tip_unknown();
    if (current.sweep_txid === null) throw current.status === TIP_STATUS.pending ? tipErrors.create.tip_not_claiming() : this.unclaimableBecause(current);
    return { tip_id: current.id, status: current.status, sweep_txid: current.sweep_txid, recorded: current.sweep_txid === txid };
  }

  /** The public view of a public tip; a targeted or unknown tip is 404 alike. */
  async publicInfo(tipId: string) {
    this.requireOn();
    const row = (await this.db.knex(TIPS_TABLE).where({ id: tipId.toLowerCase(), is_public: this.db.dialect.bool(true) }).first()) as StoredTip | undefined;
    if (row === undefined) throw tipErrors.create.tip_public_not_found();
    return toPublicTip(row);
  }

  /** Targeted tips addressed to the caller and not yet settled, newest first. */
  async inbox(userId: string) {
    return this.addressedTo(userId, INBOX_STATUSES);
  }

  /** Targeted tips the caller can claim now, newest first. */
  async claimable(userId: string) {
    return this.addressedTo(userId, CLAIMABLE_STATUSES);
  }

  /** Drafts older than 7 days → cancelled (hourly). */
  async cancelStaleDrafts(now: Date): Promise<number> {
    return this.cancelOlderThan(TIP_STATUS.draft, now);
  }

  /** pending_confirmation for more than 7 days (since the funding was attached) → cancelled (every 5 minutes); the sender can still claw back. */
  async cancelStaleUnconfirmed(now: Date): Promise<number> {
    return this.cancelOlderThan(TIP_STATUS.pendingConfirmation, now);
  }

  /** Logs (and only logs) tips in `claiming` for more than 15 minutes. */
  async logStuckClaiming(now: Date, logger: Logger): Promise<number> {
    const rows = (await this.db
      .knex(TIPS_TABLE)
      .select('id', 'asset', 'updated_at', 'sweep_txid')
      .where({ status: TIP_STATUS.claiming })
      .where('updated_at', '<', this.db.dialect.time(new Date(now.getTime() - STUCK_CLAIMING_MS)))
      .orderBy('updated_at')
      .limit(LIST_LIMIT)) as Array<Pick<StoredTip, 'id' | 'asset' | 'updated_at' | 'sweep_txid'>>;
    for (const row of rows) {
      logger.warn('tip stuck in claiming', { tip_id: row.id, asset: row.asset, sweep_recorded: row.sweep_txid !== null });
    }
    return rows.length;
  }

  /**
   * Erasure of a user. Tips they SENT that are over (draft, cancelled, claimed, clawed back) are
   * deleted; open ones stay claimable by their holder or recipient and lose only the sender link
   * (the sender's wallet keeps the tip keys, so it can still sweep its own funds on chain). Tips
   * addressed TO them are marked `recipient_erased` and unlinked: nobody else may claim a
   * targeted tip, and its sender can claw it back.
   */
  async eraseUser(trx: Knex.Transaction, userId: string): Promise<void> {
    const now = this.db.dialect.time(this.clock.now());
    await trx(TIPS_TABLE).where({ sender_user_id: userId }).whereIn('status', OVER_STATUSES).delete();
    await trx(TIPS_TABLE).where({ sender_user_id: userId }).update({ sender_user_id: null, updated_at: now });
    await trx(TIPS_TABLE).where({ recipient_user_id: userId }).update({ recipient_erased: this.db.dialect.bool(true), recipient_user_id: null, updated_at: now });
  }

  /** The user's tips for a data export: sent and received, without ciphertexts, secret hashes or funding keys. */
  async exportFor(userId: string): Promise<Record<string, unknown>> {
    const sent = (await this.db.knex(TIPS_TABLE).where({ sender_user_id: userId }).orderBy('created_at')) as StoredTip[];
    const received = (await this.db.knex(TIPS_TABLE).where({ recipient_user_id: userId }).orderBy('created_at')) as StoredTip[];
    return {
      sent: sent.map((row) => toSentTip(row, (id) => this.shareUrl(id))),
      received: received.map(toInboxTip),
    };
  }

  private requireOn(): void {
    if (!this.options.enabled) throw tipErrors.create.tips_off();
  }

  private created(row: StoredTip) {
    return { tip_id: row.id, status: row.status, share_url: this.shareUrl(row.id) };
  }

  /** The rules across fields that the schema cannot state, each with its own message. */
  private checkShape(input: NewTip, targeted: boolean): void {
    const invalid = (message: string) => tipErrors.create.tip_invalid({ message });
    const amount = BigInt(input.amount);
    const bounds = AMOUNT_BOUNDS[input.asset];
    if (amount < bounds.min || amount > bounds.max) throw invalid(`amount must be between ${bounds.min} and ${bounds.max} for ${input.asset}`);
    if (input.asset === 'grin') {
      if (input.grin_commitment === undefined) throw invalid('a grin tip needs grin_commitment (66 hex)');
      if (input.tip_address !== undefined) throw invalid('a grin tip has no tip_address (its output is named by grin_commitment)');
    } else {
      if (input.grin_commitment !== undefined) throw invalid('only a grin tip carries grin_commitment');
      if (input.tip_address === undefined) throw invalid('tip_address is required');
      if (!isReceivingAddress(input.asset, input.tip_address, this.options.network)) throw invalid(`tip_address is not a ${input.asset} address of this network`);
    }
    if (targeted) {
      if (input.ciphertext === undefined) throw invalid('a targeted tip needs ciphertext (the claim key encrypted to the recipient)');
      if (input.draft) throw invalid('a targeted tip cannot be a draft: create it with its funding');
    } else if (input.secret_hash === undefined) {
      throw invalid('a public tip needs secret_hash (SHA-256 of the share URL secret)');
    }
    if (input.draft) {
      if (input.funding_txid !== undefined || input.funding_tx_key !== undefined) throw invalid('a draft is funded later with attach-funding');
    } else {
      if (input.funding_txid === undefined) throw invalid('funding_txid is required unless the tip is a draft');
      this.checkFunding(input.asset, { funding_txid: input.funding_txid, funding_tx_key: input.funding_tx_key });
    }
  }

  private checkFunding(asset: TipAsset, funding: Funding): void {
    const invalid = (message: string) => tipErrors.create.tip_invalid({ message });
    if (funding.funding_txid.length !== TXID_LENGTH[asset]) throw invalid(`funding_txid must be ${TXID_LENGTH[asset]} hex characters for ${asset}`);
    if (USES_TX_KEY.has(asset) && funding.funding_tx_key === undefined) throw invalid(`a ${asset} tip's funding needs funding_tx_key (the transaction's secret key)`);
    if (!USES_TX_KEY.has(asset) && funding.funding_tx_key !== undefined) throw invalid(`funding_tx_key is only for xmr and wow tips`);
  }

  /** The sender's own tip, or 404 whether it exists or not. */
  private async ownTip(senderId: string, tipId: string): Promise<StoredTip> {
    const row = (await this.db.knex(TIPS_TABLE).where({ id: tipId.toLowerCase(), sender_user_id: senderId }).first()) as StoredTip | undefined;
    if (row === undefined) throw tipErrors.create.tip_not_found();
    return row;
  }

  /** Who may claim: anyone for a public tip (its id is the credential), the recipient for a targeted one. */
  private mayClaim(qb: Knex.QueryBuilder, userId: string): Knex.QueryBuilder {
    return qb.where((who) => who.where({ is_public: this.db.dialect.bool(true) }).orWhere({ recipient_user_id: userId }));
  }

  /** The tip when this caller may claim it (whatever its state), else null. */
  private async visibleTo(userId: string, tipId: string): Promise<StoredTip | null> {
    const row = (await this.mayClaim(this.db.knex(TIPS_TABLE).where({ id: tipId.toLowerCase() }), userId).first()) as StoredTip | undefined;
    return row ?? null;
  }

  private unclaimableBecause(row: StoredTip | null): Error {
    if (row === null) return tipErrors.create.tip_unknown();
    switch (row.status) {
      case TIP_STATUS.fundingMismatch:
        return tipErrors.create.tip_underfunded();
      case TIP_STATUS.clawedBack:
        return tipErrors.create.tip_clawed_back();
      case TIP_STATUS.claimed:
        return tipErrors.create.tip_swept();
      case TIP_STATUS.cancelled:
        return tipErrors.create.tip_cancelled();
      default:
        // draft, pending_confirmation: the funding has not confirmed yet.
        return tipErrors.create.tip_not_funded();
    }
  }

  private async addressedTo(userId: string, statuses: readonly string[]) {
    this.requireOn();
    const rows = (await this.db
      .knex(TIPS_TABLE)
      .where({ recipient_user_id: userId })
      .whereIn('status', statuses)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(LIST_LIMIT)) as StoredTip[];
    return { tips: rows.map(toInboxTip) };
  }

  /**
   * A tip in `status` for more than 7 days → cancelled. `updated_at` is when it entered the
   * state: nothing else writes a draft or an unconfirmed tip, so a draft funded on its last day
   * gets its own 7 days to confirm.
   */
  private async cancelOlderThan(status: string, now: Date): Promise<number> {
    const cutoff = this.db.dialect.time(new Date(now.getTime() - STALE_TIP_MS));
    return this.db
      .knex(TIPS_TABLE)
      .where({ status })
      .where('updated_at', '<', cutoff)
      .update({ status: TIP_STATUS.cancelled, updated_at: this.db.dialect.time(now) });
  }
}
