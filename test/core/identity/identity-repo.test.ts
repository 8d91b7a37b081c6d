import { expect } from 'chai';
import { IdentityRepository, type IdentityRow } from '../../../packages/core/src/identity/index.js';
import { eachDialect, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * The identity columns' conditional updates, called directly: each touches only the named
 * account, and only while that account is in the state the update expects (the login paths
 * that use them rarely reach the refusing branch, and never with a second account in reach).
 */

/** Every account's identity columns, by id. */
async function identities(t: TestBackend): Promise<IdentityRow[]> {
  return (await t.backend.db.knex('users').select('id', 'pubkey_hash', 'seed_fingerprint', 'nostr_pubkey').orderBy('id')) as IdentityRow[];
}

/** `rows` with the listed accounts' columns replaced. */
function changed(rows: IdentityRow[], changes: Record<string, Partial<IdentityRow>>): IdentityRow[] {
  return rows.map((row) => ({ ...row, ...changes[row.id] }));
}

const H = (n: number) => `${n}`.repeat(64).slice(0, 64);

eachDialect('identity: the identity repository’s conditional updates', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });
  const repo = () => new IdentityRepository(t.backend.db, t.clock);

  it('repoint moves only the named account, only while it still holds the expected pubkey_hash', async () => {
    const r = repo();
    const alice = await r.create({ pubkeyHash: H(1), seedFingerprint: 'a'.repeat(64) });
    const bob = await r.create({ pubkeyHash: H(2), seedFingerprint: 'b'.repeat(64) });
    const before = await identities(t);

    // Bob does not hold H(1): nothing moves, not even Alice, who does.
    expect(await r.repoint(bob, H(1), H(3))).to.equal(false);
    expect(await identities(t)).to.deep.equal(before);

    expect(await r.repoint(alice, H(1), H(3))).to.equal(true);
    const moved = changed(before, { [alice]: { pubkey_hash: H(3) } });
    expect(await identities(t)).to.deep.equal(moved);

    // A stale expected value (Alice moved on from H(1)): refused, her row unchanged.
    expect(await r.repoint(alice, H(1), H(4))).to.equal(false);
    // Expecting "no pubkey_hash" of an account that has one: refused too.
    expect(await r.repoint(alice, null, H(4))).to.equal(false);
    expect(await r.repoint(bob, null, H(4))).to.equal(false);
    expect(await identities(t)).to.deep.equal(moved);
  });

  it('repoint from no pubkey_hash sets it on the named account only, and only once', async () => {
    const r = repo();
    await r.create({ pubkeyHash: H(1) });
    const carol = await r.create({ nostrPubkey: 'c'.repeat(64) });
    await r.create({ nostrPubkey: 'd'.repeat(64) });
    const before = await identities(t);

    expect(await r.repoint(carol, null, H(5))).to.equal(true);
    const after = changed(before, { [carol]: { pubkey_hash: H(5) } });
    expect(await identities(t)).to.deep.equal(after);
    expect(await r.repoint(carol, null, H(6)), 'carol has one now').to.equal(false);
    expect(await identities(t)).to.deep.equal(after);
  });

  it('linkNostr sets the npub only on the named account, and answers false when it already has one', async () => {
    const r = repo();
    const alice = await r.create({ pubkeyHash: H(1) });
    const bob = await r.create({ pubkeyHash: H(2) });
    const before = await identities(t);

    expect(await r.linkNostr(alice, 'e'.repeat(64))).to.equal(true);
    const linked = changed(before, { [alice]: { nostr_pubkey: 'e'.repeat(64) } });
    expect(await identities(t)).to.deep.equal(linked);
    expect(await r.linkNostr(alice, 'f'.repeat(64))).to.equal(false);
    expect(await identities(t)).to.deep.equal(linked);
    expect(await r.linkNostr(bob, 'f'.repeat(64))).to.equal(true);
    expect(await identities(t)).to.deep.equal(changed(linked, { [bob]: { nostr_pubkey: 'f'.repeat(64) } }));
  });

  it('adoptSeed records the seed on the named account only when it has none, never overwriting one', async () => {
    const r = repo();
    const seeded = await r.create({ pubkeyHash: H(1), seedFingerprint: 'a'.repeat(64) });
    const carol = await r.create({ nostrPubkey: 'c'.repeat(64) });
    await r.create({ nostrPubkey: 'd'.repeat(64) });
    const before = await identities(t);

    await r.adoptSeed(seeded, '9'.repeat(64));
    expect(await identities(t), 'an existing seed is kept').to.deep.equal(before);

    await r.adoptSeed(carol, '8'.repeat(64));
    const adopted = changed(before, { [carol]: { seed_fingerprint: '8'.repeat(64) } });
    expect(await identities(t), 'dave keeps no seed').to.deep.equal(adopted);

    await r.adoptSeed(carol, '7'.repeat(64));
    expect(await identities(t)).to.deep.equal(adopted);
  });

  it('adoptPubkeyHash sets it on the named account only when it has none; false for an account that has one', async () => {
    const r = repo();
    const alice = await r.create({ pubkeyHash: H(1) });
    await r.create({ nostrPubkey: 'c'.repeat(64) });
    const dave = await r.create({ nostrPubkey: 'd'.repeat(64) });
    const before = await identities(t);

    // Alice has a pubkey_hash: refused, and no other account takes the value instead.
    expect(await r.adoptPubkeyHash(alice, H(5))).to.equal(false);
    expect(await identities(t)).to.deep.equal(before);

    expect(await r.adoptPubkeyHash(dave, H(5))).to.equal(true);
    const adopted = changed(before, { [dave]: { pubkey_hash: H(5) } });
    expect(await identities(t)).to.deep.equal(adopted);
    expect(await r.adoptPubkeyHash(dave, H(6))).to.equal(false);
    expect(await identities(t)).to.deep.equal(adopted);
  });
});

/** One account's identity columns, read straight from `users`. */
async function identity(t: TestBackend, id: string): Promise<IdentityRow | undefined> {
  return (await t.backend.db.knex('users').select('id', 'pubkey_hash', 'seed_fingerprint', 'nostr_pubkey').where({ id }).first()) as IdentityRow | undefined;
}

eachDialect('identity: the identity repository’s new accounts and lookups', (dialect) => {
  const t = useTestBackend(dialect, { listen: false });
  const repo = () => new IdentityRepository(t.backend.db, t.clock);

  it('create stores exactly the identity columns it is given, and null for the others', async () => {
    const r = repo();
    const full = await r.create({ pubkeyHash: H(1), seedFingerprint: 'a'.repeat(64), nostrPubkey: 'b'.repeat(64) });
    const npub = await r.create({ nostrPubkey: 'c'.repeat(64) });
    const seeded = await r.create({ seedFingerprint: 'd'.repeat(64), nostrPubkey: null });
    const bare = await r.create({});
    expect(await identity(t, full)).to.deep.equal({ id: full, pubkey_hash: H(1), seed_fingerprint: 'a'.repeat(64), nostr_pubkey: 'b'.repeat(64) });
    expect(await identity(t, npub)).to.deep.equal({ id: npub, pubkey_hash: null, seed_fingerprint: null, nostr_pubkey: 'c'.repeat(64) });
    expect(await identity(t, seeded)).to.deep.equal({ id: seeded, pubkey_hash: null, seed_fingerprint: 'd'.repeat(64), nostr_pubkey: null });
    expect(await identity(t, bare)).to.deep.equal({ id: bare, pubkey_hash: null, seed_fingerprint: null, nostr_pubkey: null });
  });

  it('byPubkeyHash and byNostr find the account holding that value, and answer null (not undefined) for none', async () => {
    const r = repo();
    const alice = await r.create({ pubkeyHash: H(1), seedFingerprint: 'a'.repeat(64), nostrPubkey: 'b'.repeat(64) });
    const bob = await r.create({ pubkeyHash: H(2) });
    const aliceRow = { id: alice, pubkey_hash: H(1), seed_fingerprint: 'a'.repeat(64), nostr_pubkey: 'b'.repeat(64) };

    expect(await r.byPubkeyHash(H(1))).to.deep.equal(aliceRow);
    expect(await r.byPubkeyHash(H(2))).to.deep.equal({ id: bob, pubkey_hash: H(2), seed_fingerprint: null, nostr_pubkey: null });
    expect(await r.byPubkeyHash(H(3))).to.equal(null);
    expect(await r.byPubkeyHash('b'.repeat(64)), 'an npub is not a pubkey_hash').to.equal(null);

    expect(await r.byNostr('b'.repeat(64))).to.deep.equal(aliceRow);
    expect(await r.byNostr('c'.repeat(64))).to.equal(null);
    expect(await r.byNostr(H(1)), 'a pubkey_hash is not an npub').to.equal(null);
  });

  it('bySeed lists the accounts of that seed only, newest first, then by id; none is an empty list', async () => {
    const r = repo();
    const row = (id: string, seed: string): IdentityRow => ({ id, pubkey_hash: null, seed_fingerprint: seed, nostr_pubkey: null });
    const oldest = await r.create({ seedFingerprint: 'a'.repeat(64) });
    await r.create({ seedFingerprint: 'b'.repeat(64) });
    t.clock.advance(1000);
    const twins = [await r.create({ seedFingerprint: 'a'.repeat(64) }), await r.create({ seedFingerprint: 'a'.repeat(64) })].sort().reverse();
    t.clock.advance(1000);
    const newest = await r.create({ seedFingerprint: 'a'.repeat(64) });

    expect(await r.bySeed('a'.repeat(64))).to.deep.equal([newest, ...twins, oldest].map((id) => row(id, 'a'.repeat(64))));
    expect(await r.bySeed('c'.repeat(64))).to.deep.equal([]);
  });

  it('bySeed considers at most the 20 newest accounts of one seed', async () => {
    const r = repo();
    const created: string[] = [];
    for (let i = 0; i < 21; i += 1) {
      created.push(await r.create({ seedFingerprint: 'a'.repeat(64) }));
      t.clock.advance(1000);
    }
    const found = await r.bySeed('a'.repeat(64));
    expect(found.map((account) => account.id)).to.deep.equal(created.slice(1).reverse());
  });
});
