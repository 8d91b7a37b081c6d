import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DirectoryService, Nip05Cache, type KeyRepository } from '../../../packages/core/src/directory/index.js';
import type { Database } from '../../../packages/core/src/storage/index.js';
import { ManualClock } from '@wallet/backend-core/testing';
import { eachDialect, GrinKey, NostrKey, seedUser, TEST_PUBLIC_API_URL, useTestBackend } from '../../harness/index.js';

/**
 * The directory's lookups name an account only through what the account holds. Each test here
 * fails on a change the rest of the suite let through (mutation testing of directory-service.ts):
 * an invalid handle looked up anyway matches every account WITHOUT a username (knex turns
 * `username: null` into IS NULL), and an owner erased between two reads was still reported.
 */
eachDialect('directory: lookups never resolve through an absent value', (dialect) => {
  const t = useTestBackend(dialect, { settings: { nip05Relays: ['wss://relay.example'] } });

  it('an invalid handle resolves nobody, even beside accounts without a username', async () => {
    // Accounts without a username, one with a linked Nostr key and one with a receiving key.
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const { id } = await seedUser(t.backend);
    const now = t.backend.db.dialect.time(t.clock.now());
    await t.backend.db.knex('user_keys').insert({ id: randomUUID(), user_id: id, asset: 'grin', key_type: 'primary', public_key: new GrinKey().publicKeyHex, public_spend_key: null, created_at: now, updated_at: now });

    for (const path of ['/api/v1/usernames', '/api/v1/users/by-username']) {
      const odd = await t.client.get(`${path}/${encodeURIComponent('Not A Name')}`);
      expect(odd.status, path).to.equal(200);
      expect(odd.body, path).to.deep.equal({ registered: false, username: 'not a name', user_id: null, keys: [] });
      // An over-long handle is echoed cut to 64 characters, lower-cased.
      const long = await t.client.get(`${path}/${'X'.repeat(100)}`);
      expect(long.body, path).to.deep.equal({ registered: false, username: 'x'.repeat(64), user_id: null, keys: [] });
    }
    for (const query of ['?name=Not%20A%20Name', `?name=${'x'.repeat(100)}`, '?name=-']) {
      const res = await t.client.get(`/.well-known/nostr.json${query}`);
      expect(res.status, query).to.equal(200);
      expect(res.body, query).to.deep.equal({ names: {}, relays: {} });
    }
  });

  it('Grin address lookup: an owner erased between the proof read and the account read is nobody', async () => {
    const ghost = randomUUID();
    const keys = { provenOwner: async () => ghost } as unknown as KeyRepository;
    const directory = new DirectoryService(t.backend.db, keys, 'mainnet', [], TEST_PUBLIC_API_URL, new Nip05Cache(() => 0, t.clock));
    expect(await directory.grinAddressOwner(new GrinKey().slatepackAddress)).to.deep.equal({ registered: false, user_id: null, username: null });
  });
});

describe('directory: Grin address lookup of an address nobody proved', () => {
  it('answers nobody from the proof read alone: the account table is not read', async () => {
    const keys = { provenOwner: async () => null } as unknown as KeyRepository;
    const db = {
      knex: () => {
        throw new Error('the users table was read for an address nobody proved');
      },
    } as unknown as Database;
    const directory = new DirectoryService(db, keys, 'mainnet', [], TEST_PUBLIC_API_URL, new Nip05Cache(() => 0, new ManualClock()));
    expect(await directory.grinAddressOwner(new GrinKey().slatepackAddress)).to.deep.equal({ registered: false, user_id: null, username: null });
  });
});
