import { expect } from 'chai';
import { eachDialect, seedSession, seedUser, useTestBackend } from '../../harness/index.js';

async function sessionCount(t: { backend: { db: { knex: any } } }, where: Record<string, unknown> = {}) {
  const [row] = await t.backend.db.knex('sessions').where(where).count({ n: '*' });
  return Number(row.n);
}

eachDialect('sessions: refresh, logout, me', (dialect) => {
  const t = useTestBackend(dialect);

  it('refresh revokes the old session and issues a working new pair', async () => {
    const { auth } = await seedSession(t.backend, 'web');
    const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ token_type: 'Bearer', user_id: auth.user_id, platform: 'web' });
    expect(res.body.refresh_token).to.not.equal(auth.refresh_token);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect((await t.client.get('/api/v1/auth/me', { token: res.body.access_token })).status).to.equal(200);
    // The old session is revoked, so its access token dies with it.
    expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(401);
    expect(await sessionCount(t, { revoked_at: null })).to.equal(1);
  });

  it('of 25 concurrent refreshes with one token exactly one gets 200 and the rest 401', async () => {
    const { auth } = await seedSession(t.backend);
    const results = await Promise.all(
      Array.from({ length: 25 }, () => t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 401)).to.have.length(24);
    for (const loser of results.filter((r) => r.status === 401)) expect(loser.body.error.code).to.equal('invalid_refresh_token');
    expect(await sessionCount(t)).to.equal(2);
    expect(await sessionCount(t, { revoked_at: null })).to.equal(1);
  });

  it('a rotated token is refused', async () => {
    const { auth } = await seedSession(t.backend);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(200);
    const again = await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
    expect(again.status).to.equal(401);
    expect(again.body.error.code).to.equal('invalid_refresh_token');
  });

  it('an expired refresh token is refused, and an expired access token too', async () => {
    const { auth } = await seedSession(t.backend);
    t.clock.advance(auth.expires_in * 1000 + 1000);
    expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(401);
    t.clock.advance(auth.refresh_expires_in * 1000);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(401);
  });

  it('an access token is not a refresh token, and a forged token is refused', async () => {
    const { auth } = await seedSession(t.backend);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.access_token })).status).to.equal(401);
    const [h, p] = auth.refresh_token.split('.');
    const forged = `${h}.${p}.${'A'.repeat(43)}`;
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: forged })).status).to.equal(401);
    expect((await t.client.get('/api/v1/auth/me', { token: auth.refresh_token })).status).to.equal(401);
    expect(await sessionCount(t, { revoked_at: null })).to.equal(1);
  });

  it('logout revokes the session and is idempotent, also for unknown tokens', async () => {
    const { auth } = await seedSession(t.backend);
    for (let i = 0; i < 2; i++) {
      const res = await t.client.post('/api/v1/auth/logout', { refresh_token: auth.refresh_token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ok: true });
    }
    const unknown = `${auth.refresh_token.split('.').slice(0, 2).join('.')}.${'B'.repeat(43)}`;
    expect((await t.client.post('/api/v1/auth/logout', { refresh_token: unknown })).status).to.equal(200);
    const malformed = await t.client.post('/api/v1/auth/logout', { refresh_token: 'not-a-token' });
    expect(malformed.status).to.equal(200);
    expect(malformed.body).to.deep.equal({ ok: true });
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(401);
    expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(401);
  });

  it('logout with a token that is not even a JWT answers 200 and revokes nothing (spec › rule 4)', async () => {
    // (A NUL byte is the one exception: the validation layer refuses it in every body, 400.)
    const { auth: mine } = await seedSession(t.backend);
    const { auth: other } = await seedSession(t.backend, 'web');
    for (const garbage of ['not-a-token', '', 'a.b', 'x'.repeat(4096), 'ünïcødé ☃', `${mine.refresh_token}x`, mine.access_token]) {
      const res = await t.client.post('/api/v1/auth/logout', { refresh_token: garbage });
      expect(res.status, JSON.stringify(garbage).slice(0, 40)).to.equal(200);
      expect(res.body).to.deep.equal({ ok: true });
    }
    expect(await sessionCount(t, { revoked_at: null })).to.equal(2);
    // Both sessions still refresh: nothing was revoked.
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: mine.refresh_token })).status).to.equal(200);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: other.refresh_token })).status).to.equal(200);
    // Refresh keeps refusing what is not a JWT.
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: 'not-a-token' })).status).to.equal(400);
  });

  it('a logout body without a string refresh_token, or an over-long one, is 400 and changes nothing', async () => {
    await seedSession(t.backend);
    for (const body of [{}, { refresh_token: 5 }, { refresh_token: null }, { refresh_token: ['x'] }, { refresh_token: 'x'.repeat(4097) }]) {
      const res = await t.client.post('/api/v1/auth/logout', body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.details[0].path).to.equal('body.refresh_token');
    }
    expect(await sessionCount(t, { revoked_at: null })).to.equal(1);
  });

  it('me returns the user; the guard answers 401 for missing, malformed and foreign-scheme tokens', async () => {
    const { id } = await seedUser(t.backend, { username: 'alice', premiumUntil: new Date('2026-02-01T00:00:00Z') });
    const auth = await t.backend.sessions.start(id, 'nostr');
    const me = await t.client.get('/api/v1/auth/me', { token: auth.access_token });
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.equal({
      id,
      username: 'alice',
      nostr_pubkey: null,
      premium_until: '2026-02-01T00:00:00.000Z',
      premium_active: true,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    for (const authorization of [undefined, 'Bearer', 'Bearer x.y.z', `Basic ${auth.access_token}`, `Bearer  ${auth.access_token}`]) {
      const res = await t.client.get('/api/v1/auth/me', { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).to.equal(401);
      expect(res.body.error.code).to.equal('unauthorized');
    }
  });

  it('a malformed refresh body is 400 with details and changes nothing', async () => {
    const { auth } = await seedSession(t.backend);
    for (const body of [{}, { refresh_token: 5 }, { refresh_token: '' }, { refresh_token: 'x'.repeat(5000) }, { refresh_token: 'a.b' }]) {
      const res = await t.client.post('/api/v1/auth/refresh', body);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.details[0].path).to.equal('body.refresh_token');
    }
    expect(await sessionCount(t, { revoked_at: null })).to.equal(1);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(200);
  });

  it('never logs tokens', async () => {
    const { auth } = await seedSession(t.backend);
    await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
    await t.client.get('/api/v1/auth/me', { token: auth.access_token });
    expect(t.logger.text()).to.not.include(auth.refresh_token);
    expect(t.logger.text()).to.not.include(auth.access_token);
    expect(t.logger.lines.filter((l) => l.msg === 'request')).to.have.length(2);
  });

  it('logout revokes only its own session: other sessions of the same user and of other users keep working', async () => {
    const { userId, auth: mine } = await seedSession(t.backend, 'web');
    const second = await t.backend.sessions.start(userId, 'extension');
    const third = await t.backend.sessions.start(userId, 'nostr');
    const { auth: stranger } = await seedSession(t.backend, 'web');
    expect((await t.client.post('/api/v1/auth/logout', { refresh_token: second.refresh_token })).status).to.equal(200);
    expect(await sessionCount(t, { revoked_at: null })).to.equal(3);
    expect((await t.client.get('/api/v1/auth/me', { token: second.access_token })).status).to.equal(401);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: second.refresh_token })).status).to.equal(401);
    for (const [name, auth] of [['same user, first', mine], ['same user, third', third], ['other user', stranger]] as const) {
      const me = await t.client.get('/api/v1/auth/me', { token: auth.access_token });
      expect(me.status, name).to.equal(200);
      expect(me.body.id, name).to.equal(auth.user_id);
      expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status, name).to.equal(200);
    }
  });

  it('the bearer guard is anchored: one "Bearer", one space, the token, nothing else', async () => {
    const { auth } = await seedSession(t.backend);
    const jwt = auth.access_token;
    expect((await t.client.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${jwt}` } })).status).to.equal(200);
    // The scheme is matched case-sensitively: RFC 7235 makes it case-insensitive, the guard does
    // not (every client library sends "Bearer"), so `bearer` is refused like any other scheme.
    for (const authorization of [`XBearer ${jwt}`, `Bearer ${jwt} x`, `Bearer ${jwt}x.y`, `bearer ${jwt}`, `BEARER ${jwt}`, `Bearer  ${jwt}`, `Bearer\t${jwt}`, `Bearer ${jwt},Bearer ${jwt}`, `x Bearer ${jwt}`]) {
      const res = await t.client.get('/api/v1/auth/me', { headers: { authorization } });
      expect(res.status, authorization.replace(jwt, '<jwt>')).to.equal(401);
      expect(res.body.error.code).to.equal('unauthorized');
    }
  });

  it('revokeAllForUser revokes every live session of that user, no other, and returns how many', async () => {
    const { userId, auth: first } = await seedSession(t.backend, 'web');
    const second = await t.backend.sessions.start(userId, 'extension');
    const loggedOut = await t.backend.sessions.start(userId, 'nostr');
    await t.backend.sessions.logout(loggedOut.refresh_token);
    const { userId: otherId, auth: other } = await seedSession(t.backend, 'web');
    t.clock.advance(5_000);

    // Inside a transaction that rolls back, nothing happens.
    const undone = await t.backend.db
      .transaction(async (trx) => {
        expect(await t.backend.sessions.revokeAllForUser(userId, trx)).to.equal(2);
        throw new Error('roll back');
      })
      .catch((err: Error) => err.message);
    expect(undone).to.equal('roll back');
    expect((await t.client.get('/api/v1/auth/me', { token: first.access_token })).status).to.equal(200);

    expect(await t.backend.sessions.revokeAllForUser(userId)).to.equal(2);
    const rows = await t.backend.db.knex('sessions').where({ user_id: userId }).select('revoked_at');
    expect(rows).to.have.length(3);
    for (const row of rows) expect(row.revoked_at).to.not.equal(null);
    for (const auth of [first, second]) {
      expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(401);
      expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(401);
    }
    expect(await sessionCount(t, { user_id: otherId, revoked_at: null })).to.equal(1);
    expect((await t.client.get('/api/v1/auth/me', { token: other.access_token })).status).to.equal(200);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: other.refresh_token })).status).to.equal(200);
    // Idempotent: nothing left to revoke.
    expect(await t.backend.sessions.revokeAllForUser(userId)).to.equal(0);
    expect(await t.backend.sessions.revokeAllForUser(otherId)).to.equal(1);
  });
});
