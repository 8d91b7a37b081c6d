import type { ChainAccess, Clock, Database, Logger } from '@wallet/backend-core';
import { TIPS_TABLE } from './migrations.js';
import { CONFIRMATIONS } from './options.js';
import { sweepState } from './sweep.js';
import { TIP_STATUS, type StoredTip, type TipAsset, type TipStatus } from './tip.js';

/** Tips looked at in one run: the rest wait for the next run, least recently read first. */
export const WORKER_BATCH = 100;
/** A clawed-back tip with a recorded claimer sweep is watched this long after the clawback (a sweep may sit in a mempool for days). */
export const CLAWBACK_WATCH_MS = 7 * 24 * 3_600_000;
/** A claimed Grin tip is watched for a reorg this long after it settled. */
export const REORG_WATCH_MS = 24 * 3_600_000;

/** What one worker run did, for its log line and the tests. */
export interface RunReport {
  moved: number;
  /** Tips whose chain could not be read (outage, malformed answer): left as they were. */
  failed: number;
}

type Verdict = { to: TipStatus; funded?: boolean; settled?: boolean; unsettle?: boolean } | null;

/**
 * The workers that move tips from what the chain says (spec › Public tip `status`): funding
 * confirmation, the sweep reconciler and the Grin reorg check. Each reads the chain first and
 * then makes ONE conditional update from the state it read, so a tip that moved meanwhile (a
 * clawback, another process) is left alone. A read that fails decides nothing: the tip stays as
 * it is and is read again at the next run.
 */
export class TipWorkers {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly chains: ChainAccess,
  ) {}

  /**
   * `pending_confirmation` → `pending` once the funding is confirmed at the asset's depth and
   * covers the amount; → `funding_mismatch` once it is confirmed at depth and does not. XMR/WOW:
   * the amount proven with the funding transaction's secret key. Grin: the commitment in the
   * UTXO set at depth 10; its amount is hidden and accepted with a warning.
   */
  async confirmFunding(logger: Logger): Promise<RunReport> {
    return this.run(
      TIP_STATUS.pendingConfirmation,
      logger,
      (tip) => this.fundingVerdict(tip, logger),
      // A tip marked as a duplicate of another's funding output is never funded from it.
      (qb) => qb.where({ funding_duplicate: this.db.dialect.bool(false) }),
    );
  }

  private async fundingVerdict(tip: StoredTip, logger: Logger): Promise<Verdict> {
    if (tip.asset === 'btc' || tip.asset === 'ltc') {
      const reader = this.chains.utxo(tip.asset);
      if (reader === null || tip.tip_address === null || tip.funding_txid === null) return null;
      const receipt = await reader.received(tip.funding_txid, tip.tip_address);
      if (receipt === null || receipt.confirmations < CONFIRMATIONS[tip.asset]) return null;
      return receipt.received >= BigInt(tip.amount) ? { to: TIP_STATUS.pending, funded: true } : { to: TIP_STATUS.fundingMismatch };
    }
    if (tip.asset === 'grin') {
      const reader = this.chains.grin();
      if (reader === null || tip.grin_commitment === null) return null;
      const output = await reader.unspentOutput(tip.grin_commitment);
      if (output === null || output.confirmations < CONFIRMATIONS.grin) return null;
      logger.warn('grin tip funded: the amount is hidden in the commitment and accepted as stated', { tip_id: tip.id });
      return { to: TIP_STATUS.pending, funded: true };
    }
    const reader = this.chains.cryptonote(tip.asset);
    if (reader === null || tip.tip_address === null || tip.funding_txid === null || tip.funding_tx_key === null) return null;
    const receipt = await reader.receivedWithTxKey(tip.funding_txid, tip.funding_tx_key, tip.tip_address);
    if (receipt === null || receipt.confirmations < CONFIRMATIONS[tip.asset]) return null;
    return receipt.received >= BigInt(tip.amount) ? { to: TIP_STATUS.pending, funded: true } : { to: TIP_STATUS.fundingMismatch };
  }

  /**
   * `claiming` → `claimed` once a sweep is confirmed at depth (`sweepState` with any evidence on
   * BTC/LTC). Then the clawed-back tips still watched: a tip clawed back in the window between
   * the clawback's chain check and a claimer's sweep confirming (or while the reconciler had not
   * run yet) goes to `claimed` once the sweep a claimer RECORDED confirms, so its final status
   * agrees with the chain; the sender's own sweep (another txid) leaves it clawed back. Watched
   * for CLAWBACK_WATCH_MS after the clawback, and only with a recorded sweep.
   */
  async reconcileSweeps(logger: Logger): Promise<RunReport> {
    const claiming = await this.run(TIP_STATUS.claiming, logger, async (tip) => ((await sweepState(this.chains, tip, 'any')) === 'confirmed' ? { to: TIP_STATUS.claimed, settled: true } : null));
    const since = this.db.dialect.time(new Date(this.clock.now().getTime() - CLAWBACK_WATCH_MS));
    const clawedBack = await this.run(
      TIP_STATUS.clawedBack,
      logger,
      async (tip) => ((await sweepState(this.chains, tip, 'recorded')) === 'confirmed' ? { to: TIP_STATUS.claimed, settled: true } : null),
      (qb) => qb.whereNotNull('sweep_txid').where('settled_at', '>=', since),
    );
    return { moved: claiming.moved + clawedBack.moved, failed: claiming.failed + clawedBack.failed };
  }

  /**
   * A claimed Grin tip whose commitment is back in the UTXO set (the sweep was reorganised away)
   * goes back to `claiming`: claimable again and clawable, until the reconciler settles it anew.
   * A probe that fails settles and reverts nothing.
   */
  async checkGrinReorgs(logger: Logger): Promise<RunReport> {
    const since = this.db.dialect.time(new Date(this.clock.now().getTime() - REORG_WATCH_MS));
    return this.run(
      TIP_STATUS.claimed,
      logger,
      async (tip) => {
        const reader = this.chains.grin();
        if (reader === null || tip.grin_commitment === null) return null;
        return (await reader.unspentOutput(tip.grin_commitment)) !== null ? { to: TIP_STATUS.claiming, unsettle: true } : null;
      },
      (qb) => qb.where({ asset: 'grin' }).where('settled_at', '>=', since),
    );
  }

  private async run(
    from: TipStatus,
    logger: Logger,
    judge: (tip: StoredTip) => Promise<Verdict>,
    narrow: (qb: ReturnType<Database['knex']>) => unknown = () => undefined,
  ): Promise<RunReport> {
    const report: RunReport = { moved: 0, failed: 0 };
    const query = this.db.knex(TIPS_TABLE).where({ status: from });
    narrow(query);
    // Least recently read first, and every tip read is stamped: a tip the chain never confirms
    // goes to the back, so each waiting tip is read within ceil(waiting / WORKER_BATCH) runs
    // whatever else waits (never-read rows, written before the stamp existed, come first).
    // Each caller's equality columns then this order are one index (migration
    // 005_social_tips_worker_indexes), walked in order up to the LIMIT: no sort.
    const tips = (await query.orderByRaw(this.db.dialect.ascNullsFirst('checked_at')).orderBy('id').limit(WORKER_BATCH)) as StoredTip[];
    if (tips.length > 0) {
      await this.db
        .knex(TIPS_TABLE)
        .whereIn(
          'id',
          tips.map((tip) => tip.id),
        )
        .update({ checked_at: this.db.dialect.time(this.clock.now()) });
    }
    for (const tip of tips) {
      let verdict: Verdict;
      try {
        verdict = await judge(tip);
      } catch (err) {
        report.failed += 1;
        logger.warn('tip chain read failed; the tip is read again at the next run', { tip_id: tip.id, asset: tip.asset, error: (err as Error).message });
        continue;
      }
      if (verdict === null) continue;
      const now = this.db.dialect.time(this.clock.now());
      const moved = await this.db.transitionOne<StoredTip>(TIPS_TABLE, (qb) => qb.where({ id: tip.id, status: from }), {
        status: verdict.to,
        updated_at: now,
        ...(verdict.funded ? { funded_at: now } : {}),
        ...(verdict.settled ? { settled_at: now } : {}),
        ...(verdict.unsettle ? { settled_at: null } : {}),
      });
      if (moved !== null) {
        report.moved += 1;
        logger.info('tip moved by the chain', { tip_id: tip.id, asset: tip.asset as TipAsset, from, to: verdict.to });
      }
    }
    return report;
  }
}
