import { expect } from 'chai';
import { eachDialect, seedSession, useTestBackend, type TestBackend, type TestResponse } from '../../harness/index.js';

const LIMITED = { rateLimitMax: 3, rateLimitWindowSec: 60 };
/** A JWT-shaped token no session has: logout answers 200 for it without touching any row. */
const UNKNOWN_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.' + 'A'.repeat(43);

function logout(t: TestBackend, headers: Record<string, string> = {}, refreshToken = UNKNOWN_TOKEN): Promise<TestResponse> {
  return t.client.post('/api/v1/auth/logout', { refresh_token: refreshToken }, { headers });
}

function expectLimited(res: TestResponse, retryAfter?: string): void {
  expect(res.status, res.text).to.equal(429);
  expect(res.body.error.code).to.equal('rate_limited');
  expect(res.body.error).to.not.have.property('request_id');
  const header = res.headers.get('retry-after');
  expect(header).to.match(/^\d+$/);
  if (retryAfter !== undefined) expect(header).to.equal(retryAfter);
}

async function statuses(requests: Array<() => Promise<TestResponse>>): Promise<number[]> {
  const out: number[] = [];
  for (const send of requests) out.push((await send()).status);
  return out;
}

async function liveSessions(t: TestBackend): Promise<number> {
  const [row] = await t.backend.db.knex('sessions').whereNull('revoked_at').count({ n: '*' });
  return Number(row!.n);
}

eachDialect('unauthenticated rate limiter (no trusted proxy)', (dialect) => {
  const t = useTestBackend(dialect, { settings: LIMITED });

  it('the 4th request in a window is 429 rate_limited with Retry-After, and does no work', async () => {
    const { auth } = await seedSession(t.backend);
    expect(await statuses([() => logout(t), () => logout(t), () => logout(t)])).to.deep.equal([200, 200, 200]);
    const fourth = await logout(t, {}, auth.refresh_token);
    expectLimited(fourth, '60');
    // The refused logout revoked nothing.
    expect(await liveSessions(t)).to.equal(1);
    expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(200);
  });

  it('counts every unauthenticated route of one client together, even requests that fail validation', async () => {
    const invalid = await t.client.post('/api/v1/auth/refresh', { refresh_token: 'nope' });
    expect(invalid.status).to.equal(400);
    expect(invalid.body.error.code).to.equal('invalid_request');
    const empty = await t.client.post('/api/v1/auth/refresh', {});
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('invalid_request');
    expect((await logout(t)).status).to.equal(200);
    // The limiter runs before validation: a malformed body is still refused as rate limited.
    expectLimited(await t.client.post('/api/v1/auth/refresh', { refresh_token: 'nope' }));
    expectLimited(await logout(t));
  });

  it('X-Forwarded-For does not buy fresh quota when no proxy is trusted', async () => {
    const sent = await statuses([
      () => logout(t, { 'x-forwarded-for': '203.0.113.1' }),
      () => logout(t, { 'x-forwarded-for': '203.0.113.2' }),
      () => logout(t, { 'x-forwarded-for': '198.51.100.3, 203.0.113.3' }),
    ]);
    expect(sent).to.deep.equal([200, 200, 200]);
    expectLimited(await logout(t, { 'x-forwarded-for': '203.0.113.4' }));
    expectLimited(await logout(t, { 'x-forwarded-for': '10.9.8.7' }));
    expectLimited(await logout(t));
  });

  it('a new window gives a fresh quota; Retry-After counts down with the clock', async () => {
    expect(await statuses([() => logout(t), () => logout(t), () => logout(t)])).to.deep.equal([200, 200, 200]);
    expectLimited(await logout(t), '60');
    t.clock.advance(45_000);
    expectLimited(await logout(t), '15');
    t.clock.advance(14_999);
    expectLimited(await logout(t), '1');
    t.clock.advance(1);
    expect(await statuses([() => logout(t), () => logout(t), () => logout(t)])).to.deep.equal([200, 200, 200]);
    expectLimited(await logout(t), '60');
  });

  it('health, capabilities, the OpenAPI document and bearer routes are never limited', async () => {
    const { auth } = await seedSession(t.backend);
    expect(await statuses([() => logout(t), () => logout(t), () => logout(t)])).to.deep.equal([200, 200, 200]);
    expectLimited(await logout(t));
    for (let i = 0; i < 8; i++) {
      expect((await t.client.get('/api/v1/health')).status).to.equal(200);
      expect((await t.client.get('/api/v1/capabilities')).status).to.equal(200);
      expect((await t.client.get('/api/v1/openapi.json')).status).to.equal(200);
      expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(200);
      expect((await t.client.get('/api/v1/wallet/heights', { token: auth.access_token })).status).to.equal(200);
    }
    // A bearer route without a valid token answers 401, not 429.
    const anonymous = await t.client.get('/api/v1/auth/me');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error.code).to.equal('unauthorized');
  });
});

eachDialect('unauthenticated rate limiter behind a trusted proxy', (dialect) => {
  const t = useTestBackend(dialect, { settings: { ...LIMITED, trustedProxies: ['127.0.0.1'] } });
  const from = (xff: string) => () => logout(t, { 'x-forwarded-for': xff });

  it('distinct forwarded clients get separate quotas', async () => {
    expect(await statuses([from('203.0.113.5'), from('203.0.113.5'), from('203.0.113.5')])).to.deep.equal([200, 200, 200]);
    expectLimited(await from('203.0.113.5')());
    expect(await statuses([from('203.0.113.6'), from('203.0.113.6'), from('203.0.113.6')])).to.deep.equal([200, 200, 200]);
    expectLimited(await from('203.0.113.6')());
    // The proxy itself (no header) is a client of its own.
    expect((await logout(t)).status).to.equal(200);
  });

  it('entries a client prepends cannot evade its quota', async () => {
    expect(await statuses([from('203.0.113.5'), from('203.0.113.5'), from('203.0.113.5')])).to.deep.equal([200, 200, 200]);
    for (const spoofed of ['198.51.100.77, 203.0.113.5', '10.0.0.1, 192.0.2.9, 203.0.113.5', 'garbage, 203.0.113.5', '127.0.0.1, 203.0.113.5']) {
      expectLimited(await from(spoofed)());
    }
    // Another real client is unaffected.
    expect((await from('198.51.100.77')()).status).to.equal(200);
  });

  it('an IPv4-mapped forwarded address is the same client as its IPv4 form', async () => {
    expect(await statuses([from('203.0.113.8'), from('::ffff:203.0.113.8'), from('203.0.113.8')])).to.deep.equal([200, 200, 200]);
    expectLimited(await from('::FFFF:203.0.113.8')());
  });

  it('the window resets for every client after it passes', async () => {
    for (const client of ['203.0.113.5', '203.0.113.6']) {
      expect(await statuses([from(client), from(client), from(client)])).to.deep.equal([200, 200, 200]);
      expectLimited(await from(client)());
    }
    t.clock.advance(60_000);
    expect((await from('203.0.113.5')()).status).to.equal(200);
    expect((await from('203.0.113.6')()).status).to.equal(200);
  });
});
