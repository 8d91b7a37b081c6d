import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { ManualClock } from '@wallet/backend-core/testing';
import { TokenService, type TokenClaims } from '../../../packages/core/src/auth/index.js';
import { TEST_PUBLIC_API_URL, TEST_SECRETS } from '../../harness/index.js';

// Pure token minting and checking: no storage, so no dialect to run it on.
const clock = new ManualClock('2026-04-01T00:00:00.000Z');
const tokens = new TokenService({ secret: TEST_SECRETS.jwtSecret, issuer: TEST_PUBLIC_API_URL, accessTtlSec: 900, refreshTtlSec: 86_400, clock });
const CLAIMS: TokenClaims = { sub: 'user-1', sid: 'session-1', typ: 'access', platform: 'web' };
const nowSec = (): number => Math.floor(clock.now().getTime() / 1000);

/** A token signed with the real secret, issuer and audience, carrying whatever claims the test wants. */
function forge(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(TEST_PUBLIC_API_URL)
    .setAudience('wallet-backend:user')
    .setIssuedAt(nowSec())
    .setExpirationTime(nowSec() + 60)
    .sign(new TextEncoder().encode(TEST_SECRETS.jwtSecret));
}

describe('auth: user tokens', () => {
  it('mints an HS256 JWT with the documented header and claims (known answer, read with jose)', async () => {
    const token = await tokens.sign(CLAIMS);
    expect(decodeProtectedHeader(token)).to.deep.equal({ alg: 'HS256', typ: 'JWT' });
    const payload = decodeJwt(token);
    expect(payload).to.include({ sub: 'user-1', sid: 'session-1', typ: 'access', platform: 'web', iss: TEST_PUBLIC_API_URL, aud: 'wallet-backend:user' });
    expect(payload.iat).to.equal(nowSec());
    expect(payload.exp).to.equal(nowSec() + 900);
    expect(payload.jti).to.match(/^[0-9a-f]{32}$/);
  });

  it('signs with HMAC-SHA256 of the secret itself (known answer: node:crypto over header.payload)', async () => {
    const token = await tokens.sign(CLAIMS);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(signature).to.equal(createHmac('sha256', TEST_SECRETS.jwtSecret).update(`${header}.${payload}`).digest('base64url'));
  });

  it('accepts a token forged with the same secret and well-formed claims (the control for the refusals below)', async () => {
    expect(await tokens.verify(await forge({ sub: 'user-1', sid: 'session-1', typ: 'access', platform: 'extension' }), 'access')).to.deep.equal({
      sub: 'user-1',
      sid: 'session-1',
      typ: 'access',
      platform: 'extension',
    });
  });

  const malformed: Array<[string, Record<string, unknown>]> = [
    ['no sub', { sid: 'session-1', typ: 'access', platform: 'web' }],
    ['a numeric sub', { sub: 42, sid: 'session-1', typ: 'access', platform: 'web' }],
    ['no sid', { sub: 'user-1', typ: 'access', platform: 'web' }],
    ['an object sid', { sub: 'user-1', sid: { id: 1 }, typ: 'access', platform: 'web' }],
    ['no platform', { sub: 'user-1', sid: 'session-1', typ: 'access' }],
    ['a numeric platform', { sub: 'user-1', sid: 'session-1', typ: 'access', platform: 1 }],
    ['an unknown platform', { sub: 'user-1', sid: 'session-1', typ: 'access', platform: 'desktop' }],
    ['a platform array', { sub: 'user-1', sid: 'session-1', typ: 'access', platform: ['web'] }],
    ['the other token type', { sub: 'user-1', sid: 'session-1', typ: 'refresh', platform: 'web' }],
  ];
  for (const [what, claims] of malformed) {
    it(`refuses a correctly signed token with ${what}`, async () => {
      expect(await tokens.verify(await forge(claims), 'access')).to.equal(null);
    });
  }

  it('refuses a token of another audience, even with the right secret and issuer', async () => {
    const token = await new SignJWT({ sid: 'session-1', typ: 'access', platform: 'web' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('user-1')
      .setIssuer(TEST_PUBLIC_API_URL)
      .setIssuedAt(nowSec())
      .setExpirationTime(nowSec() + 60)
      .sign(new TextEncoder().encode(TEST_SECRETS.jwtSecret));
    expect(await tokens.verify(token, 'access')).to.equal(null);
  });
});
