import { expect } from 'chai';
import { UserRepository } from '../../../packages/core/src/users/index.js';
import { eachDialect, seedSession, useTestBackend } from '../../harness/index.js';

eachDialect('auth routes: GET /auth/me when the user is gone', (dialect) => {
  const t = useTestBackend(dialect);
  const original = UserRepository.prototype.findInfo;

  afterEach(() => {
    UserRepository.prototype.findInfo = original;
  });

  it('a user deleted between the bearer guard and the lookup answers 401 unauthorized, not a body', async () => {
    const { userId, auth } = await seedSession(t.backend);
    // The race the handler guards against: the guard accepted the live session, then the user
    // (and, by cascade, the session) is deleted before the handler reads the user.
    let deleted = 0;
    UserRepository.prototype.findInfo = async function (this: UserRepository, id: string) {
      deleted += await t.backend.db.knex('users').where({ id }).delete();
      return original.call(this, id);
    };
    const res = await t.client.get('/api/v1/auth/me', { token: auth.access_token });
    expect(deleted).to.equal(1);
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('unauthorized');
    expect(res.body.error.message).to.equal('Missing or invalid access token.');
    expect(await t.backend.db.knex('users').where({ id: userId })).to.have.length(0);
  });
});
