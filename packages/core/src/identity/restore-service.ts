import { addMs, type Clock } from '../clock/index.js';
import { newId, type Peppers } from '../crypto/index.js';
import { deleteInBatches, readTime, type Database } from '../storage/index.js';
import { identityErrors } from './errors.js';

export interface RestoreCheckRequest {
  seed_fingerprint: string;
  /** The pubkey_hash the restored wallet derives; `valid` says whether it is the one on file. */
  pubkey_hash?: string | undefined;
}

export interface RestoreCheckResponse {
  /** An account is registered with this seed. */
  exists: boolean;
  /** ...and it is registered under the submitted pubkey_hash (the restored wallet logs straight in). */
  valid: boolean;
}

export interface RestoreGovernor {
  ipThreshold: number;
  failThreshold: number;
  windowSec: number;
}

type Outcome = 'valid' | 'mismatch' | 'unknown' | 'limited';

const RETENTION_MS = 7 * 86_400_000;

/**
 * `POST /auth/check-restore` (spec › rule 1). The governors run BEFORE the account lookup;
 * then the known and unknown branches issue the same statements (one lookup, one insert) and
 * the same HMAC, so neither timing nor the query log tells them apart. `valid` holds for any
 * account the seed has that is registered under the submitted pubkey_hash, not just the newest.
 */
export class RestoreCheckService {
  constructor(
    private readonly db: Database,
    private readonly peppers: Peppers,
    private readonly clock: Clock,
    private readonly governorNow: () => Promise<RestoreGovernor>,
  ) {}

  async check(request: RestoreCheckRequest, clientIp: string): Promise<RestoreCheckResponse> {
    const { knex, dialect } = this.db;
    const now = this.clock.now();
    const ipHash = this.peppers.hashIp(clientIp);
    const fingerprint = this.peppers.pepper(request.seed_fingerprint.toLowerCase());
    const governor = await this.governorNow();
    const since = dialect.time(addMs(now, -governor.windowSec * 1000));

    const [byIp, failures] = await Promise.all([
      knex('restore_attempts').where({ ip_hash: ipHash }).where('created_at', '>', since).count({ n: '*' }).first(),
      knex('restore_attempts').where({ fingerprint }).whereIn('outcome', ['mismatch', 'unknown']).where('created_at', '>', since).count({ n: '*' }).first(),
    ]);
    const ipTripped = Number(byIp?.n ?? 0) >= governor.ipThreshold;
    const failTripped = Number(failures?.n ?? 0) >= governor.failThreshold;
    if (ipTripped || failTripped) {
      await this.record(ipHash, fingerprint, 'limited', now);
      const retryAfterSec = await this.retryAfterSec({ ipHash, fingerprint, ipTripped, failTripped, governor, since, now });
      throw identityErrors.create.restore_limited({ headers: { 'Retry-After': String(retryAfterSec) } });
    }

    // One statement for every branch: how many accounts carry this seed (a seed may have several,
    // spec › rule 2) and whether ANY of them is registered under the submitted pubkey_hash. The
    // submitted value is peppered first, so the comparison is against an HMAC the caller cannot
    // steer byte by byte; the unknown branch runs the identical statement with the same HMAC.
    const submitted = this.peppers.pepper((request.pubkey_hash ?? '').toLowerCase());
    const tally = (await knex('users')
      .where({ seed_fingerprint: fingerprint })
      .select(knex.raw('count(*) as accounts'), knex.raw('coalesce(max(case when pubkey_hash = ? then 1 else 0 end), 0) as matching', [submitted]))
      .first()) as { accounts: number | string; matching: number | string } | undefined;
    const exists = Number(tally?.accounts ?? 0) > 0;
    const valid = exists && request.pubkey_hash !== undefined && Number(tally?.matching ?? 0) > 0;
    await this.record(ipHash, fingerprint, valid ? 'valid' : exists ? 'mismatch' : 'unknown', now);
    return { exists, valid };
  }

  /**
   * Seconds until a client that waits lets every tripped governor in again: a governor counts the
   * attempts of the last window, so it lets in once its threshold-th newest counted attempt has
   * left the window (the refused attempt just recorded counts for the IP governor: retrying
   * early only pushes the time out). At least 1, at most the window length.
   */
  private async retryAfterSec(state: { ipHash: string; fingerprint: string; ipTripped: boolean; failTripped: boolean; governor: RestoreGovernor; since: Date | string; now: Date }): Promise<number> {
    const { knex } = this.db;
    const { governor, since, now } = state;
    const newestFirst = [{ column: 'created_at', order: 'desc' as const }, { column: 'id', order: 'desc' as const }];
    const blocking: Promise<{ created_at: unknown } | undefined>[] = [];
    if (state.ipTripped) {
      blocking.push(knex('restore_attempts').select('created_at').where({ ip_hash: state.ipHash }).where('created_at', '>', since).orderBy(newestFirst).offset(governor.ipThreshold - 1).first());
    }
    if (state.failTripped) {
      blocking.push(
        knex('restore_attempts').select('created_at').where({ fingerprint: state.fingerprint }).whereIn('outcome', ['mismatch', 'unknown']).where('created_at', '>', since).orderBy(newestFirst).offset(governor.failThreshold - 1).first(),
      );
    }
    const windowMs = governor.windowSec * 1000;
    let untilMs = 0;
    for (const row of await Promise.all(blocking)) {
      // No row: the count changed between the two reads (a sweep, a racer); a whole window is safe.
      const freeAtMs = row === undefined ? now.getTime() + windowMs : readTime(row.created_at).getTime() + windowMs;
      untilMs = Math.max(untilMs, freeAtMs - now.getTime());
    }
    return Math.min(governor.windowSec, Math.max(1, Math.ceil(untilMs / 1000)));
  }

  private async record(ipHash: string, fingerprint: string, outcome: Outcome, now: Date): Promise<void> {
    await this.db.knex('restore_attempts').insert({ id: newId(), ip_hash: ipHash, fingerprint, outcome, created_at: this.db.dialect.time(now) });
  }

  /** Restore attempts are kept 7 days (spec › Limits). */
  async sweep(): Promise<number> {
    const cutoff = addMs(this.clock.now(), -RETENTION_MS);
    return deleteInBatches(this.db.knex, 'restore_attempts', (qb) => qb.where('created_at', '<', this.db.dialect.time(cutoff)));
  }
}
