import { expect } from 'chai';
import { readTime } from '@wallet/backend-core';
import { eachDialect, seedUser, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * Token and session lifetimes at their exact boundaries (issue 13 item 3). Two clocks decide:
 * the JWT `exp`, in whole seconds (issued-at truncated + TTL; valid while the current second is
 * below it), and the session row's `expires_at`, in milliseconds (start + refresh TTL; live while
 * strictly after now). Small TTLs keep the arithmetic visible.
 */

const ACCESS_TTL_SEC = 60;
const REFRESH_TTL_SEC = 3_600;

function sessionIdOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sid;
}

function expOf(token: string): number {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).exp;
}

eachDialect('sessions: lifetimes at their boundaries', (dialect) => {
  const t = useTestBackend(dialect, { settings: { accessTokenTtlSec: ACCESS_TTL_SEC, refreshTokenTtlSec: REFRESH_TTL_SEC } });
  const me = (t: TestBackend, token: string) => t.client.get('/api/v1/auth/me', { token });
  const refresh = (t: TestBackend, token: string) => t.client.post('/api/v1/auth/refresh', { refresh_token: token });

  async function start(): Promise<{ userId: string; issuedAt: number; auth: Awaited<ReturnType<TestBackend['backend']['sessions']['start']>> }> {
    const { id } = await seedUser(t.backend);
    const issuedAt = t.clock.now().getTime();
    return { userId: id, issuedAt, auth: await t.backend.sessions.start(id, 'web') };
  }

  it('an access token works until 1 ms before its TTL and is refused at it', async () => {
    const { auth, issuedAt } = await start();
    expect(issuedAt % 1000).to.equal(0);
    expect(auth.expires_in).to.equal(ACCESS_TTL_SEC);
    expect(expOf(auth.access_token)).to.equal(issuedAt / 1000 + ACCESS_TTL_SEC);
    t.clock.set(new Date(issuedAt + ACCESS_TTL_SEC * 1000 - 1));
    expect((await me(t, auth.access_token)).status).to.equal(200);
    t.clock.set(new Date(issuedAt + ACCESS_TTL_SEC * 1000));
    const res = await me(t, auth.access_token);
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('unauthorized');
    // The session itself is alive: its refresh token still gets a fresh access token.
    expect((await refresh(t, auth.refresh_token)).status).to.equal(200);
  });

  it('the JWT exp is in whole seconds: a token issued at .750 s expires at the TTL counted from the second it began', async () => {
    t.clock.advance(750);
    const { auth, issuedAt } = await start();
    const end = issuedAt - 750 + ACCESS_TTL_SEC * 1000;
    expect(expOf(auth.access_token) * 1000).to.equal(end);
    t.clock.set(new Date(end - 1));
    expect((await me(t, auth.access_token)).status).to.equal(200);
    t.clock.set(new Date(end));
    expect((await me(t, auth.access_token)).status).to.equal(401);
  });

  it('a refresh token works until 1 ms before its TTL and is refused at it; the row stores exactly that end', async () => {
    const early = await start();
    const late = await start();
    expect(early.auth.refresh_expires_in).to.equal(REFRESH_TTL_SEC);
    expect(expOf(early.auth.refresh_token)).to.equal(early.issuedAt / 1000 + REFRESH_TTL_SEC);
    const row = await t.backend.db.knex('sessions').where({ id: sessionIdOf(early.auth.refresh_token) }).first();
    expect(readTime(row.expires_at).getTime() - readTime(row.created_at).getTime()).to.equal(REFRESH_TTL_SEC * 1000);
    expect(readTime(row.expires_at).getTime()).to.equal(early.issuedAt + REFRESH_TTL_SEC * 1000);

    const end = early.issuedAt + REFRESH_TTL_SEC * 1000;
    t.clock.set(new Date(end - 1));
    const renewed = await refresh(t, early.auth.refresh_token);
    expect(renewed.status).to.equal(200);
    expect(renewed.body.user_id).to.equal(early.userId);
    t.clock.set(new Date(end));
    const refused = await refresh(t, late.auth.refresh_token);
    expect(refused.status).to.equal(401);
    expect(refused.body.error.code).to.equal('invalid_refresh_token');
    expect((await me(t, late.auth.access_token)).status).to.equal(401);

    // The renewed pair lives a full TTL from its own start, not from the first login.
    expect((await me(t, renewed.body.access_token)).status).to.equal(200);
    t.clock.set(new Date(end - 1 + REFRESH_TTL_SEC * 1000 - 1000));
    expect((await refresh(t, renewed.body.refresh_token)).status).to.equal(200);
  });

  it('the session row end is exclusive: expires_at 1 ms after now is live, expires_at = now is not (guard and refresh)', async () => {
    const { time } = t.backend.db.dialect;
    const live = await start();
    const dead = await start();
    t.clock.advance(10_000);
    const now = t.clock.now().getTime();
    await t.backend.db.knex('sessions').where({ id: sessionIdOf(live.auth.access_token) }).update({ expires_at: time(new Date(now + 1)) });
    await t.backend.db.knex('sessions').where({ id: sessionIdOf(dead.auth.access_token) }).update({ expires_at: time(new Date(now)) });
    // Both JWTs are well within their lifetimes: only the row decides.
    expect((await me(t, live.auth.access_token)).status).to.equal(200);
    expect((await me(t, dead.auth.access_token)).status).to.equal(401);
    expect((await refresh(t, dead.auth.refresh_token)).status).to.equal(401);
    expect((await refresh(t, live.auth.refresh_token)).status).to.equal(200);
    // The refused session was not revoked by the attempt, it simply ended.
    const row = await t.backend.db.knex('sessions').where({ id: sessionIdOf(dead.auth.access_token) }).first();
    expect(row.revoked_at).to.equal(null);
  });
});
