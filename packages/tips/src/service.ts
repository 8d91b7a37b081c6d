import { randomUUID } from 'node:crypto';
import { isReceivingAddress, readTime, uniqueViolationOf, type ChainAccess, type ChainNetwork, type Clock, type Database, type Knex, type Logger, type PluginContext } from '@wallet/backend-core';
import { tipErrors } from './errors.js';
import { TIP_CLAIMERS_TABLE, TIPS_TABLE } from './migrations.js';
import { AMOUNT_BOUNDS, STALE_TIP_MS, STUCK_CLAIMING_MS } from './options.js';
import { sweepState } from './sweep.js';
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
  /** The chains, for clawback's check that no sweep has confirmed. */
  chains: ChainAccess;
  /** At most this many of one sender's tips in `pending_confirmation` (TipsOptions.maxUnconfirmedPerSender). */
  maxUnconfirmedPerSender: number;
}

/** A clawback re-reads a tip that changed state under it at most this often (each state change is a step forward). */
const CLAWBACK_ATTEMPTS = 5;

/** A unique index of the tips table refused the write: the only ones are the funding-output indexes. */
function fundingTaken(err: unknown): Error {
  return uniqueViolationOf(err)?.table === TIPS_TABLE ? tipErrors.create.tip_funding_taken({ cause: err }) : (err as Error);
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
    const work = this.db.transaction(async (trx) => {
      if (!input.draft) await this.reserveUnconfirmed(trx, senderId);
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
          // Enters the funding worker's rotation at the back.
          checked_at: time,
        })
        .returning('*')) as StoredTip[];
      return this.created(row!);
    });
    return work.catch((err: unknown) => {
      throw fundingTaken(err);
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

  /**
   * draft → pending_confirmation with the funding txid, by the sender; the same txid again is
   * answered as is. A funding output already backing another tip is 409 `tip_funding_taken`
   * (a unique index decides, so of concurrent callers one wins); past the sender's cap on
   * unconfirmed tips, 409 `tip_unconfirmed_limit`.
   */
  async attachFunding(senderId: string, tipId: string, funding: Funding) {
    this.requireOn();
    const own = await this.ownTip(senderId, tipId);
    this.checkFunding(own.asset, funding);
    const txid = funding.funding_txid.toLowerCase();
    const time = this.db.dialect.time(this.clock.now());
    const work = this.db.transaction(async (trx) => {
      // Only a draft takes a slot; a funded tip is answered below (the transition re-checks the status).
      if (own.status !== TIP_STATUS.draft) return null;
      await this.reserveUnconfirmed(trx, senderId);
      return this.db.transitionOne<StoredTip>(
        TIPS_TABLE,
        (qb) => qb.where({ id: own.id, sender_user_id: senderId, status: TIP_STATUS.draft }).whereNull('funding_txid'),
        { status: TIP_STATUS.pendingConfirmation, funding_txid: txid, funding_tx_key: funding.funding_tx_key?.toLowerCase() ?? null, updated_at: time, checked_at: time },
        trx,
      );
    });
    const row = await work.catch((err: unknown) => {
      throw fundingTaken(err);
    });
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
    const time = this.db.dialect.time(this.clock.now());
    const row = await this.db.transaction(async (trx) => {
      const claimed = await this.db.transitionOne<StoredTip>(
        TIPS_TABLE,
        (qb) => this.mayClaim(qb.where({ id: tipId.toLowerCase() }).whereIn('status', CLAIMABLE_STATUSES), userId),
        { status: TIP_STATUS.claiming, updated_at: time },
        trx,
      );
      // Who claimed is what lets them record the sweep; a repeated claim keeps the first time.
      if (claimed !== null) await trx(TIP_CLAIMERS_TABLE).insert({ tip_id: claimed.id, user_id: userId, claimed_at: time }).onConflict(['tip_id', 'user_id']).ignore();
      return claimed;
    });
    if (row !== null) return toClaimedTip(row);
    const current = await this.visibleTo(userId, tipId);
    throw this.unclaimableBecause(current);
  }

  /**
   * Any clawable state → clawed_back, by the sender, while no sweep has confirmed (spec rule 4).
   * A claimed tip's sweep is checked on its chain first, and the transition is conditional on
   * the state that was checked (status and recorded sweep), so a claim or a recorded sweep that
   * lands meanwhile sends the clawback round again. A sweep found confirmed settles the tip
   * (`claimed`) and the clawback is refused; a chain that cannot be asked refuses it with a 503
   * naming the upstream (never a transition on a guess). What slips through — a sweep that
   * confirms after the check — the reconciler settles from the recorded txid.
   */
  async clawback(senderId: string, tipId: string) {
    this.requireOn();
    const id = tipId.toLowerCase();
    for (let attempt = 0; attempt < CLAWBACK_ATTEMPTS; attempt++) {
      const current = (await this.db.knex(TIPS_TABLE).where({ id, sender_user_id: senderId }).first()) as StoredTip | undefined;
      if (current === undefined) throw tipErrors.create.tip_unknown();
      if (current.status === TIP_STATUS.draft) throw tipErrors.create.tip_not_clawable();
      if (!CLAWABLE_STATUSES.includes(current.status)) throw tipErrors.create.tip_settled();
      if (current.status === TIP_STATUS.claiming) {
        const state = await sweepState(this.options.chains, current, 'any');
        if (state === 'chain_off') throw tipErrors.create.tip_chain_off();
        if (state === 'confirmed') {
          const now = this.db.dialect.time(this.clock.now());
          await this.db.transitionOne(TIPS_TABLE, (qb) => qb.where({ id, status: TIP_STATUS.claiming }), { status: TIP_STATUS.claimed, updated_at: now, settled_at: now });
          throw tipErrors.create.tip_settled();
        }
      }
      const now = this.db.dialect.time(this.clock.now());
      const row = await this.db.transitionOne<StoredTip>(
        TIPS_TABLE,
        (qb) => {
          qb.where({ id, sender_user_id: senderId, status: current.status });
          return current.sweep_txid === null ? qb.whereNull('sweep_txid') : qb.where({ sweep_txid: current.sweep_txid });
        },
        { status: TIP_STATUS.clawedBack, updated_at: now, settled_at: now },
      );
      if (row !== null) {
        return { tip_id: row.id, asset: row.asset, amount: row.amount, status: row.status, tip_address: row.tip_address, grin_commitment: row.grin_commitment, funding_txid: row.funding_txid };
      }
    }
    throw new Error(`tip ${id} changed state under ${CLAWBACK_ATTEMPTS} clawback attempts`);
  }

  /**
   * Records the first sweep txid of a claimed tip and never another (first recorder wins; the
   * database refuses an overwrite too). Only a caller who claimed the tip may record (spec: the
   * first recorded CLAIMER sweep txid); anyone else is 400 `tip_not_claimer` (or
   * `tip_not_claiming` while nobody has claimed). Idempotent for claimers: each is told the
   * recorded txid and whether it is theirs. The tip stays `claiming`; the reconciler settles it.
   */
  async confirmSweep(userId: string, tipId: string, sweepTxid: string) {
    this.requireOn();
    const txid = sweepTxid.toLowerCase();
    // The asset never changes, so reading it first to check the txid's form decides nothing.
    const tip = await this.visibleTo(userId, tipId);
    if (tip === null) throw tipErrors.create.tip_unknown();
    if (txid.length !== TXID_LENGTH[tip.asset]) throw tipErrors.create.tip_invalid({ message: `sweep_txid must be ${TXID_LENGTH[tip.asset]} hex characters for ${tip.asset}` });
    // A claimer row is never removed while its user exists, so this read decides nothing the update below does not check again.
    const claimer = this.db.knex(TIP_CLAIMERS_TABLE).select('tip_id').where({ tip_id: tip.id, user_id: userId });
    if ((await claimer.clone().first()) === undefined) {
      if (tip.status === TIP_STATUS.claiming) throw tipErrors.create.tip_not_claimer();
      throw tip.status === TIP_STATUS.pending ? tipErrors.create.tip_not_claiming() : this.unclaimableBecause(tip);
    }
    const row = await this.db.transitionOne<StoredTip>(
      TIPS_TABLE,
      (qb) => this.mayClaim(qb.where({ id: tip.id, status: TIP_STATUS.claiming }).whereNull('sweep_txid').whereExists(claimer), userId),
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
    // Their claims go, and so do every claim on the tips deleted below (the foreign keys cascade too; this does not rely on them).
    await trx(TIP_CLAIMERS_TABLE).where({ user_id: userId }).delete();
    await trx(TIP_CLAIMERS_TABLE).whereIn('tip_id', trx(TIPS_TABLE).select('id').where({ sender_user_id: userId }).whereIn('status', OVER_STATUSES)).delete();
    await trx(TIPS_TABLE).where({ sender_user_id: userId }).whereIn('status', OVER_STATUSES).delete();
    await trx(TIPS_TABLE).where({ sender_user_id: userId }).update({ sender_user_id: null, updated_at: now });
    await trx(TIPS_TABLE).where({ recipient_user_id: userId }).update({ recipient_erased: this.db.dialect.bool(true), recipient_user_id: null, updated_at: now });
  }

  /** The user's tips for a data export: sent, received and claimed, without ciphertexts, secret hashes or funding keys. */
  async exportFor(userId: string): Promise<Record<string, unknown>> {
    const sent = (await this.db.knex(TIPS_TABLE).where({ sender_user_id: userId }).orderBy('created_at')) as StoredTip[];
    const received = (await this.db.knex(TIPS_TABLE).where({ recipient_user_id: userId }).orderBy('created_at')) as StoredTip[];
    const claims = (await this.db.knex(TIP_CLAIMERS_TABLE).select('tip_id', 'claimed_at').where({ user_id: userId }).orderBy(['claimed_at', 'tip_id'])) as Array<{ tip_id: string; claimed_at: unknown }>;
    return {
      sent: sent.map((row) => toSentTip(row, (id) => this.shareUrl(id))),
      received: received.map(toInboxTip),
      claimed: claims.map((claim) => ({ tip_id: claim.tip_id, claimed_at: readTime(claim.claimed_at).toISOString() })),
    };
  }

  /**
   * Under the sender's row lock, refuses a new unconfirmed tip past the cap: concurrent creates
   * by one sender queue on the lock, so the count each sees includes the others' (SQLite has one
   * writer, which serialises them already).
   */
  private async reserveUnconfirmed(trx: Knex.Transaction, senderId: string): Promise<void> {
    await this.options.users.lock(trx, senderId);
    const counted = (await trx(TIPS_TABLE).count({ count: '*' }).where({ sender_user_id: senderId, status: TIP_STATUS.pendingConfirmation }).first()) as { count: number | string };
    if (Number(counted.count) >= this.options.maxUnconfirmedPerSender) throw tipErrors.create.tip_unconfirmed_limit();
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
