import { addMs } from '../clock/index.js';
import type { Database } from '../storage/index.js';

const TABLE = 'worker_leases';

/**
 * Named leases in the shared database, so that of several processes sharing one database only
 * one runs a given task at a time. A lease is taken by inserting its row, or by taking over a
 * row whose lease has run out; both are single conditional statements with one winner.
 */
export class LeaseRepository {
  constructor(private readonly db: Database) {}

  async acquire(name: string, holder: string, now: Date, leaseMs: number): Promise<boolean> {
    const { time } = this.db.dialect;
    const expiresAt = time(addMs(now, leaseMs));
    const created = await this.db.insertOrNull(TABLE, { name, holder, expires_at: expiresAt }, ['name']);
    if (created !== null) return true;
    const taken = await this.db.transitionOne(
      TABLE,
      (qb) => qb.where({ name }).where('expires_at', '<=', time(now)),
      { holder, expires_at: expiresAt },
    );
    return taken !== null;
  }

  /** Ends our lease early so the next run (here or elsewhere) need not wait for it to expire. */
  async release(name: string, holder: string, now: Date): Promise<void> {
    await this.db.knex(TABLE).where({ name, holder }).update({ expires_at: this.db.dialect.time(now) });
  }
}
