import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { captureLogger } from '@wallet/backend-core/testing';
import { errorAnswer } from '../../../packages/core/src/http/boundary.js';
import { identityErrors } from '../../../packages/core/src/identity/errors.js';
import { isViolationOf, uniqueViolationOf } from '../../../packages/core/src/storage/index.js';
import { eachDialect, seedUser, useTestBackend } from '../../harness/index.js';

/**
 * Which unique key a violation is about, read the same way on both dialects from the real
 * database errors, so a login maps to a conflict only the collisions it can explain (issue: a
 * returning wallet's login got identity_conflict from an unrelated unique violation), and the
 * log names the index without the violating value.
 */

const SECRET_LOOKING = 'f00d'.repeat(16);

eachDialect('storage: uniqueViolationOf', (dialect) => {
  const t = useTestBackend(dialect);
  const caught = async (write: () => Promise<unknown>) => write().then(() => expect.fail('the write should have been refused'), (err: unknown) => err);

  it('a users.pubkey_hash collision: table and column, the index named, the value nowhere', async () => {
    const { id } = await seedUser(t.backend);
    await t.backend.db.knex('users').where({ id }).update({ pubkey_hash: SECRET_LOOKING });
    const { id: other } = await seedUser(t.backend);
    const err = await caught(() => t.backend.db.knex('users').where({ id: other }).update({ pubkey_hash: SECRET_LOOKING }));
    const violation = uniqueViolationOf(err);
    expect(violation).to.deep.equal({ table: 'users', columns: ['pubkey_hash'], name: dialect === 'postgres' ? 'users_pubkey_hash_unique' : 'users(pubkey_hash)' });
    expect(JSON.stringify(violation)).to.not.include(SECRET_LOOKING);
    expect(isViolationOf(violation, 'users', ['pubkey_hash'])).to.equal(true);
    expect(isViolationOf(violation, 'users', ['nostr_pubkey'])).to.equal(false);
    expect(isViolationOf(violation, 'user_keys', ['pubkey_hash'])).to.equal(false);
  });

  it('the partial unique index on proven keys: its three columns in index order', async () => {
    const row = (userId: string) => ({ id: randomUUID(), user_id: userId, asset: 'btc', key_type: 'primary', public_key: `02${'11'.repeat(32)}`, proven_at: t.backend.db.dialect.time(new Date()), created_at: t.backend.db.dialect.time(new Date()), updated_at: t.backend.db.dialect.time(new Date()) });
    await t.backend.db.knex('user_keys').insert(row((await seedUser(t.backend)).id));
    const err = await caught(async () => t.backend.db.knex('user_keys').insert(row((await seedUser(t.backend)).id)));
    const violation = uniqueViolationOf(err);
    expect(violation).to.deep.equal({ table: 'user_keys', columns: ['asset', 'key_type', 'public_key'], name: dialect === 'postgres' ? 'user_keys_proven_key' : 'user_keys(asset,key_type,public_key)' });
    expect(isViolationOf(violation, 'user_keys', ['asset', 'key_type', 'public_key'])).to.equal(true);
    expect(isViolationOf(violation, 'user_keys', ['asset', 'key_type'])).to.equal(false);
  });

  it('any other error is no unique violation', async () => {
    const err = await caught(() => t.backend.db.knex.raw('select * from no_such_table'));
    expect(uniqueViolationOf(err)).to.equal(null);
    expect(isViolationOf(uniqueViolationOf(err), 'users', ['pubkey_hash'])).to.equal(false);
  });

  it('a conflict a unique index decided is logged with the index’s name at warn, never the value', async () => {
    const { id } = await seedUser(t.backend);
    await t.backend.db.knex('users').where({ id }).update({ nostr_pubkey: SECRET_LOOKING });
    const { id: other } = await seedUser(t.backend);
    const cause = await caught(() => t.backend.db.knex('users').where({ id: other }).update({ nostr_pubkey: SECRET_LOOKING }));
    const logger = captureLogger();
    const answer = errorAnswer(identityErrors.create.identity_conflict({ cause }), { requestId: 'r-1', logger });
    expect(answer.status).to.equal(409);
    const warn = logger.lines.find((line) => line.level === 'warn');
    expect(warn).to.deep.include({ msg: 'unique violation answered as a conflict', code: 'identity_conflict', constraint: dialect === 'postgres' ? 'users_nostr_pubkey_unique' : 'users(nostr_pubkey)' });
    expect(logger.text()).to.not.include(SECRET_LOOKING);
  });
});
