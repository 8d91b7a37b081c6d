import type { Clock } from '../clock/index.js';
import { deleteInBatches, type Database, type Executor } from '../storage/index.js';

const TABLE = 'spent_proofs';

/**
 * One-time proofs that carry no server nonce (a signed timestamp, a NIP-98 login event) are
 * made single-use here: the first `spend` of a key inserts it, any later one finds it. Rows live
 * until the proof could no longer be accepted anyway, then the retention sweep drops them.
 */
export class SpentProofStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** True when this caller spent the proof; false when it was already spent (a replay). */
  async spend(proofKey: string, expiresAt: Date, executor?: Executor): Promise<boolean> {
    const row = await this.db.insertOrNull(TABLE, { proof_key: proofKey, expires_at: this.db.dialect.time(expiresAt) }, ['proof_key'], executor);
    return row !== null;
  }

  async sweepExpired(): Promise<number> {
    const now = this.db.dialect.time(this.clock.now());
    return deleteInBatches(this.db.knex, TABLE, (qb) => qb.where('expires_at', '<=', now));
  }
}
