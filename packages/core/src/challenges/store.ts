import { addMs, type Clock } from '../clock/index.js';
import { randomHex } from '../crypto/index.js';
import { deleteInBatches, readTime, type Database, type Executor } from '../storage/index.js';

const TABLE = 'challenges';

export interface IssuedChallenge {
  /** 256-bit, hex (64 characters). */
  nonce: string;
  purpose: string;
  subject: string | null;
  expiresAt: Date;
}

interface StoredChallenge {
  nonce: string;
  purpose: string;
  subject: string | null;
  expires_at: unknown;
}

/**
 * Single-use server nonces (spec › Challenge): issued → consumed by ONE atomic delete matching
 * nonce, purpose and subject while unexpired. Replayed, expired, wrong-purpose and
 * other-subject nonces all come back `null`, and a wrong-purpose or wrong-subject attempt
 * consumes nothing.
 */
/** The nonce operations features and plugins call; `ChallengeStore` implements them. */
export type Challenges = Pick<ChallengeStore, 'issue' | 'consume' | 'take' | 'sweepExpired'>;

export class ChallengeStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly defaultTtlSec: number,
  ) {}

  async issue(purpose: string, options: { subject?: string; ttlSec?: number } = {}): Promise<IssuedChallenge> {
    const now = this.clock.now();
    const challenge: IssuedChallenge = {
      nonce: randomHex(32),
      purpose,
      subject: options.subject ?? null,
      expiresAt: addMs(now, (options.ttlSec ?? this.defaultTtlSec) * 1000),
    };
    const { time } = this.db.dialect;
    await this.db.knex(TABLE).insert({
      nonce: challenge.nonce,
      purpose,
      subject: challenge.subject,
      created_at: time(now),
      expires_at: time(challenge.expiresAt),
    });
    return challenge;
  }

  /**
   * Consumes the nonce if it was issued for this purpose (and subject, when given, else only a
   * subject-less nonce matches) and has not expired. Exactly one concurrent caller wins.
   */
  async consume(
    nonce: string,
    purpose: string,
    options: { subject?: string | null; executor?: Executor } = {},
  ): Promise<IssuedChallenge | null> {
    const subject = options.subject ?? null;
    const row = await this.db.consumeOne<StoredChallenge>(
      TABLE,
      (qb) => {
        qb.where({ nonce, purpose }).where('expires_at', '>', this.db.dialect.time(this.clock.now()));
        if (subject === null) qb.whereNull('subject');
        else qb.where({ subject });
      },
      options.executor,
    );
    return row ? { nonce: row.nonce, purpose: row.purpose, subject: row.subject, expiresAt: readTime(row.expires_at) } : null;
  }

  /**
   * Consumes a nonce of this purpose whatever its subject or expiry, for flows that must burn a
   * challenge before looking at it (website verify: single use even when the signature then
   * fails; the caller checks expiry and subject itself). Another purpose's nonce is untouched.
   */
  async take(nonce: string, purpose: string, executor?: Executor): Promise<IssuedChallenge | null> {
    const row = await this.db.consumeOne<StoredChallenge>(TABLE, (qb) => qb.where({ nonce, purpose }), executor);
    return row ? { nonce: row.nonce, purpose: row.purpose, subject: row.subject, expiresAt: readTime(row.expires_at) } : null;
  }

  /** Deletes expired challenges; returns how many. The challenge-expiry sweep. */
  async sweepExpired(now: Date): Promise<number> {
    return deleteInBatches(this.db.knex, TABLE, (qb) => qb.where('expires_at', '<=', this.db.dialect.time(now)));
  }
}
