import { expect } from 'chai';
import { SessionRepository } from '../../../packages/core/src/auth/index.js';
import { eachDialect, seedSession, useTestBackend } from '../../harness/index.js';

eachDialect('auth: session repository', (dialect) => {
  const t = useTestBackend(dialect);

  it('revokeByRefreshHash says whether a live session held the hash', async () => {
    const repo = new SessionRepository(t.backend.db);
    const { auth } = await seedSession(t.backend);
    const other = await seedSession(t.backend);
    const { refresh_token_hash: hash } = await t.backend.db.knex('sessions').where({ user_id: auth.user_id }).first();
    expect(await repo.revokeByRefreshHash(hash, t.clock.now())).to.equal(true);
    expect(await repo.revokeByRefreshHash(hash, t.clock.now()), 'already revoked').to.equal(false);
    expect(await repo.revokeByRefreshHash('0'.repeat(64), t.clock.now()), 'unknown').to.equal(false);
    expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: other.auth.refresh_token })).status).to.equal(200);
  });

  it('rotate revokes only the session matching hash, user, id and platform, and stores the successor only then', async () => {
    const repo = new SessionRepository(t.backend.db);
    const { auth } = await seedSession(t.backend, 'web');
    const stored = await t.backend.db.knex('sessions').where({ user_id: auth.user_id }).first();
    const match = { refreshTokenHash: stored.refresh_token_hash, userId: auth.user_id, sessionId: stored.id, platform: 'web' as const };
    const now = t.clock.now();
    const successor = (id: string) => ({
      id,
      userId: auth.user_id,
      platform: 'web' as const,
      refreshTokenHash: id.replace(/-/g, '').padEnd(64, '0'),
      createdAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000004'];
    const wrong = [
      { ...match, platform: 'extension' as const },
      { ...match, userId: ids[3]! },
      { ...match, sessionId: ids[3]! },
      { ...match, refreshTokenHash: '0'.repeat(64) },
    ];
    for (const [i, mismatch] of wrong.entries()) {
      expect(await repo.rotate(mismatch, successor(ids[i]!), now), JSON.stringify(mismatch)).to.equal(false);
    }
    expect(await t.backend.db.knex('sessions').count({ n: '*' }).first()).to.satisfy((row: { n: unknown }) => Number(row.n) === 1);
    expect(await repo.rotate(match, successor(ids[0]!), now)).to.equal(true);
    expect(await repo.rotate(match, successor(ids[1]!), now), 'already rotated').to.equal(false);
    const rows = await t.backend.db.knex('sessions').select('id', 'revoked_at').orderBy('created_at').orderBy('id');
    expect(rows.map((row: { id: string; revoked_at: unknown }) => [row.id, row.revoked_at === null])).to.have.deep.members([
      [stored.id, false],
      [ids[0], true],
    ]);
  });

  it('rotate refuses a session at its expiry instant, and rotates it a millisecond before', async () => {
    const repo = new SessionRepository(t.backend.db);
    const { auth } = await seedSession(t.backend, 'nostr');
    const stored = await t.backend.db.knex('sessions').where({ user_id: auth.user_id }).first();
    const match = { refreshTokenHash: stored.refresh_token_hash, userId: auth.user_id, sessionId: stored.id, platform: 'nostr' as const };
    const expiresAt = new Date(t.clock.now().getTime() + auth.refresh_expires_in * 1000);
    const successor = { id: '00000000-0000-4000-8000-000000000009', userId: auth.user_id, platform: 'nostr' as const, refreshTokenHash: '9'.repeat(64), createdAt: expiresAt, expiresAt };
    expect(await repo.rotate(match, successor, expiresAt), 'at the expiry instant').to.equal(false);
    expect(await repo.rotate(match, successor, new Date(expiresAt.getTime() - 1)), 'a millisecond before').to.equal(true);
  });
});
