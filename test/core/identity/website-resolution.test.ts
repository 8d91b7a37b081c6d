import { expect } from 'chai';
import { BtcKey, eachDialect, extensionWallet, websiteLogin, GrinKey, provenKeyBody, useTestBackend, type SigningKey } from '../../harness/index.js';

eachDialect('identity: which account a website login resolves', (dialect) => {
  const t = useTestBackend(dialect);

  it('btc resolves through the identity itself, even when its key row carries no proof (rows from before migration 006)', async () => {
    const btc = new BtcKey();
    const me = await extensionWallet(t, btc);
    await t.backend.db.knex('user_keys').where({ user_id: me.userId }).update({ proven_at: null });
    const login = await websiteLogin(t, { asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) });
    expect(login.status).to.equal(200);
    expect(login.body.user_id).to.equal(me.userId);
  });

  it('ltc resolves through the account that proved the LTC key, never through a BTC identity of the same key', async () => {
    const shared = new BtcKey();
    const btcHolder = await extensionWallet(t, shared);
    const ltcHolder = await extensionWallet(t);
    const ltc: SigningKey = { asset: 'ltc', publicKey: shared.publicKeyHex, sign: (m) => shared.signMessage(m, 'ltc') };
    expect((await t.client.post('/api/v1/keys', provenKeyBody(ltc, ltcHolder.userId), { token: ltcHolder.token })).status).to.equal(200);
    const login = await websiteLogin(t, ltc);
    expect(login.body.user_id).to.equal(ltcHolder.userId);
    expect(login.body.user_id).to.not.equal(btcHolder.userId);
  });

  it('a grin key in upper-case hex finds the proven (lower-case) row', async () => {
    const grin = new GrinKey();
    const me = await extensionWallet(t);
    await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'grin', publicKey: grin.publicKeyHex, sign: (m) => grin.sign(m) }, me.userId), { token: me.token });
    const login = await websiteLogin(t, { asset: 'grin', publicKey: grin.publicKeyHex.toUpperCase(), sign: (m) => grin.sign(m) });
    expect(login.status).to.equal(200);
    expect(login.body.user_id).to.equal(me.userId);
  });

  it('an origin of exactly 200 characters is accepted; 201 is refused', async () => {
    const origin = (length: number) => `https://${'a'.repeat(length - 'https://'.length - '.example'.length)}.example`;
    expect(origin(200)).to.have.length(200);
    expect((await t.client.post('/api/v1/auth/website/challenge', { origin: origin(200) })).status).to.equal(200);
    expect((await t.client.post('/api/v1/auth/website/challenge', { origin: origin(201) })).status).to.equal(400);
  });
});
