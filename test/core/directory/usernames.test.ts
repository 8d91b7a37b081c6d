import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RESERVED_USERNAMES, UsernameService } from '../../../packages/core/src/directory/index.js';
import { isUniqueViolation, type Database } from '../../../packages/core/src/storage/index.js';
import { eachDialect, seedSession, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * Usernames decide who a handle (and a NIP-05 name) resolves to (issue 29 item 11: a mutation
 * target). The reserved list and the form are written out here, independently of the code.
 */
const RESERVED = [
  'abuse', 'admin', 'administrator', 'anonymous', 'api', 'backend', 'billing', 'help', 'hostmaster', 'info', 'invite',
  'login', 'logout', 'mail', 'me', 'moderator', 'noreply', 'no_reply', 'nostr', 'null', 'official', 'operator', 'owner',
  'payments', 'postmaster', 'premium', 'register', 'relay', 'root', 'security', 'staff', 'support', 'sysadmin', 'system',
  'tips', 'undefined', 'user', 'users', 'wallet', 'webmaster', 'www',
];

async function usernameOf(t: TestBackend, userId: string): Promise<string | null> {
  const row = (await t.backend.db.knex('users').select('username').where({ id: userId }).first()) as { username: string | null };
  return row.username;
}

describe('directory: the reserved handles', () => {
  it('the exported set is exactly the documented list', () => {
    expect([...RESERVED_USERNAMES].sort()).to.deep.equal([...RESERVED].sort());
  });
});

eachDialect('directory: username rules', (dialect) => {
  const t = useTestBackend(dialect);

  it('every reserved handle, in any case, is 409 username_unavailable and leaves the account as it was', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const set = (username: string) => t.client.post('/api/v1/users/me/username', { username }, { token: auth.access_token });
    expect((await set('keeper')).status).to.equal(200);
    // `me` is shorter than any handle may be: the form refuses it first (400), which is covered below.
    for (const name of RESERVED.filter((reserved) => reserved.length >= 3)) {
      for (const variant of [name, name.toUpperCase()]) {
        const res = await set(variant);
        expect([res.status, res.body.error?.code], variant).to.deep.equal([409, 'username_unavailable']);
      }
    }
    expect(await usernameOf(t, userId)).to.equal('keeper');
    // A handle that merely contains a reserved word is an ordinary handle.
    expect((await set('admin_fan')).body).to.deep.equal({ username: 'admin_fan' });
  });

  it('the form: 3 to 30 of a-z, 0-9 and _, matched on the whole handle', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const set = (username: string) => t.client.post('/api/v1/users/me/username', { username }, { token: auth.access_token });
    for (const ok of ['abc', 'a'.repeat(30), 'Z_9']) {
      const res = await set(ok);
      expect(res.status, ok).to.equal(200);
      expect(res.body.username, ok).to.equal(ok.toLowerCase());
    }
    for (const bad of ['ab', 'me', 'a'.repeat(31), 'abc!', '!abc', 'ab c', 'abc\n', 'abç', 'a-b-c']) {
      const res = await set(bad);
      expect([res.status, res.body.error?.code], JSON.stringify(bad)).to.deep.equal([400, 'username_invalid']);
    }
    expect(await usernameOf(t, userId)).to.equal('z_9');
  });

  it('a taken handle is 409 carrying the unique violation as its cause; any other database failure is not a 409', async () => {
    let changes = 0;
    const service = new UsernameService(t.backend.db, t.clock, () => void (changes += 1));
    const first = await seedSession(t.backend);
    const second = await seedSession(t.backend);
    expect(await service.set(first.userId, 'taken_name')).to.deep.equal({ username: 'taken_name' });
    const conflict = await service.set(second.userId, 'TAKEN_NAME').then(
      () => null,
      (err: { code?: string; cause?: unknown }) => err,
    );
    expect(conflict?.code).to.equal('username_unavailable');
    expect(isUniqueViolation(conflict?.cause), 'the database error travels as the cause').to.equal(true);
    expect(changes).to.equal(1);

    // A failure that is not a unique violation (here: the write itself breaks) surfaces as itself, for a 500.
    const broken = { ...t.backend.db, knex: () => ({ where: () => ({ update: () => Promise.reject(new Error('disk full')) }) }) } as unknown as Database;
    const failing = new UsernameService(broken, t.clock, () => void (changes += 1));
    const failure = await failing.set(first.userId, 'other_name').then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).to.equal('disk full');
    expect(changes).to.equal(1);
  });

  it('an account without a row (erased meanwhile) reads as no username', async () => {
    const service = new UsernameService(t.backend.db, t.clock, () => undefined);
    expect(await service.get(randomUUID())).to.deep.equal({ username: null });
  });
});
