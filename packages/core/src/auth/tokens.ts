import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock/index.js';
import { randomHex } from '../crypto/index.js';
import type { Platform } from '../http/index.js';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  sub: string;
  sid: string;
  typ: TokenType;
  platform: Platform;
}

export interface TokenServiceOptions {
  secret: string;
  /** `iss`, pinned on verification: the public API URL. */
  issuer: string;
  accessTtlSec: number;
  refreshTtlSec: number;
  clock: Clock;
}

const AUDIENCE = 'wallet-backend:user';
const ALGORITHM = 'HS256';
const PLATFORMS = new Set<Platform>(['extension', 'web', 'nostr']);

/**
 * User access and refresh JWTs (HS256). The algorithm, issuer, audience and token type are
 * pinned by the server on verification, never taken from the token header (STYLE G11). Every
 * token gets a random `jti`, so two tokens minted in the same second still differ (their
 * peppered hashes are unique keys).
 */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(private readonly options: TokenServiceOptions) {
    this.key = new TextEncoder().encode(options.secret);
  }

  async sign(claims: TokenClaims): Promise<string> {
    const nowSec = Math.floor(this.options.clock.now().getTime() / 1000);
    const ttl = claims.typ === 'access' ? this.options.accessTtlSec : this.options.refreshTtlSec;
    return new SignJWT({ sid: claims.sid, typ: claims.typ, platform: claims.platform })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer(this.options.issuer)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSec)
      .setExpirationTime(nowSec + ttl)
      .setJti(randomHex(16))
      .sign(this.key);
  }

  /** The claims of a valid token of the expected type, or `null`: any failure is just "invalid". */
  async verify(token: string, expected: TokenType): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.options.issuer,
        audience: AUDIENCE,
        currentDate: this.options.clock.now(),
      });
      const { sub, sid, typ, platform } = payload as Record<string, unknown>;
      if (typ !== expected || typeof sub !== 'string' || typeof sid !== 'string') return null;
      if (typeof platform !== 'string' || !PLATFORMS.has(platform as Platform)) return null;
      return { sub, sid, typ: expected, platform: platform as Platform };
    } catch {
      return null;
    }
  }

  get accessTtlSec(): number {
    return this.options.accessTtlSec;
  }

  get refreshTtlSec(): number {
    return this.options.refreshTtlSec;
  }
}
