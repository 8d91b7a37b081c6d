import { expect } from 'chai';
import { eachDialect, seedSession, useTestBackend } from '../../harness/index.js';

/** The body of a 400 the refresh/logout schemas answer: every issue with its literal message. */
function details(res: { status: number; body: any }): Array<{ path: string; message: string }> {
  expect(res.status).to.equal(400);
  expect(res.body.error.code).to.equal('invalid_request');
  return res.body.error.details;
}

const path = 'body.refresh_token';

eachDialect('auth schemas: refresh and logout bodies', (dialect) => {
  const t = useTestBackend(dialect);

  it('refresh: a non-string token is "must be a string"; a missing one valibot\'s missing-key message', async () => {
    const missing = await t.client.post('/api/v1/auth/refresh', {});
    expect(details(missing)).to.deep.equal([{ path, message: 'Invalid key: Expected "refresh_token" but received undefined' }]);
    for (const body of [{ refresh_token: 5 }, { refresh_token: null }, { refresh_token: ['a.b.c'] }]) {
      const res = await t.client.post('/api/v1/auth/refresh', body);
      expect(details(res), JSON.stringify(body)).to.deep.equal([{ path, message: 'must be a string' }]);
    }
  });

  it('refresh: an empty token is "must not be empty" and "must be a JWT"', async () => {
    const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: '' });
    expect(details(res)).to.deep.equal([
      { path, message: 'must not be empty' },
      { path, message: 'must be a JWT' },
    ]);
  });

  it('refresh: a JWT-shaped token of 4097 characters is "is too long"; one of 4096 reaches the verifier (401)', async () => {
    const long = `${'a'.repeat(4093)}.b.c`;
    expect(long).to.have.length(4097);
    expect(details(await t.client.post('/api/v1/auth/refresh', { refresh_token: long }))).to.deep.equal([{ path, message: 'is too long' }]);
    const limit = long.slice(1);
    expect(limit).to.have.length(4096);
    const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: limit });
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('invalid_refresh_token');
  });

  it('refresh: the JWT shape is three base64url segments, anchored at both ends', async () => {
    for (const token of ['a.b', 'a.b.c.d', '.b.c', 'a..c', 'a.b.', ' ab.cd.ef', 'ab.cd.ef ', 'x ab.cd.ef', 'ab.cd.ef x', 'ab.c+d.ef', 'ab/.cd.ef', 'ab.cd.e=f', 'abc']) {
      const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: token });
      expect(details(res), token).to.deep.equal([{ path, message: 'must be a JWT' }]);
    }
    // Every base64url character, several per segment, passes the shape and reaches the verifier.
    for (const token of ['ab.cd.ef', 'a.b.c', 'AZaz09_-.-_09zaZA.Zz9-_', `${'x'.repeat(20)}.${'y'.repeat(30)}.${'z'.repeat(43)}`]) {
      const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: token });
      expect(res.status, token).to.equal(401);
      expect(res.body.error.code, token).to.equal('invalid_refresh_token');
    }
  });

  it('refresh: a real refresh token passes the shape and rotates', async () => {
    const { auth } = await seedSession(t.backend, 'nostr');
    const res = await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['access_token', 'expires_in', 'platform', 'refresh_expires_in', 'refresh_token', 'token_type', 'user_id']);
    expect(res.body).to.include({ token_type: 'Bearer', platform: 'nostr', user_id: auth.user_id });
  });

  it('logout: a non-string token is "must be a string"; 4097 characters "is too long"; 4096 and "" answer 200', async () => {
    for (const body of [{ refresh_token: 5 }, { refresh_token: null }, { refresh_token: ['x'] }]) {
      const res = await t.client.post('/api/v1/auth/logout', body);
      expect(details(res), JSON.stringify(body)).to.deep.equal([{ path, message: 'must be a string' }]);
    }
    const long = await t.client.post('/api/v1/auth/logout', { refresh_token: 'x'.repeat(4097) });
    expect(details(long)).to.deep.equal([{ path, message: 'is too long' }]);
    for (const token of ['x'.repeat(4096), '']) {
      const res = await t.client.post('/api/v1/auth/logout', { refresh_token: token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ok: true });
    }
  });
});
