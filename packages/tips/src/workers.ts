import type { ChainAccess, Clock, Database, Logger } from '@wallet/backend-core';
import { TIPS_TABLE } from './migrations.js';
import { CONFIRMATIONS } from './options.js';
import { TIP_STATUS, type StoredTip, type TipAsset, type TipStatus } from './tip.js';

/** Tips looked at per asset in one run: the rest wait for the next run, oldest first. */
export const WORKER_BATCH = 100;
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
    return this.run(TIP_STATUS.pendingConfirmation, logger, async (tip) => {
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
    });
  }

  /**
   * `claiming` → `claimed` once a sweep is confirmed at depth, whoever recorded a txid: BTC/LTC,
   * any transaction spending the tip's funding outputs; Grin, the commitment gone from the UTXO
   * set AND the recorded sweep kernel at depth 10; XMR/WOW, the recorded sweep transaction at
   * depth (without the spend key no server can see which transaction spent an output).
   */
  async reconcileSweeps(logger: Logger): Promise<RunReport> {
    return this.run(TIP_STATUS.claiming, logger, async (tip) => {
      if (tip.asset === 'btc' || tip.asset === 'ltc') {
        const reader = this.chains.utxo(tip.asset);
        if (reader === null || tip.tip_address === null || tip.funding_txid === null) return null;
        const spend = await reader.spent(tip.funding_txid, tip.tip_address);
        return spend !== null && spend.confirmations >= CONFIRMATIONS[tip.asset] ? { to: TIP_STATUS.claimed, settled: true } : null;
      }
      if (tip.asset === 'grin') {
        const reader = this.chains.grin();
        if (reader === null || tip.grin_commitment === null || tip.sweep_txid === null) return null;
        if ((await reader.unspentOutput(tip.grin_commitment)) !== null) return null;
        const kernel = await reader.kernel(tip.sweep_txid);
        return kernel !== null && kernel.confirmations >= CONFIRMATIONS.grin ? { to: TIP_STATUS.claimed, settled: true } : null;
      }
      // xmr/wow: a spend is only visible with the spend key; the recorded sweep at depth is the evidence.
      const reader = this.chains.cryptonote(tip.asset);
      if (reader === null || tip.sweep_txid === null) return null;
      const confirmations = await reader.confirmations(tip.sweep_txid);
      return (confirmations ?? 0) >= CONFIRMATIONS[tip.asset] ? { to: TIP_STATUS.claimed, settled: true } : null;
    });
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
    const tips = (await query.orderBy([{ column: 'updated_at' }, { column: 'id' }]).limit(WORKER_BATCH)) as StoredTip[];
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
