import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import {
  BtcKey,
  CryptonoteKey,
  eachDialect,
  extensionBody,
  extensionWallet,
  GrinKey,
  NostrKey,
  provenKeyBody,
  TEST_SECRETS,
  useTestBackend,
  websiteLogin,
  type SigningKey,
  type TestBackend,
} from '../../harness/index.js';

/**
 * Which keys an extension login stores PROVEN (only the BTC key that signed the login message),
 * whose proof it moves (only that BTC key's), and how an account that proved the BTC key on
 * POST /keys adopts the pubkey_hash.
 */

const REGISTER = '/api/v1/auth/nostr/register';

function pepper(value: string): string {
  return createHmac('sha256', TEST_SECRETS.pepperSecret).update(value).digest('hex');
}

function btcSigning(key: BtcKey): SigningKey {
  return { asset: 'btc', publicKey: key.publicKeyHex, sign: (m) => key.signMessage(m) };
}

async function keysOf(t: TestBackend, userId: string): Promise<Array<{ asset: string; key_type: string; public_key: string; proven: boolean }>> {
  const res = await t.client.get(`/api/v1/users/${userId}/keys`);
  expect(res.status).to.equal(200);
  return res.body.keys;
}

async function nostrAccount(t: TestBackend, seed: string): Promise<{ userId: string; token: string }> {
  const nostr = new NostrKey();
  const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
  const res = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: seed });
  expect(res.status).to.equal(200);
  return { userId: res.body.user_id, token: res.body.access_token };
}

eachDialect('identity: POST /auth/extension, which keys it proves', (dialect) => {
  const t = useTestBackend(dialect);
  const login = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);

  it('the ltc, xmr and grin keys listed at an extension login are served unproven and resolve nobody; only the BTC key is proven', async () => {
    const btc = new BtcKey();
    const ltc = new BtcKey();
    const xmr = new CryptonoteKey('xmr');
    const grin = new GrinKey();
    const res = await login(
      extensionBody(btc, t.clock.now(), {
        keys: [
          { asset: 'ltc', public_key: ltc.publicKeyHex },
          { asset: 'xmr', public_key: xmr.address() },
          { asset: 'grin', public_key: grin.publicKeyHex },
          { asset: 'btc', public_key: btc.publicKeyHex },
        ],
      }),
    );
    expect(res.status).to.equal(200);
    const keys = await keysOf(t, res.body.user_id);
    expect(keys.map(({ asset, key_type, public_key, proven }) => ({ asset, key_type, public_key, proven }))).to.deep.equal([
      { asset: 'btc', key_type: 'primary', public_key: btc.publicKeyHex, proven: true },
      { asset: 'grin', key_type: 'primary', public_key: grin.publicKeyHex, proven: false },
      { asset: 'ltc', key_type: 'primary', public_key: ltc.publicKeyHex, proven: false },
      { asset: 'xmr', key_type: 'primary', public_key: xmr.address(), proven: false },
    ]);

    for (const key of [
      { asset: 'ltc', publicKey: ltc.publicKeyHex, sign: (m: string) => ltc.signMessage(m, 'ltc') },
      { asset: 'xmr', publicKey: xmr.address(), sign: (m: string) => xmr.sign(m) },
      { asset: 'grin', publicKey: grin.publicKeyHex, sign: (m: string) => grin.sign(m) },
    ] satisfies SigningKey[]) {
      const website = await websiteLogin(t, key);
      expect(website.status, key.asset).to.equal(401);
      expect(website.body.error.message, key.asset).to.equal('Unknown wallet');
    }
    const lookup = await t.client.get(`/api/v1/wallet/grin/address/${grin.publicKeyHex}/user`, { token: res.body.access_token });
    expect(lookup.status).to.equal(200);
    expect(lookup.body.registered).to.equal(false);
    // The BTC key is proven by the login itself: it resolves the account.
    expect((await websiteLogin(t, btcSigning(btc))).body.user_id).to.equal(res.body.user_id);
  });

  it('listing an ltc key another account proved leaves that account its proof', async () => {
    const holder = await extensionWallet(t);
    const ltc = new BtcKey();
    const key: SigningKey = { asset: 'ltc', publicKey: ltc.publicKeyHex, sign: (m) => ltc.signMessage(m, 'ltc') };
    const proven = await t.client.post('/api/v1/keys', provenKeyBody(key, holder.userId), { token: holder.token });
    expect(proven.body.proven).to.equal(true);

    const other = await login(extensionBody(new BtcKey(), t.clock.now(), { keys: [{ asset: 'ltc', public_key: ltc.publicKeyHex }] }));
    expect(other.status).to.equal(200);
    expect((await keysOf(t, holder.userId)).find((k) => k.asset === 'ltc')).to.include({ public_key: ltc.publicKeyHex, proven: true });
    expect((await keysOf(t, other.body.user_id)).find((k) => k.asset === 'ltc')).to.include({ public_key: ltc.publicKeyHex, proven: false });
    expect((await websiteLogin(t, key)).body.user_id).to.equal(holder.userId);
  });

  it('the BTC key proof moves to the account the extension login lands on, from an account that has another pubkey_hash', async () => {
    // A registered with K1, then proved K2 as its BTC key on POST /keys: its identity stays K1.
    const k1 = new BtcKey();
    const a = await extensionWallet(t, k1);
    const k2 = new BtcKey();
    const moved = await t.client.post('/api/v1/keys', provenKeyBody(btcSigning(k2), a.userId), { token: a.token });
    expect(moved.body.proven).to.equal(true);

    // K2 logs in: A cannot adopt it (A has a pubkey_hash), so K2 is a new account B, and the proof goes with K2.
    const b = await login(extensionBody(k2, t.clock.now()));
    expect(b.status).to.equal(200);
    expect(b.body.user_id).to.not.equal(a.userId);
    const rowA = await t.backend.db.knex('users').where({ id: a.userId }).first();
    const rowB = await t.backend.db.knex('users').where({ id: b.body.user_id }).first();
    expect(rowA.pubkey_hash).to.equal(pepper(k1.pubkeyHash));
    expect(rowB.pubkey_hash).to.equal(pepper(k2.pubkeyHash));
    expect((await keysOf(t, a.userId)).find((k) => k.asset === 'btc')).to.include({ public_key: k2.publicKeyHex, proven: false });
    expect((await keysOf(t, b.body.user_id)).find((k) => k.asset === 'btc')).to.include({ public_key: k2.publicKeyHex, proven: true });
    expect((await websiteLogin(t, btcSigning(k2))).body.user_id).to.equal(b.body.user_id);
  });

  it('a Nostr-registered account that proved the BTC key takes its pubkey_hash, and later logins resolve through it', async () => {
    const account = await nostrAccount(t, '0badc0de');
    const btc = new BtcKey();
    expect((await t.client.post('/api/v1/keys', provenKeyBody(btcSigning(btc), account.userId), { token: account.token })).body.proven).to.equal(true);

    const first = await login(extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    expect(first.status).to.equal(200);
    expect(first.body.user_id).to.equal(account.userId);
    const row = await t.backend.db.knex('users').where({ id: account.userId }).first();
    expect(row.pubkey_hash).to.equal(pepper(btc.pubkeyHash));

    // The account replaces its BTC key with an unproven one: the old key now resolves only through the identity.
    const replaced = await t.client.post('/api/v1/keys', { asset: 'btc', public_key: new BtcKey().publicKeyHex }, { token: account.token });
    expect(replaced.body.proven).to.equal(false);
    t.clock.advance(1000);
    const again = await login(extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    expect(again.status).to.equal(200);
    expect(again.body.user_id).to.equal(account.userId);
    const [users] = await t.backend.db.knex('users').count({ n: '*' });
    expect(Number((users as { n: unknown }).n)).to.equal(1);
  });
});
