import type { Platform } from '../http/index.js';
import { lockRowsForShare, PreparedStatement, PreparedTransitionThenInsert, readOptionalTime, readTime, type Database, type Executor } from '../storage/index.js';

export interface SessionRow {
  id: string;
  userId: string;
  platform: Platform;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

interface StoredSession {
  id: string;
  user_id: string;
  platform: string;
  refresh_token_hash: string;
  created_at: unknown;
  expires_at: unknown;
  revoked_at: unknown;
}

const TABLE = 'sessions';

/** What a rotation binds: the session it retires and its successor (same user and platform). */
interface RotationParams extends Record<string, unknown> {
  refreshTokenHash: string;
  userId: string;
  sessionId: string;
  platform: Platform;
  now: Date | string;
  newId: string;
  newRefreshTokenHash: string;
  newCreatedAt: Date | string;
  newExpiresAt: Date | string;
}

/** A refresh's one statement (see `SessionRepository.rotate`). */
const ROTATION = new PreparedTransitionThenInsert<RotationParams>(
  'session_rotation',
  TABLE,
  (qb, param) =>
    qb
      .where({ refresh_token_hash: param('refreshTokenHash'), user_id: param('userId'), id: param('sessionId'), platform: param('platform') })
      .whereNull('revoked_at')
      .where('expires_at', '>', param('now'))
      .whereExists((user) => {
        lockRowsForShare(user.select(1).from('users').where({ id: param('userId') }).whereNull('suspended_at'));
      }),
  (param) => ({ revoked_at: param('now') }),
  (param) => ({
    id: param('newId'),
    user_id: param('userId'),
    platform: param('platform'),
    refresh_token_hash: param('newRefreshTokenHash'),
    created_at: param('newCreatedAt'),
    expires_at: param('newExpiresAt'),
    revoked_at: null,
  }),
  ['id'],
);

/** A new session's row, on every login. */
const NEW_SESSION = new PreparedStatement<{ id: string; userId: string; platform: Platform; refreshTokenHash: string; createdAt: Date | string; expiresAt: Date | string }>(
  'session_insert',
  (knex, param) =>
    knex(TABLE).insert({
      id: param('id'),
      user_id: param('userId'),
      platform: param('platform'),
      refresh_token_hash: param('refreshTokenHash'),
      created_at: param('createdAt'),
      expires_at: param('expiresAt'),
      revoked_at: null,
    }),
);

/** The bearer check's read, on every authenticated request. */
const LIVE_SESSION = new PreparedStatement<{ id: string; userId: string; now: Date | string }>('live_session', (knex, param) =>
  knex(TABLE)
    .select('id', 'user_id', 'platform', 'refresh_token_hash', 'created_at', 'expires_at', 'revoked_at')
    .where({ id: param('id'), user_id: param('userId') })
    .whereNull('revoked_at')
    .where('expires_at', '>', param('now'))
    .first(),
);

function fromStored(row: StoredSession): SessionRow {
  return {
    id: row.id,
    userId: row.user_id,
    platform: row.platform as Platform,
    createdAt: readTime(row.created_at),
    expiresAt: readTime(row.expires_at),
    revokedAt: readOptionalTime(row.revoked_at),
  };
}

/** A session about to be stored: only a peppered hash of its refresh token. */
export interface NewSession {
  id: string;
  userId: string;
  platform: Platform;
  refreshTokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** All SQL of the sessions table. */
export class SessionRepository {
  constructor(private readonly db: Database) {}

  async insert(executor: Executor, session: NewSession): Promise<void> {
    const { time } = this.db.dialect;
    await NEW_SESSION.rows(executor, {
      id: session.id,
      userId: session.userId,
      platform: session.platform,
      refreshTokenHash: session.refreshTokenHash,
      createdAt: time(session.createdAt),
      expiresAt: time(session.expiresAt),
    });
  }

  /** The session if it is live (not revoked, not expired) and belongs to `userId`. */
  async findLive(sessionId: string, userId: string, now: Date): Promise<SessionRow | null> {
    const row = await LIVE_SESSION.first<StoredSession>(this.db.knex, { id: sessionId, userId, now: this.db.dialect.time(now) });
    return row ? fromStored(row) : null;
  }

  /**
   * Rotation: revokes the live session holding this refresh-token hash (for this user, session
   * id and platform) and inserts its successor, as ONE conditional step
   * (transitionOneAndInsert): of concurrent callers exactly one rotates, and a caller that
   * finds no live session inserts nothing. `true` when this caller rotated.
   *
   * The same statement share-locks the user's row and requires it not suspended. A change of
   * account state that must end access (a suspension, an erasure's confirmation) locks that row
   * (`users.lock`) and revokes the user's sessions in one transaction, so a rotation either
   * commits before it (and its successor is revoked with the rest) or waits for it and finds
   * its session revoked: no successor outlives the change, with no transaction here. The lock
   * is an uncorrelated sub-SELECT, which Postgres runs before it locks any session row: the
   * same order (user row, then sessions) as those changes, so the two cannot deadlock.
   */
  async rotate(
    match: { refreshTokenHash: string; userId: string; sessionId: string; platform: Platform },
    successor: NewSession,
    now: Date,
    executor: Executor = this.db.knex,
  ): Promise<boolean> {
    const { time } = this.db.dialect;
    const revoked = await ROTATION.run<{ id: string }>(executor, {
      ...match,
      now: time(now),
      newId: successor.id,
      newRefreshTokenHash: successor.refreshTokenHash,
      newCreatedAt: time(successor.createdAt),
      newExpiresAt: time(successor.expiresAt),
    });
    return revoked !== null;
  }

  /** Revokes whatever session holds this hash; `true` when one was live. Idempotent. */
  async revokeByRefreshHash(refreshTokenHash: string, now: Date): Promise<boolean> {
    const count = await this.db
      .knex(TABLE)
      .where({ refresh_token_hash: refreshTokenHash })
      .whereNull('revoked_at')
      .update({ revoked_at: this.db.dialect.time(now) });
    return count > 0;
  }

  /** Revokes every live session of a user (erasure confirmation, admin action); returns how many. */
  async revokeAllForUser(executor: Executor, userId: string, now: Date): Promise<number> {
    return executor(TABLE).where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: this.db.dialect.time(now) });
  }
}
