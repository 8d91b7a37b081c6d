import { nextAfter, readBool, readTime, type Clock, type Database, type PageCursor } from '@wallet/backend-core';
import { tipErrors } from './errors.js';
import { TIP_CLAIMERS_TABLE, TIPS_TABLE } from './migrations.js';
import { STUCK_CLAIMING_MS } from './options.js';
import { TIP_STATUS, TIP_STATUSES, type StoredTip, type TipStatus } from './tip.js';

/** A count for every tip status, zero included, in TIP_STATUSES order. */
export type StatusCounts = Record<TipStatus, number>;

const iso = (value: unknown) => (value === null || value === undefined ? null : readTime(value).toISOString());

type ClaimRow = { user_id: string; claimed_at: unknown };
type HistoryEvent = 'created' | 'funded' | 'claimed' | 'settled';

/**
 * The operator's read-only view of the tips (docs/admin.md › Tips): counts by status, the tips
 * stuck in `claiming`, one tip's record and history, and a user's section of the account view.
 * It changes nothing, and answers nothing that could claim or spend a tip: no ciphertext, no
 * secret hash, no funding transaction key.
 */
export class TipsAdmin {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Tips by status (every status, 0 included) and in all. */
  async stats(): Promise<{ total: number; by_status: StatusCounts }> {
    const by_status = await this.countByStatus(this.db.knex(TIPS_TABLE));
    return { total: Object.values(by_status).reduce((sum, n) => sum + n, 0), by_status };
  }

  /**
   * Tips in `claiming` whose `updated_at` is more than STUCK_CLAIMING_MS (15 minutes, the
   * stuck-claiming task's threshold) ago, oldest first, `limit` a page. `since` is `updated_at`:
   * when the tip entered `claiming`, or the last claim call or recorded sweep after that (the
   * table keeps no separate entry time). The (status, updated_at) index answers it. Paged as
   * every admin list is (core's http/paging.ts): the cursor is the last tip's `since` and id.
   */
  async stuck(limit: number, after: PageCursor | undefined) {
    const now = this.clock.now();
    const { time } = this.db.dialect;
    const query = this.db
      .knex(TIPS_TABLE)
      .select('id', 'status', 'asset', 'amount', 'updated_at', 'sweep_txid')
      .where({ status: TIP_STATUS.claiming })
      .where('updated_at', '<', time(new Date(now.getTime() - STUCK_CLAIMING_MS)));
    if (after !== undefined) {
      const at = time(after.at);
      query.where((later) => later.where('updated_at', '>', at).orWhere((same) => same.where('updated_at', '=', at).where('id', '>', after.id)));
    }
    const rows = (await query
      .orderBy([{ column: 'updated_at' }, { column: 'id' }])
      .limit(limit + 1)) as Array<Pick<StoredTip, 'id' | 'status' | 'asset' | 'amount' | 'updated_at' | 'sweep_txid'>>;
    const tips = rows.slice(0, limit).map((row) => {
      const since = readTime(row.updated_at);
      return {
        tip_id: row.id,
        status: row.status,
        asset: row.asset,
        amount: row.amount,
        since: since.toISOString(),
        age_sec: Math.floor((now.getTime() - since.getTime()) / 1000),
        sweep_recorded: row.sweep_txid !== null,
      };
    });
    return {
      threshold_sec: STUCK_CLAIMING_MS / 1000,
      tips,
      next_after: nextAfter(rows, limit, (row) => ({ at: readTime(row.updated_at), id: row.id })),
    };
  }

  /**
   * One tip as an operator sees it, and its history: the transitions the tables record a time
   * for (created, funding confirmed, each claimer's first claim, settled), in the order they
   * can only happen in (claims are oldest first). Nothing records when
   * a tip was cancelled, entered `funding_mismatch` or had its funding attached to a draft;
   * `updated_at` is the row's last write, whatever it was.
   */
  async tip(tipId: string) {
    const id = tipId.toLowerCase();
    const row = (await this.db.knex(TIPS_TABLE).where({ id }).first()) as (StoredTip & { checked_at: unknown; funding_duplicate: unknown }) | undefined;
    if (row === undefined) throw tipErrors.create.tip_not_found({ message: 'No tip with this id.' });
    const claims = (await this.db.knex(TIP_CLAIMERS_TABLE).select('user_id', 'claimed_at').where({ tip_id: id }).orderBy(['claimed_at', 'user_id'])) as ClaimRow[];
    const history: Array<{ event: HistoryEvent; at: string; user_id?: string; status?: TipStatus }> = [{ event: 'created', at: iso(row.created_at)! }];
    if (row.funded_at !== null) history.push({ event: 'funded', at: iso(row.funded_at)! });
    for (const claim of claims) history.push({ event: 'claimed', at: iso(claim.claimed_at)!, user_id: claim.user_id });
    // settled_at is set by the moves to `claimed` and `clawed_back` (cleared by a Grin reorg), so it names the current status.
    if (row.settled_at !== null) history.push({ event: 'settled', at: iso(row.settled_at)!, status: row.status });
    return {
      tip_id: row.id,
      status: row.status,
      asset: row.asset,
      amount: row.amount,
      is_public: readBool(row.is_public),
      sender_user_id: row.sender_user_id,
      recipient_user_id: row.recipient_user_id,
      recipient_erased: readBool(row.recipient_erased),
      tip_address: row.tip_address,
      grin_commitment: row.grin_commitment,
      funding_txid: row.funding_txid,
      funding_duplicate: readBool(row.funding_duplicate),
      sweep_txid: row.sweep_txid,
      created_at: iso(row.created_at)!,
      updated_at: iso(row.updated_at)!,
      funded_at: iso(row.funded_at),
      settled_at: iso(row.settled_at),
      checked_at: iso(row.checked_at),
      claims: claims.map((claim) => ({ user_id: claim.user_id, claimed_at: iso(claim.claimed_at)! })),
      history,
    };
  }

  /**
   * A user's section of the operator's account view: their sent tips and the targeted tips
   * addressed to them, by status (every status, 0 included), and how many tips they made a
   * claim call on (public or targeted). Counts only.
   */
  async userSummary(userId: string) {
    const sent = await this.countByStatus(this.db.knex(TIPS_TABLE).where({ sender_user_id: userId }));
    const received = await this.countByStatus(this.db.knex(TIPS_TABLE).where({ recipient_user_id: userId }));
    const claimed = (await this.db.knex(TIP_CLAIMERS_TABLE).count({ n: '*' }).where({ user_id: userId }).first()) as { n: number | string };
    return { sent, received, claims: Number(claimed.n) };
  }

  private async countByStatus(query: ReturnType<Database['knex']>): Promise<StatusCounts> {
    const rows = (await query.select('status').count({ n: '*' }).groupBy('status')) as Array<{ status: string; n: number | string }>;
    const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
    return Object.fromEntries(TIP_STATUSES.map((status) => [status, counts.get(status) ?? 0])) as StatusCounts;
  }
}
