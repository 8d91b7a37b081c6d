import { addMs, type Clock } from '../clock/index.js';
import { newId, type Peppers } from '../crypto/index.js';
import type { Platform } from '../http/index.js';
import { deleteInBatches, PreparedStatement, type Database, type Executor } from '../storage/index.js';

const DAY_MS = 86_400_000;

/** One event per login. */
const RECORD = new PreparedStatement<{ id: string; userId: string; platform: string; ipHash: string; fingerprint: string | null; at: Date | string }>('login_event_insert', (knex, param) =>
  knex('login_events').insert({
    id: param('id'),
    user_id: param('userId'),
    platform: param('platform'),
    ip_hash: param('ipHash'),
    fingerprint: param('fingerprint'),
    created_at: param('at'),
  }),
);

/**
 * Login events (spec › Privacy): who logged in, on which platform, when; the IP only as a
 * salted hash and the fingerprint only peppered (callers pass the peppered value).
 */
export class LoginEventLog {
  constructor(
    private readonly db: Database,
    private readonly peppers: Peppers,
    private readonly clock: Clock,
  ) {}

  async record(event: { userId: string; platform: Platform; clientIp: string; fingerprint?: string | null }, executor: Executor = this.db.knex): Promise<void> {
    await RECORD.rows(executor, {
      id: newId(),
      userId: event.userId,
      platform: event.platform,
      ipHash: this.peppers.hashIp(event.clientIp),
      fingerprint: event.fingerprint ?? null,
      at: this.db.dialect.time(this.clock.now()),
    });
  }

  /** Deletes events older than the retention period; returns how many. */
  async sweep(retentionDays: number): Promise<number> {
    const cutoff = addMs(this.clock.now(), -retentionDays * DAY_MS);
    return deleteInBatches(this.db.knex, 'login_events', (qb) => qb.where('created_at', '<', this.db.dialect.time(cutoff)));
  }
}
