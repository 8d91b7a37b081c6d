import { addMs, type Clock } from '../clock/index.js';
import { newId, type Peppers } from '../crypto/index.js';
import { coreErrors } from '../errors/index.js';
import type { Platform, UserAuth } from '../http/index.js';
import { inTransaction, type Database, type Executor, type Knex } from '../storage/index.js';
import type { NewSession, SessionRepository } from './session-repo.js';
import type { TokenService } from './tokens.js';

/** The token pair every login, registration, refresh and website verify returns (spec: AuthResponse). */
export interface AuthResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  /** Seconds until the access token expires. */
  expires_in: number;
  /** Seconds until the refresh token (and its session) expires. */
  refresh_expires_in: number;
  user_id: string;
  platform: Platform;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

/**
 * A check every new session of a user must pass (a plugin's, through the plugin contract): it
 * runs inside the transaction that stores the session and refuses by throwing. Whatever it
 * locks in `trx` is held until the session is stored, so a guard can serialise with the work
 * that changes its answer. A refresh is not a new session and does not run it, except to say
 * why a rotation failed: the work that makes a guard refuse must also revoke the user's
 * sessions (`revokeAllForUser`) in its transaction, after locking the user's row.
 */
export type SessionGuard = (userId: string, trx: Knex.Transaction) => Promise<void>;

/** The session operations features and plugins call; core's `SessionService` implements them. */
export interface Sessions {
  /** Opens a session for a user who has just proven who they are; pass `executor` to join the caller's transaction. */
  start(userId: string, platform: Platform, executor?: Executor): Promise<AuthResponse>;
  /** Rotates a refresh token: exactly one of concurrent refreshes with one token wins. */
  refresh(refreshToken: string): Promise<AuthResponse>;
  /** Idempotent: an unknown, malformed or already revoked token also succeeds. */
  logout(refreshToken: string): Promise<void>;
  /** The bearer guard: a valid access token whose session is still live, else 401. */
  authenticate(authorization: string | undefined): Promise<UserAuth>;
  /** Revokes every live session of a user; returns how many. */
  revokeAllForUser(userId: string, executor?: Executor): Promise<number>;
}

/**
 * Sessions and the tokens that stand for them. Only a peppered hash of each refresh token is
 * stored; a refresh revokes the old session and stores its successor in one atomic step decided
 * by a single conditional update, so of concurrent refreshes with one token exactly one
 * succeeds and only the winner's successor exists.
 */
export class SessionService implements Sessions {
  private readonly guards: SessionGuard[] = [];

  constructor(
    private readonly db: Database,
    private readonly sessions: SessionRepository,
    private readonly tokens: TokenService,
    private readonly peppers: Peppers,
    private readonly clock: Clock,
  ) {}

  /** Opens a session for a user who has just proven who they are; pass `executor` to join the caller's transaction. */
  async start(userId: string, platform: Platform, executor: Executor = this.db.knex): Promise<AuthResponse> {
    const { session, response } = await this.prepare(userId, platform);
    await this.guarded(userId, executor, (trx) => this.sessions.insert(trx, session));
    return response;
  }

  /** Adds a guard that every later `start` runs, and a refused `refresh` asks (the plugin contract's `auth.addSessionGuard`). */
  addGuard(guard: SessionGuard): void {
    this.guards.push(guard);
  }

  /**
   * spec › Authentication › refresh: verify the JWT, find the ACTIVE session by the peppered
   * hash (same user as `sub`, same id as `sid`, same platform), revoke it and issue a fresh
   * pair. A rotated, revoked or expired token, or the loser of a concurrent refresh, gets 401.
   * The successor's tokens are signed before the database is touched, so the rotation is one
   * conditional step that holds no connection while tokens are signed.
   *
   * A refresh continues a live session; it opens none, so the guards do not gate it: an account
   * state that must stop refreshes revokes the user's sessions when it is set (see
   * `SessionRepository.rotate`, whose one statement is ordered with that change by the user's
   * row). When the rotation fails, the guards say why: a refused account answers its guard's
   * error (403 `account_suspended`, `account_erasure_pending`) rather than 401.
   */
  async refresh(refreshToken: string): Promise<AuthResponse> {
    const claims = await this.tokens.verify(refreshToken, 'refresh');
    if (claims === null) throw coreErrors.create.invalid_refresh_token();
    const { session, response } = await this.prepare(claims.sub, claims.platform);
    const match = { refreshTokenHash: this.peppers.pepper(refreshToken), userId: claims.sub, sessionId: claims.sid, platform: claims.platform };
    if (await this.sessions.rotate(match, session, session.createdAt)) return response;
    await this.guarded(claims.sub, this.db.knex, async () => undefined);
    throw coreErrors.create.invalid_refresh_token();
  }

  /**
   * `work` after every guard passed, in one transaction with them (the caller's, or a new one).
   * Without guards `work` runs on `executor` as it is.
   */
  private async guarded<T>(userId: string, executor: Executor, work: (executor: Executor) => Promise<T>): Promise<T> {
    if (this.guards.length === 0) return work(executor);
    return inTransaction(executor, async (trx) => {
      for (const guard of this.guards) await guard(userId, trx);
      return work(trx);
    });
  }

  /** A new session's row and the token pair that stands for it, not yet stored. */
  private async prepare(userId: string, platform: Platform): Promise<{ session: NewSession; response: AuthResponse }> {
    const now = this.clock.now();
    const sessionId = newId();
    const [accessToken, refreshToken] = await Promise.all([
      this.tokens.sign({ sub: userId, sid: sessionId, typ: 'access', platform }),
      this.tokens.sign({ sub: userId, sid: sessionId, typ: 'refresh', platform }),
    ]);
    return {
      session: {
        id: sessionId,
        userId,
        platform,
        refreshTokenHash: this.peppers.pepper(refreshToken),
        createdAt: now,
        expiresAt: addMs(now, this.tokens.refreshTtlSec * 1000),
      },
      response: {
        access_token: accessToken,
        refresh_token: refreshToken,
        token_type: 'Bearer',
        expires_in: this.tokens.accessTtlSec,
        refresh_expires_in: this.tokens.refreshTtlSec,
        user_id: userId,
        platform,
      },
    };
  }

  /** Idempotent: an unknown, malformed or already revoked token also succeeds (spec › logout). */
  async logout(refreshToken: string): Promise<void> {
    await this.sessions.revokeByRefreshHash(this.peppers.pepper(refreshToken), this.clock.now());
  }

  /** The bearer guard: a valid access token whose session is still live, else 401. */
  async authenticate(authorization: string | undefined): Promise<UserAuth> {
    const token = BEARER.exec(authorization ?? '')?.[1];
    if (token === undefined) throw coreErrors.create.unauthorized();
    const claims = await this.tokens.verify(token, 'access');
    if (claims === null) throw coreErrors.create.unauthorized();
    const session = await this.sessions.findLive(claims.sid, claims.sub, this.clock.now());
    if (session === null) throw coreErrors.create.unauthorized();
    return { userId: session.userId, sessionId: session.id, platform: session.platform };
  }

  /** Revokes every live session of a user (erasure confirmation); returns how many. */
  async revokeAllForUser(userId: string, executor: Executor = this.db.knex): Promise<number> {
    return this.sessions.revokeAllForUser(executor, userId, this.clock.now());
  }
}
