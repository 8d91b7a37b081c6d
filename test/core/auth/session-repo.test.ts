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
});
