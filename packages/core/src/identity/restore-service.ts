import { timingSafeEqual } from 'node:crypto';
import { addMs, type Clock } from '../clock/index.js';
import { newId, type Peppers } from '../crypto/index.js';
import type { Database } from '../storage/index.js';
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
// Compared against when no account matched, so both branches hash and compare the same bytes.
const ABSENT = '0'.repeat(64);

/**
 * `POST /auth/check-restore` (spec › rule 1). The governors run BEFORE the account lookup;
 * then the known and unknown branches issue the same statements (one lookup, one insert) and
 * the same HMAC and comparison, so neither timing nor the query log tells them apart.
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
    if (Number(byIp?.n ?? 0) >= governor.ipThreshold || Number(failures?.n ?? 0) >= governor.failThreshold) {
      await this.record(ipHash, fingerprint, 'limited', now);
      throw identityErrors.create.restore_limited();
    }

    const account = (await knex('users')
      .select('pubkey_hash')
      .where({ seed_fingerprint: fingerprint })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .first()) as { pubkey_hash: string | null } | undefined;
    const submitted = Buffer.from(this.peppers.pepper((request.pubkey_hash ?? '').toLowerCase()), 'hex');
    const onFile = Buffer.from(account?.pubkey_hash ?? ABSENT, 'hex');
    const matches = onFile.length === submitted.length && timingSafeEqual(onFile, submitted);
    const exists = account !== undefined;
    const valid = exists && request.pubkey_hash !== undefined && matches;
    await this.record(ipHash, fingerprint, valid ? 'valid' : exists ? 'mismatch' : 'unknown', now);
    return { exists, valid };
  }

  private async record(ipHash: string, fingerprint: string, outcome: Outcome, now: Date): Promise<void> {
    await this.db.knex('restore_attempts').insert({ id: newId(), ip_hash: ipHash, fingerprint, outcome, created_at: this.db.dialect.time(now) });
  }

  /** Restore attempts are kept 7 days (spec › Limits). */
  async sweep(): Promise<number> {
    const cutoff = addMs(this.clock.now(), -RETENTION_MS);
    return this.db.knex('restore_attempts').where('created_at', '<', this.db.dialect.time(cutoff)).delete();
  }
}
