import { webcrypto } from 'node:crypto';
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

/** The HS256 key of `secret` (its UTF-8 bytes), for signing and verifying only. */
export function hmacKey(secret: string): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * User access and refresh JWTs (HS256). The algorithm, issuer, audience and token type are
 * pinned by the server on verification, never taken from the token header
 * (docs/architecture.md#verified-from-the-wire). Every
 * token gets a random `jti`, so two tokens minted in the same second still differ (their
 * peppered hashes are unique keys).
 */
export class TokenService {
  /**
   * The HMAC key, imported once: handed the raw secret, jose imports it through WebCrypto on
   * every sign and verify, about a tenth of an authenticated request's CPU.
   */
  private readonly key: Promise<webcrypto.CryptoKey>;

  constructor(private readonly options: TokenServiceOptions) {
    this.key = hmacKey(options.secret);
    // Settled (if ever rejected) at the first sign or verify, not as an unhandled rejection now.
    this.key.catch(() => undefined);
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
      .sign(await this.key);
  }

  /** The claims of a valid token of the expected type, or `null`: any failure is just "invalid". */
  async verify(token: string, expected: TokenType): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, await this.key, {
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
