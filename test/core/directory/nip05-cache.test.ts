import { expect } from 'chai';
import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { ManualClock } from '@wallet/backend-core/testing';
import { Nip05Cache, type Nip05Document } from '../../../packages/core/src/directory/index.js';
import { eachDialect, NostrKey, seedSession, seedUser, useTestBackend, type TestBackend } from '../../harness/index.js';

const LINK = '/api/v1/auth/nostr/link';
const doc = (name: string, pubkey: string): Nip05Document => ({ names: { [name]: pubkey }, relays: {} });
const EMPTY: Nip05Document = { names: {}, relays: {} };

describe('NIP-05 cache (unit)', () => {
  const clock = new ManualClock();
  let loads = 0;
  const loader = (value: Nip05Document) => async () => {
    loads++;
    return value;
  };
  beforeEach(() => (loads = 0));

  it('serves a name from memory until its TTL ends, to the millisecond', async () => {
    const cache = new Nip05Cache(() => 30_000, clock);
    await cache.lookup('alice', loader(doc('alice', 'a')));
    clock.advance(29_999);
    expect(await cache.lookup('alice', loader(doc('alice', 'b')))).to.deep.equal(doc('alice', 'a'));
    clock.advance(1);
    expect(await cache.lookup('alice', loader(doc('alice', 'b')))).to.deep.equal(doc('alice', 'b'));
    expect(loads).to.equal(2);
  });

  it('a TTL of 0 keeps nothing', async () => {
    const cache = new Nip05Cache(() => 0, clock);
    await cache.lookup('alice', loader(doc('alice', 'a')));
    expect(await cache.lookup('alice', loader(doc('alice', 'b')))).to.deep.equal(doc('alice', 'b'));
    expect(loads).to.equal(2);
  });

  it('forgets everything at once, and again when the writing transaction ends', async () => {
    const cache = new Nip05Cache(() => 30_000, clock);
    await cache.lookup('alice', loader(doc('alice', 'a')));
    let commit!: () => void;
    const transaction = { isTransaction: true, executionPromise: new Promise<void>((resolve) => (commit = resolve)) };
    cache.forget(transaction as never);
    // Read while the transaction is still open: the old value, which must not outlive the commit.
    expect(await cache.lookup('alice', loader(doc('alice', 'old')))).to.deep.equal(doc('alice', 'old'));
    commit();
    await transaction.executionPromise;
    await Promise.resolve();
    expect(await cache.lookup('alice', loader(doc('alice', 'new')))).to.deep.equal(doc('alice', 'new'));
    expect(loads).to.equal(3);
  });

  it('forgets again when the writing transaction rolls back, and takes a transaction without a completion promise', async () => {
    const cache = new Nip05Cache(() => 30_000, clock);
    let rollback!: (err: Error) => void;
    const transaction = { isTransaction: true, executionPromise: new Promise<void>((_resolve, reject) => (rollback = reject)) };
    cache.forget(transaction as never);
    expect(await cache.lookup('alice', loader(doc('alice', 'during')))).to.deep.equal(doc('alice', 'during'));
    rollback(new Error('rolled back'));
    await transaction.executionPromise.catch(() => undefined);
    await Promise.resolve();
    expect(await cache.lookup('alice', loader(doc('alice', 'after')))).to.deep.equal(doc('alice', 'after'));
    expect(() => cache.forget({ isTransaction: true } as never)).to.not.throw();
    expect(loads).to.equal(2);
  });

  it('a lookup that was reading while a forget happened does not store what it read', async () => {
    const cache = new Nip05Cache(() => 30_000, clock);
    let release!: (value: Nip05Document) => void;
    const inFlight = cache.lookup('alice', () => new Promise<Nip05Document>((resolve) => (release = resolve)));
    cache.forget();
    release(doc('alice', 'before'));
    expect(await inFlight).to.deep.equal(doc('alice', 'before'));
    expect(await cache.lookup('alice', loader(doc('alice', 'after')))).to.deep.equal(doc('alice', 'after'));
    expect(loads).to.equal(1);
  });

  it('holds at most its bound of names, dropping the oldest first', async () => {
    const cache = new Nip05Cache(() => 30_000, clock, 3);
    for (const name of ['a', 'b', 'c', 'd']) await cache.lookup(name, loader(EMPTY));
    expect(loads).to.equal(4);
    await cache.lookup('d', loader(EMPTY));
    await cache.lookup('b', loader(EMPTY));
    expect(loads).to.equal(4);
    await cache.lookup('a', loader(EMPTY)); // dropped to make room for d
    expect(loads).to.equal(5);
  });
});

eachDialect('NIP-05 cache: this process forgets on its own writes, other writers are seen within the TTL', (dialect) => {
  let context: PluginContext | undefined;
  const capture: WalletPlugin = { name: 'nip05-cache-probe', setup: (ctx) => void (context = ctx) };
  const t = useTestBackend(dialect, { plugins: [capture] });
  const nip05 = async (target: TestBackend, name: string) => (await target.client.get(`/.well-known/nostr.json?name=${name}`)).body as Nip05Document;

  it('a username set through the API is served (and the old name freed) at once, on both mount points', async () => {
    const nostr = new NostrKey();
    const { userId, auth } = await seedSession(t.backend);
    await t.backend.db.knex('users').where({ id: userId }).update({ nostr_pubkey: nostr.pubkey });
    expect(await nip05(t, 'erin')).to.deep.equal(EMPTY); // cached as unknown
    expect((await t.client.post('/api/v1/users/me/username', { username: 'erin' }, { token: auth.access_token })).status).to.equal(200);
    expect(await nip05(t, 'erin')).to.deep.equal(doc('erin', nostr.pubkey));
    expect((await t.client.post('/api/v1/users/me/username', { username: 'erin2' }, { token: auth.access_token })).status).to.equal(200);
    expect(await nip05(t, 'erin')).to.deep.equal(EMPTY);
    expect((await t.client.get('/api/v1/.well-known/nostr.json?name=erin2')).body).to.deep.equal(doc('erin2', nostr.pubkey));
  });

  it('a Nostr key linked through the API is served at once', async () => {
    const { userId, auth } = await seedSession(t.backend);
    await t.backend.db.knex('users').where({ id: userId }).update({ username: 'fay' });
    expect(await nip05(t, 'fay')).to.deep.equal(EMPTY); // named, but no key yet: cached
    const nostr = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/link-challenge', { token: auth.access_token })).body.nonce as string;
    const res = await t.client.post(LINK, { nostr_token: nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce }, { token: auth.access_token });
    expect(res.status).to.equal(200);
    expect(await nip05(t, 'fay')).to.deep.equal(doc('fay', nostr.pubkey));
  });

  it('an account erased through the plugin contract stops resolving at once (forgotten again at commit)', async () => {
    const nostr = new NostrKey();
    const { id } = await seedUser(t.backend, { username: 'gus', nostrPubkey: nostr.pubkey });
    expect(await nip05(t, 'gus')).to.deep.equal(doc('gus', nostr.pubkey));
    await t.backend.db.knex.transaction(async (trx) => {
      expect(await context!.users.erase(trx, id, { loginEvents: 'purge' })).to.equal(true);
      // Looked up from outside the transaction before it commits: still there, and not kept past the commit.
      if (dialect === 'postgres') expect(await nip05(t, 'gus')).to.deep.equal(doc('gus', nostr.pubkey));
    });
    expect(await nip05(t, 'gus')).to.deep.equal(EMPTY);
  });

  it("another writer's change (the database changed directly) shows once the TTL (30 s by default) ends", async () => {
    const nostr = new NostrKey();
    const other = new NostrKey();
    const { id } = await seedUser(t.backend, { username: 'hal', nostrPubkey: nostr.pubkey });
    expect(await nip05(t, 'hal')).to.deep.equal(doc('hal', nostr.pubkey));
    await t.backend.db.knex('users').where({ id }).update({ nostr_pubkey: other.pubkey });
    t.clock.advance(29_999);
    expect(await nip05(t, 'hal')).to.deep.equal(doc('hal', nostr.pubkey));
    t.clock.advance(1);
    expect(await nip05(t, 'hal')).to.deep.equal(doc('hal', other.pubkey));
  });
});

eachDialect('NIP-05 cache off (NIP05_CACHE_TTL_SEC=0)', (dialect) => {
  const t = useTestBackend(dialect, { settings: { nip05CacheTtlSec: 0 } });

  it('every lookup reads the database', async () => {
    const nostr = new NostrKey();
    const { id } = await seedUser(t.backend, { username: 'ida', nostrPubkey: nostr.pubkey });
    expect((await t.client.get('/.well-known/nostr.json?name=ida')).body).to.deep.equal(doc('ida', nostr.pubkey));
    await t.backend.db.knex('users').where({ id }).update({ username: 'ida2' });
    expect((await t.client.get('/.well-known/nostr.json?name=ida')).body).to.deep.equal(EMPTY);
  });
});
