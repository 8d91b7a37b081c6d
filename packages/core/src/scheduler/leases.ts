import { addMs } from '../clock/index.js';
import { readTime, type Database } from '../storage/index.js';

const TABLE = 'worker_leases';

/**
 * Named leases in the shared database, so that of several processes sharing one database only
 * one runs a given task at a time, and a scheduled task runs once per interval between them. A
 * lease is taken by inserting its row, or by taking over a row whose lease has run out (and,
 * for a scheduled run, whose next run is due); both are single conditional statements with one
 * winner.
 */
export class LeaseRepository {
  constructor(private readonly db: Database) {}

  /**
   * Takes the lease `name` until `now + leaseMs`. With `due` (a scheduled run), only once the
   * task's last run, by any holder, has set its next due time at or before `now`; without it (an
   * explicit run) whenever no one holds the lease.
   */
  async acquire(name: string, holder: string, now: Date, leaseMs: number, { due = false }: { due?: boolean } = {}): Promise<boolean> {
    const { time } = this.db.dialect;
    const expiresAt = time(addMs(now, leaseMs));
    const created = await this.db.insertOrNull(TABLE, { name, holder, expires_at: expiresAt, due_at: null }, ['name']);
    if (created !== null) return true;
    const taken = await this.db.transitionOne(
      TABLE,
      (qb) => {
        qb.where({ name }).where('expires_at', '<=', time(now));
        if (due) qb.where((inner) => inner.whereNull('due_at').orWhere('due_at', '<=', time(now)));
      },
      { holder, expires_at: expiresAt },
    );
    return taken !== null;
  }

  /** Who holds or last held the lease, and when the task is next due by its last run anywhere (null: never ran). */
  async record(name: string): Promise<{ holder: string; dueAt: Date | null } | undefined> {
    const row = (await this.db.knex(TABLE).where({ name }).first('holder', 'due_at')) as { holder: string; due_at: unknown } | undefined;
    return row === undefined ? undefined : { holder: row.holder, dueAt: row.due_at == null ? null : readTime(row.due_at) };
  }

  /**
   * Ends our lease early, so the next explicit run (here or elsewhere) need not wait for it to
   * expire, and records when the next scheduled run is due anywhere.
   */
  async release(name: string, holder: string, now: Date, dueAt: Date): Promise<void> {
    const { time } = this.db.dialect;
    await this.db.knex(TABLE).where({ name, holder }).update({ expires_at: time(now), due_at: time(dueAt) });
  }
}
