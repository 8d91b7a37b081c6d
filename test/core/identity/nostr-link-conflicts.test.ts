import { expect } from 'chai';
import BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { NostrIdentityService, type NostrDeps } from '../../../packages/core/src/identity/nostr-service.js';
import { eachDialect, NostrKey, seedSession, seedUser, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * POST /auth/nostr/link when the npub is already taken: by the bearer's own account (idempotent
 * 200), by another account (409 nostr_already_linked), and by another account that links it
 * between this request's read and its write (a race: still 409 nostr_already_linked, never a
 * 500 or another code). The race is forced, not hoped for: the other account's link is written
 * at the moment the backend sends its UPDATE.
 */

const LINK = '/api/v1/auth/nostr/link';

async function linkNonce(t: TestBackend, token: string): Promise<string> {
  const res = await t.client.get('/api/v1/auth/nostr/link-challenge', { token });
  expect(res.status).to.equal(200);
  return res.body.nonce;
}

async function linkAs(t: TestBackend, token: string, nostr: NostrKey) {
  const nonce = await linkNonce(t, token);
  return t.client.post(LINK, { nostr_token: nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce }, { token });
}

async function nostrOf(t: TestBackend, userId: string): Promise<string | null> {
  return (await t.backend.db.knex('users').where({ id: userId }).first()).nostr_pubkey;
}

type QueryEvent = { sql: string; bindings?: readonly unknown[] };

/**
 * Calls `hook` once, synchronously, when the backend is about to send a write of `pubkey` into
 * `users` (knex emits `query` before it runs the query). Returns whether it fired.
 */
function beforeUsersWrite(t: TestBackend, verb: 'update' | 'insert', pubkey: string, hook: () => void): { fired: () => boolean; remove: () => void } {
  let fired = false;
  const knex = t.backend.db.knex;
  const listener = (query: QueryEvent) => {
    if (fired || !query.sql.toLowerCase().startsWith(`${verb} `) || !/\busers\b/.test(query.sql) || !(query.bindings ?? []).includes(pubkey)) return;
    fired = true;
    hook();
  };
  knex.on('query', listener);
  return { fired: () => fired, remove: () => void knex.removeListener('query', listener) };
}

/**
 * Links `pubkey` to `otherUserId` from outside the backend, landing exactly between the backend's
 * read and its write. SQLite: a second connection writes and commits synchronously inside the
 * query hook, before the backend's UPDATE runs. Postgres: a transaction writes before the request
 * (uncommitted, so the backend's read sees no holder) and commits from the hook; the backend's
 * UPDATE waits for it on the unique index, then collides.
 */
async function linkElsewhereMidRequest(t: TestBackend, otherUserId: string, pubkey: string): Promise<{ fired: () => boolean; settle: () => Promise<void> }> {
  if (t.dialect === 'sqlite') {
    const file = t.databaseUrl.slice('sqlite:'.length);
    const other = new BetterSqlite3(file);
    other.pragma('busy_timeout = 5000');
    const hook = beforeUsersWrite(t, 'update', pubkey, () => {
      other.prepare('update users set nostr_pubkey = ? where id = ?').run(pubkey, otherUserId);
    });
    return {
      fired: hook.fired,
      settle: async () => {
        hook.remove();
        other.close();
      },
    };
  }
  const trx: Knex.Transaction = await t.backend.db.knex.transaction();
  await trx('users').where({ id: otherUserId }).update({ nostr_pubkey: pubkey });
  let committed: Promise<unknown> | undefined;
  const hook = beforeUsersWrite(t, 'update', pubkey, () => {
    committed = trx.commit();
  });
  return {
    fired: hook.fired,
    settle: async () => {
      hook.remove();
      if (committed === undefined) await trx.rollback();
      else await committed;
    },
  };
}

eachDialect('identity: Nostr link when the npub is taken', (dialect) => {
  const t = useTestBackend(dialect);

  it('linking the npub the account already holds is an idempotent 200 with the npub', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const nostr = new NostrKey();
    expect((await linkAs(t, auth.access_token, nostr)).status).to.equal(200);
    t.clock.advance(1000);
    const again = await linkAs(t, auth.access_token, nostr);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body).to.deep.equal({ nostr_pubkey: nostr.pubkey });
    expect(await nostrOf(t, userId)).to.equal(nostr.pubkey);
  });

  it('an npub linked to another account is 409 nostr_already_linked and changes neither account', async () => {
    const nostr = new NostrKey();
    const holder = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const { userId, auth } = await seedSession(t.backend);
    const res = await linkAs(t, auth.access_token, nostr);
    expect(res.status).to.equal(409);
    expect(res.body.error).to.deep.equal({ code: 'nostr_already_linked', message: 'This Nostr identity is linked to another account.' });
    expect(await nostrOf(t, holder.id)).to.equal(nostr.pubkey);
    expect(await nostrOf(t, userId)).to.equal(null);
  });

  it('an account that holds another npub is 409 account_nostr_linked', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const first = new NostrKey();
    expect((await linkAs(t, auth.access_token, first)).status).to.equal(200);
    const res = await linkAs(t, auth.access_token, new NostrKey());
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('account_nostr_linked');
    expect(await nostrOf(t, userId)).to.equal(first.pubkey);
  });

  it('another account linking the npub between our read and our write is 409 nostr_already_linked, not a 500', async () => {
    const nostr = new NostrKey();
    const other = await seedUser(t.backend);
    const { userId, auth } = await seedSession(t.backend);
    const nonce = await linkNonce(t, auth.access_token);
    const race = await linkElsewhereMidRequest(t, other.id, nostr.pubkey);
    let res;
    try {
      res = await t.client.post(LINK, { nostr_token: nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce }, { token: auth.access_token });
    } finally {
      await race.settle();
    }
    expect(race.fired(), 'the other link landed between the read and the write').to.equal(true);
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error).to.deep.equal({ code: 'nostr_already_linked', message: 'This Nostr identity is linked to another account.' });
    expect(await nostrOf(t, other.id)).to.equal(nostr.pubkey);
    expect(await nostrOf(t, userId)).to.equal(null);
  });

  it('many accounts linking one npub at once: exactly one wins, every other is 409 nostr_already_linked', async () => {
    const nostr = new NostrKey();
    const sessions = await Promise.all(Array.from({ length: 8 }, () => seedSession(t.backend)));
    // Nonces first, so the links themselves start together.
    const nonces = await Promise.all(sessions.map((s) => linkNonce(t, s.auth.access_token)));
    const results = await Promise.all(
      sessions.map((s, i) => t.client.post(LINK, { nostr_token: nostr.signedAction(LINK, nonces[i]!, 'nostr_link', t.clock.now()), nonce: nonces[i] }, { token: s.auth.access_token })),
    );
    const winners = results.flatMap((r, i) => (r.status === 200 ? [sessions[i]!.userId] : []));
    expect(winners, JSON.stringify(results.map((r) => r.body))).to.have.length(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).to.equal(409);
      expect(r.body.error.code).to.equal('nostr_already_linked');
    }
    const holders = await t.backend.db.knex('users').where({ nostr_pubkey: nostr.pubkey }).select('id');
    expect(holders).to.deep.equal([{ id: winners[0] }]);
  });
});

describe('identity: NostrIdentityService.link, errors of the linking write', () => {
  const pubkey = 'ab'.repeat(32);
  function service(linkNostr: () => Promise<boolean>): NostrIdentityService {
    const deps = {
      signedActions: { verify: async () => ({ pubkey }) },
      identities: { byNostr: async () => null, linkNostr },
    } as unknown as NostrDeps;
    return new NostrIdentityService(deps);
  }
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('the link should have failed'),
      (e: unknown) => e as { code?: string; status?: number; cause?: unknown },
    );

  it('a unique violation is 409 nostr_already_linked carrying the database error as its cause', async () => {
    const violation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const err = await failure(service(async () => Promise.reject(violation)).link('user-1', 'token', 'nonce'));
    expect(err.code).to.equal('nostr_already_linked');
    expect(err.status).to.equal(409);
    expect(err.cause).to.equal(violation);
  });

  it('any other error of the write is passed on unchanged', async () => {
    const broken = Object.assign(new Error('connection terminated'), { code: '57P01' });
    const err = await failure(service(async () => Promise.reject(broken)).link('user-1', 'token', 'nonce'));
    expect(err).to.equal(broken);
  });
});
