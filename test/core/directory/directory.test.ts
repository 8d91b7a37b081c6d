import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { encodeSlatepackAddress } from '../../../packages/core/src/crypto/index.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { BtcKey, CryptonoteKey, eachDialect, GrinKey, NostrKey, provenKeyBody, seedSession, seedUser, useTestBackend, type TestBackend } from '../../harness/index.js';

async function keyRows(t: TestBackend, userId: string) {
  return t.backend.db.knex('user_keys').where({ user_id: userId }).orderBy(['asset', 'key_type']).select('asset', 'key_type', 'public_key', 'public_spend_key');
}

eachDialect('directory: receiving keys', (dialect) => {
  const t = useTestBackend(dialect);

  it('upserts on (user, asset, key type) and routes Grin values by form', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const grin = new GrinKey();
    const address = encodeSlatepackAddress(hexToBytes(grin.publicKeyHex), 'grin');
    const post = (body: Record<string, unknown>) => t.client.post('/api/v1/keys', body, { token: auth.access_token });

    const primary = await post({ asset: 'grin', public_key: grin.publicKeyHex.toUpperCase() });
    expect(primary.status).to.equal(200);
    expect(primary.body).to.deep.equal({ asset: 'grin', key_type: 'primary', public_key: grin.publicKeyHex, public_spend_key: null, proven: false });
    const addr = await post({ asset: 'grin', public_key: address });
    expect(addr.body).to.include({ key_type: 'slatepack_address', public_key: address });
    const btc1 = new BtcKey();
    const btc2 = new BtcKey();
    await post({ asset: 'btc', public_key: btc1.publicKeyHex });
    await post({ asset: 'btc', public_key: btc2.publicKeyHex });
    expect(await keyRows(t, userId)).to.deep.equal([
      { asset: 'btc', key_type: 'primary', public_key: btc2.publicKeyHex, public_spend_key: null },
      { asset: 'grin', key_type: 'primary', public_key: grin.publicKeyHex, public_spend_key: null },
      { asset: 'grin', key_type: 'slatepack_address', public_key: address, public_spend_key: null },
    ]);
  });

  it('stores XMR/WOW addresses with their decoded spend key and refuses mismatches, other networks and junk', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const post = (body: Record<string, unknown>) => t.client.post('/api/v1/keys', body, { token: auth.access_token });
    const xmr = new CryptonoteKey('xmr');
    const spendHex = Buffer.from(xmr.publicSpendKey).toString('hex');
    const ok = await post({ asset: 'xmr', public_key: xmr.address(), public_spend_key: spendHex });
    expect(ok.status).to.equal(200);
    expect(ok.body.public_spend_key).to.equal(spendHex);
    const refusals = [
      { asset: 'xmr', public_key: xmr.address(), public_spend_key: 'ab'.repeat(32) },
      { asset: 'xmr', public_key: xmr.address('stagenet') },
      { asset: 'wow', public_key: xmr.address() },
      { asset: 'btc', public_key: '04' + 'ab'.repeat(64) },
      { asset: 'btc', public_key: new BtcKey().publicKeyHex, public_spend_key: spendHex },
      { asset: 'grin', public_key: 'tgrin1' + 'q'.repeat(52) },
      { asset: 'grin', public_key: encodeSlatepackAddress(xmr.publicSpendKey, 'tgrin') },
      { asset: 'grin', public_key: 'zz'.repeat(32) },
    ];
    for (const body of refusals) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('key_invalid');
    }
    const doge = await post({ asset: 'doge', public_key: 'x' });
    expect(doge.status).to.equal(400);
    expect(doge.body.error.code).to.equal('invalid_request');
    expect(await keyRows(t, userId)).to.have.length(1);
    expect((await t.client.post('/api/v1/keys', { asset: 'btc', public_key: new BtcKey().publicKeyHex })).status).to.equal(401);
  });

  it('lists keys publicly by user id; 400 for a bad UUID or asset, 404 for none', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const btc = new BtcKey();
    await t.client.post('/api/v1/keys', { asset: 'btc', public_key: btc.publicKeyHex }, { token: auth.access_token });
    const all = await t.client.get(`/api/v1/users/${userId}/keys`);
    expect(all.status).to.equal(200);
    expect(all.body).to.deep.equal({ user_id: userId, keys: [{ asset: 'btc', key_type: 'primary', public_key: btc.publicKeyHex, public_spend_key: null, proven: false }] });
    expect((await t.client.get(`/api/v1/users/${userId}/keys/btc`)).body.public_key).to.equal(btc.publicKeyHex);
    const none = await t.client.get(`/api/v1/users/${userId}/keys/ltc`);
    expect(none.status).to.equal(404);
    expect(none.body.error.code).to.equal('key_not_found');
    expect((await t.client.get('/api/v1/users/not-a-uuid/keys')).status).to.equal(400);
    expect((await t.client.get(`/api/v1/users/${userId}/keys/doge`)).status).to.equal(400);
    expect((await t.client.get('/api/v1/users/not-a-uuid/keys/btc')).status).to.equal(400);
    expect((await t.client.get(`/api/v1/users/${randomUUID()}/keys`)).body.keys).to.deep.equal([]);
  });
});

eachDialect('directory: usernames', (dialect) => {
  const t = useTestBackend(dialect);

  it('sets a lower-cased handle and reads it back', async () => {
    const { auth } = await seedSession(t.backend);
    expect((await t.client.get('/api/v1/users/me/username', { token: auth.access_token })).body).to.deep.equal({ username: null });
    const res = await t.client.post('/api/v1/users/me/username', { username: 'Satoshi_21' }, { token: auth.access_token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ username: 'satoshi_21' });
    expect((await t.client.get('/api/v1/users/me/username', { token: auth.access_token })).body).to.deep.equal({ username: 'satoshi_21' });
    expect((await t.client.get('/api/v1/users/me/username')).status).to.equal(401);
  });

  it('refuses invalid handles with 400 and taken or reserved ones with 409, changing nothing', async () => {
    const a = await seedSession(t.backend);
    const b = await seedSession(t.backend);
    await t.client.post('/api/v1/users/me/username', { username: 'alice' }, { token: a.auth.access_token });
    const set = (username: string) => t.client.post('/api/v1/users/me/username', { username }, { token: b.auth.access_token });
    for (const bad of ['ab', 'with space', 'dash-ed', 'x'.repeat(31), 'émile', '']) {
      const res = await set(bad);
      expect(res.status, bad).to.equal(400);
    }
    for (const taken of ['alice', 'ALICE', 'admin', 'Support']) {
      const res = await set(taken);
      expect(res.status, taken).to.equal(409);
      expect(res.body.error.code).to.equal('username_unavailable');
    }
    expect((await t.backend.db.knex('users').where({ id: b.userId }).first()).username).to.equal(null);
  });

  it('two users racing for one name: exactly one gets it, the rest 409 (never 500)', async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => seedSession(t.backend)));
    const results = await Promise.all(sessions.map((s) => t.client.post('/api/v1/users/me/username', { username: 'racer' }, { token: s.auth.access_token })));
    expect(results.filter((r) => r.status === 200)).to.have.length(1);
    expect(results.filter((r) => r.status === 409)).to.have.length(7);
  });

  it('looks up a handle case-insensitively, with a constant shape for unknown handles', async () => {
    const { userId, auth } = await seedSession(t.backend);
    await t.client.post('/api/v1/users/me/username', { username: 'bob' }, { token: auth.access_token });
    const btc = new BtcKey();
    const grin = new GrinKey();
    await t.client.post('/api/v1/keys', { asset: 'btc', public_key: btc.publicKeyHex }, { token: auth.access_token });
    await t.client.post('/api/v1/keys', { asset: 'grin', public_key: grin.publicKeyHex }, { token: auth.access_token });
    const found = await t.client.get('/api/v1/users/by-username/BoB');
    expect(found.status).to.equal(200);
    // Only a bare Grin key is on file: no address to pay, so no grin entry.
    expect(found.body).to.deep.equal({ registered: true, username: 'bob', user_id: userId, keys: [{ asset: 'btc', key_type: 'primary', public_key: btc.publicKeyHex, public_spend_key: null, proven: false }] });
    const address = encodeSlatepackAddress(hexToBytes(grin.publicKeyHex), 'grin');
    await t.client.post('/api/v1/keys', { asset: 'grin', public_key: address }, { token: auth.access_token });
    const withAddress = await t.client.get('/api/v1/users/by-username/bob');
    expect(withAddress.body.keys.find((k: { asset: string }) => k.asset === 'grin')).to.include({ key_type: 'slatepack_address', public_key: address });
    for (const name of ['nobody', 'x', 'Not A Name']) {
      const unknown = await t.client.get(`/api/v1/users/by-username/${encodeURIComponent(name)}`);
      expect(unknown.status).to.equal(200);
      expect(unknown.body).to.deep.equal({ registered: false, username: name.toLowerCase(), user_id: null, keys: [] });
    }
  });

  it('falls back to a Grin primary row only while it still holds a pre-split address', async () => {
    const user = await seedUser(t.backend, { username: 'legacy' });
    const grin = new GrinKey();
    const address = encodeSlatepackAddress(hexToBytes(grin.publicKeyHex), 'grin');
    const now = t.backend.db.dialect.time(t.clock.now());
    // A row written before the split: the address sits in the primary row.
    await t.backend.db.knex('user_keys').insert({ id: randomUUID(), user_id: user.id, asset: 'grin', key_type: 'primary', public_key: address, public_spend_key: null, created_at: now, updated_at: now });
    const res = await t.client.get('/api/v1/users/by-username/legacy');
    expect(res.body.keys).to.deep.equal([{ asset: 'grin', key_type: 'primary', public_key: address, public_spend_key: null, proven: false }]);
    // A pre-split row was never proven, so it routes nobody; the owner's key proof does.
    const { auth } = await seedSession(t.backend);
    const lookup = () => t.client.get(`/api/v1/wallet/grin/address/${address}/user`, { token: auth.access_token });
    expect((await lookup()).body).to.deep.equal({ registered: false, user_id: null, username: null });
    const owner = await t.backend.sessions.start(user.id, 'extension');
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'grin', publicKey: address, sign: (m) => grin.sign(m) }, user.id), { token: owner.access_token });
    expect(proof.body).to.deep.equal({ asset: 'grin', key_type: 'slatepack_address', public_key: address, public_spend_key: null, proven: true });
    expect((await lookup()).body).to.deep.equal({ registered: true, user_id: user.id, username: 'legacy' });
  });

  it('Grin address lookup: bearer only, constant shape for unknown addresses', async () => {
    const { userId, auth } = await seedSession(t.backend);
    const grin = new GrinKey();
    const address = encodeSlatepackAddress(hexToBytes(grin.publicKeyHex), 'grin');
    await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'grin', publicKey: address, sign: (m) => grin.sign(m) }, userId), { token: auth.access_token });
    const known = await t.client.get(`/api/v1/wallet/grin/address/${address.toUpperCase()}/user`, { token: auth.access_token });
    expect(known.body).to.deep.equal({ registered: true, user_id: userId, username: null });
    const unknown = await t.client.get(`/api/v1/wallet/grin/address/${encodeSlatepackAddress(hexToBytes(new GrinKey().publicKeyHex), 'grin')}/user`, { token: auth.access_token });
    expect(unknown.body).to.deep.equal({ registered: false, user_id: null, username: null });
    expect((await t.client.get('/api/v1/wallet/grin/address/garbage/user', { token: auth.access_token })).body.registered).to.equal(false);
    expect((await t.client.get(`/api/v1/wallet/grin/address/${address}/user`)).status).to.equal(401);
  });
});

eachDialect('directory: NIP-05', (dialect) => {
  const t = useTestBackend(dialect, { settings: { nip05Relays: ['wss://relay.example'] } });

  it('serves {names, relays} at the root and under /api/v1 with CORS *', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { username: 'carol', nostrPubkey: nostr.pubkey });
    for (const path of ['/.well-known/nostr.json?name=Carol', '/api/v1/.well-known/nostr.json?name=carol']) {
      const res = await t.client.get(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(res.body).to.deep.equal({ names: { carol: nostr.pubkey }, relays: { [nostr.pubkey]: ['wss://relay.example'] } });
    }
  });

  it('answers an empty document, never an error, for unknown, unlinked, absent or odd names', async () => {
    await seedUser(t.backend, { username: 'dave' });
    for (const query of ['?name=dave', '?name=nobody', '', '?name=', '?name=a&name=b', '?name=%00%ff', `?name=${'x'.repeat(5000)}`, '?other=1']) {
      const res = await t.client.get(`/.well-known/nostr.json${query}`);
      expect(res.status, query).to.equal(200);
      expect(res.body, query).to.deep.equal({ names: {}, relays: {} });
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    }
  });

  it('answers a CORS preflight (OPTIONS) 204 at the root and under /api/v1', async () => {
    for (const path of ['/.well-known/nostr.json', '/api/v1/.well-known/nostr.json', '/.well-known/nostr.json?name=carol']) {
      const res = await t.client.request('OPTIONS', path, {
        headers: { origin: 'https://client.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept, x-custom' },
      });
      expect(res.status, path).to.equal(204);
      expect(res.headers.get('access-control-allow-origin'), path).to.equal('*');
      expect(res.headers.get('access-control-allow-methods'), path).to.equal('GET, OPTIONS');
      expect(res.headers.get('access-control-allow-headers'), path).to.equal('*');
      expect(res.text, path).to.equal('');
    }
  });

  it('documents no 400 for the NIP-05 routes (it never errors) and leaves the preflight out of the document', async () => {
    const { paths } = (await t.client.get('/api/v1/openapi.json')).body;
    for (const path of ['/.well-known/nostr.json', '/api/v1/.well-known/nostr.json']) {
      expect(Object.keys(paths[path].get.responses), path).to.deep.equal(['200']);
      expect(paths[path], path).to.not.have.property('options');
    }
  });
});
