import type { Clock } from '../clock/index.js';
import { deleteInBatches, PreparedStatement, type Database, type Executor } from '../storage/index.js';

const TABLE = 'spent_proofs';

/** `insertOrNull` of a proof key, prepared: every login by signed timestamp or NIP-98 event spends one. */
const SPEND = new PreparedStatement<{ proofKey: string; expiresAt: Date | string }>('spent_proof_insert', (knex, param) =>
  knex(TABLE).insert({ proof_key: param('proofKey'), expires_at: param('expiresAt') }).onConflict(['proof_key']).ignore().returning(['proof_key']),
);

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
    const rows = await SPEND.rows(executor ?? this.db.knex, { proofKey, expiresAt: this.db.dialect.time(expiresAt) });
    return rows.length === 1;
  }

  async sweepExpired(): Promise<number> {
    const now = this.db.dialect.time(this.clock.now());
    return deleteInBatches(this.db.knex, TABLE, (qb) => qb.where('expires_at', '<=', now));
  }
}
