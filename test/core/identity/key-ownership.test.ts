import { expect } from 'chai';
import {
  BtcKey,
  extensionWallet,
  websiteLogin,
  eachDialect,
  extensionBody,
  GrinKey,
  keyProofMessage,
  NostrKey,
  provenKeyBody,
  signingKeysOfEveryAsset,
  useTestBackend,
  type SigningKey,
  type TestBackend,
} from '../../harness/index.js';

async function provenRows(t: TestBackend, asset: string): Promise<Array<{ user_id: string }>> {
  return t.backend.db.knex('user_keys').where({ asset }).whereNotNull('proven_at').select('user_id', 'public_key');
}

const label = (key: SigningKey) => `${key.asset} ${key.publicKey.slice(0, 8)}…`;

eachDialect('identity: key ownership (no account is resolved through a key it has not proven)', (dialect) => {
  const t = useTestBackend(dialect);

  it('every asset: a squatter registering the victim key is harmless, and the victim logs in as the victim', async () => {
    for (const key of signingKeysOfEveryAsset()) {
      const victim = await extensionWallet(t);
      const squatter = await extensionWallet(t);
      const proven = await t.client.post('/api/v1/keys', provenKeyBody(key, victim.userId), { token: victim.token });
      expect(proven.status, label(key)).to.equal(200);
      expect(proven.body.proven, label(key)).to.equal(true);

      // The squatter may advertise the key as its own receiving key, but it proves nothing...
      const squat = await t.client.post('/api/v1/keys', { asset: key.asset, public_key: key.publicKey }, { token: squatter.token });
      expect(squat.status, label(key)).to.equal(200);
      expect(squat.body.proven, label(key)).to.equal(false);
      // ...and the victim's proof is bound to the victim's account: replayed for the squatter it fails.
      const replay = await t.client.post('/api/v1/keys', provenKeyBody(key, victim.userId), { token: squatter.token });
      expect(replay.status, label(key)).to.equal(400);
      expect(replay.body.error.code, label(key)).to.equal('key_proof_invalid');

      const login = await websiteLogin(t, key);
      expect(login.status, label(key)).to.equal(200);
      expect(login.body.user_id, label(key)).to.equal(victim.userId);
      if (key.asset === 'grin') {
        const owner = await t.client.get(`/api/v1/wallet/grin/address/${key.publicKey}/user`, { token: squatter.token });
        expect(owner.body, label(key)).to.deep.equal({ registered: true, user_id: victim.userId, username: null });
      }
      expect((await provenRows(t, key.asset)).filter((row) => row.user_id === squatter.userId), label(key)).to.deep.equal([]);
    }
  });

  it('every asset: a key registered first by a squatter resolves nobody until its holder proves it', async () => {
    for (const key of signingKeysOfEveryAsset()) {
      const squatter = await extensionWallet(t);
      expect((await t.client.post('/api/v1/keys', { asset: key.asset, public_key: key.publicKey }, { token: squatter.token })).status).to.equal(200);
      const before = await websiteLogin(t, key);
      expect(before.status, label(key)).to.equal(401);
      expect(before.body.error.message, label(key)).to.equal('Unknown wallet');
      if (key.asset === 'grin') {
        const owner = await t.client.get(`/api/v1/wallet/grin/address/${key.publicKey}/user`, { token: squatter.token });
        expect(owner.body.registered, label(key)).to.equal(false);
      }
      const holder = await extensionWallet(t);
      expect((await t.client.post('/api/v1/keys', provenKeyBody(key, holder.userId), { token: holder.token })).status).to.equal(200);
      expect((await websiteLogin(t, key)).body.user_id, label(key)).to.equal(holder.userId);
    }
  });

  it('BTC: a public key typed into a Nostr registration never becomes that account identity', async () => {
    const victimKey = new BtcKey();
    const attacker = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const path = '/api/v1/auth/nostr/register';
    const registered = await t.client.post(path, {
      nostr_token: attacker.signedAction(path, nonce, 'nostr_register', t.clock.now()),
      nonce,
      seed_fingerprint: 'feedface',
      keys: [{ asset: 'btc', public_key: victimKey.publicKeyHex }],
    });
    expect(registered.status).to.equal(200);
    const victim = await extensionWallet(t, victimKey);
    expect(victim.userId).to.not.equal(registered.body.user_id);
    const login = await websiteLogin(t, { asset: 'btc', publicKey: victimKey.publicKeyHex, sign: (m) => victimKey.signMessage(m) });
    expect(login.body.user_id).to.equal(victim.userId);
  });

  it('the key holder moves a proof between its own accounts; the old account keeps an unproven row', async () => {
    const grin = new GrinKey();
    const key: SigningKey = { asset: 'grin', publicKey: grin.slatepackAddress, sign: (m) => grin.sign(m) };
    const first = await extensionWallet(t);
    const second = await extensionWallet(t);
    await t.client.post('/api/v1/keys', provenKeyBody(key, first.userId), { token: first.token });
    expect((await websiteLogin(t, key)).body.user_id).to.equal(first.userId);
    await t.client.post('/api/v1/keys', provenKeyBody(key, second.userId), { token: second.token });
    expect((await websiteLogin(t, key)).body.user_id).to.equal(second.userId);
    const firstKeys = await t.client.get(`/api/v1/users/${first.userId}/keys`);
    expect(firstKeys.body.keys).to.deep.equal([
      { asset: 'btc', key_type: 'primary', public_key: firstKeys.body.keys[0].public_key, public_spend_key: null, proven: true },
      { asset: 'grin', key_type: 'slatepack_address', public_key: grin.slatepackAddress, public_spend_key: null, proven: false },
    ]);
  });

  it('a proof belongs to the value: an unproven re-submission keeps it, a different value drops it', async () => {
    const me = await extensionWallet(t);
    const grin = new GrinKey();
    const key: SigningKey = { asset: 'grin', publicKey: grin.publicKeyHex, sign: (m) => grin.sign(m) };
    await t.client.post('/api/v1/keys', provenKeyBody(key, me.userId), { token: me.token });
    const same = await t.client.post('/api/v1/keys', { asset: 'grin', public_key: grin.publicKeyHex.toUpperCase() }, { token: me.token });
    expect(same.body.proven).to.equal(true);
    const other = await t.client.post('/api/v1/keys', { asset: 'grin', public_key: new GrinKey().publicKeyHex }, { token: me.token });
    expect(other.body.proven).to.equal(false);
    expect((await websiteLogin(t, key)).status).to.equal(401);
  });

  it('refuses a proof by another key, for another account, asset or service, or malformed; nothing changes', async () => {
    const me = await extensionWallet(t);
    const grin = new GrinKey();
    const stranger = new GrinKey();
    const ltc = new BtcKey();
    const message = keyProofMessage(me.userId, 'grin', grin.publicKeyHex);
    const bad = [
      { asset: 'grin', public_key: grin.publicKeyHex, signature: stranger.sign(message) },
      { asset: 'grin', public_key: grin.publicKeyHex, signature: grin.sign(keyProofMessage('00000000-0000-4000-8000-000000000000', 'grin', grin.publicKeyHex)) },
      { asset: 'grin', public_key: grin.publicKeyHex, signature: grin.sign(message.replace('https://wallet.example.test', 'https://other.example')) },
      { asset: 'grin', public_key: grin.publicKeyHex, signature: grin.sign(message.replace('asset: grin', 'asset: xmr')) },
      { asset: 'grin', public_key: grin.publicKeyHex, signature: 'zz' },
      { asset: 'ltc', public_key: ltc.publicKeyHex, signature: ltc.signMessage(keyProofMessage(me.userId, 'ltc', ltc.publicKeyHex), 'btc') },
      { asset: 'ltc', public_key: ltc.publicKeyHex, signature: ltc.signMessage(keyProofMessage(me.userId, 'ltc', ltc.publicKeyHex), 'ltc', { uncompressed: true }) },
    ];
    for (const body of bad) {
      const res = await t.client.post('/api/v1/keys', body, { token: me.token });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('key_proof_invalid');
    }
    const rows = await t.backend.db.knex('user_keys').where({ user_id: me.userId }).select('asset');
    expect(rows.map((row) => row.asset)).to.deep.equal(['btc']);
  });

  it('concurrent proofs of one key by several accounts: never a 5xx, exactly one proven holder', async () => {
    const grin = new GrinKey();
    const key: SigningKey = { asset: 'grin', publicKey: grin.publicKeyHex, sign: (m) => grin.sign(m) };
    const wallets = await Promise.all(Array.from({ length: 8 }, () => extensionWallet(t)));
    const results = await Promise.all(wallets.map((w) => t.client.post('/api/v1/keys', provenKeyBody(key, w.userId), { token: w.token })));
    for (const res of results) expect([200, 409]).to.include(res.status);
    const holders = await provenRows(t, 'grin');
    expect(holders).to.have.length(1);
    const winner = wallets.findIndex((w) => w.userId === holders[0]!.user_id);
    expect(results[winner]!.status).to.equal(200);
    expect((await websiteLogin(t, key)).body.user_id).to.equal(holders[0]!.user_id);
  });

  it('uncompressed BTC/LTC keys (headers 27–30) log in and register; the header must name the key encoding', async () => {
    const btc = new BtcKey();
    const me = await extensionWallet(t, btc);
    const legacy: SigningKey = { asset: 'btc', publicKey: btc.uncompressedHex, sign: (m) => btc.signMessage(m, 'btc', { uncompressed: true }) };
    const login = await websiteLogin(t, legacy);
    expect(login.status).to.equal(200);
    expect(login.body.user_id).to.equal(me.userId);
    // A compressed-range header presented with the uncompressed key (or the reverse) is not that key's signature.
    expect((await websiteLogin(t, { ...legacy, sign: (m) => btc.signMessage(m) })).status).to.equal(401);
    expect((await websiteLogin(t, { asset: 'btc', publicKey: btc.publicKeyHex, sign: legacy.sign })).status).to.equal(401);

    // Extension login signed by the uncompressed key: same identity (pubkey_hash is of the compressed key).
    const body = extensionBody(btc, t.clock.now());
    t.clock.advance(1000);
    const timestamp = Math.floor(t.clock.now().getTime() / 1000);
    const message = `Wallet Backend login\nservice: https://wallet.example.test\npubkey_hash: ${btc.pubkeyHash}\ntimestamp: ${timestamp}`;
    const ext = await t.client.post('/api/v1/auth/extension', { ...body, timestamp, signature: btc.signMessage(message, 'btc', { uncompressed: true }), keys: [{ asset: 'btc', public_key: btc.uncompressedHex }] });
    expect(ext.status).to.equal(200);
    expect(ext.body.user_id).to.equal(me.userId);

    const ltc = new BtcKey();
    const stored = await t.client.post('/api/v1/keys', { asset: 'ltc', public_key: ltc.uncompressedHex.toUpperCase() }, { token: me.token });
    expect(stored.body).to.include({ public_key: ltc.publicKeyHex, proven: false });
  });

  it('migration 006: rows written before it (squats included) start unproven and resolve nobody', async () => {
    const { knex } = t.backend.db;
    const victim = await extensionWallet(t);
    const squatter = await extensionWallet(t);
    // Put the database back to before 006, as an existing deployment is.
    await knex.raw('DROP INDEX user_keys_proven_key');
    await knex.schema.alterTable('user_keys', (table) => table.dropColumn('proven_at'));
    await knex('wallet_migrations').where({ id: 'core/006_key_proofs' }).delete();
    const grin = new GrinKey();
    const now = t.backend.db.dialect.time(t.clock.now());
    for (const [id, userId] of [['00000000-0000-4000-8000-000000000001', victim.userId], ['00000000-0000-4000-8000-000000000002', squatter.userId]]) {
      await knex('user_keys').insert({ id, user_id: userId, asset: 'grin', key_type: 'slatepack_address', public_key: grin.slatepackAddress, public_spend_key: null, created_at: now, updated_at: now });
    }
    expect(await t.backend.migrate()).to.deep.equal(['core/006_key_proofs']);
    expect(await knex('user_keys').whereNotNull('proven_at').count({ n: '*' }).first().then((row) => Number(row!.n))).to.equal(0);
    const owner = await t.client.get(`/api/v1/wallet/grin/address/${grin.slatepackAddress}/user`, { token: victim.token });
    expect(owner.body.registered).to.equal(false);
    const key: SigningKey = { asset: 'grin', publicKey: grin.slatepackAddress, sign: (m) => grin.sign(m) };
    expect((await t.client.post('/api/v1/keys', provenKeyBody(key, victim.userId), { token: victim.token })).status).to.equal(200);
    expect((await t.client.get(`/api/v1/wallet/grin/address/${grin.slatepackAddress}/user`, { token: squatter.token })).body.user_id).to.equal(victim.userId);
  });
});
