import { expect } from 'chai';
import {
  BtcKey,
  CryptonoteKey,
  eachDialect,
  extensionBody,
  GrinKey,
  provenKeyBody,
  useTestBackend,
  type SigningKey,
  type TestBackend,
} from '../../harness/index.js';

const ORIGIN = 'https://shop.example';

async function challenge(t: TestBackend, origin = ORIGIN): Promise<{ challenge: string; challenge_id: string }> {
  const res = await t.client.post('/api/v1/auth/website/challenge', { origin });
  expect(res.status).to.equal(200);
  return res.body;
}

/** A registered wallet (extension login) with extra keys PROVEN through POST /keys. */
async function registeredWallet(t: TestBackend, keys: SigningKey[] = []): Promise<{ btc: BtcKey; userId: string }> {
  const btc = new BtcKey();
  const res = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()));
  expect(res.status).to.equal(200);
  for (const key of keys) expect((await t.client.post('/api/v1/keys', provenKeyBody(key, res.body.user_id), { token: res.body.access_token })).status).to.equal(200);
  return { btc, userId: res.body.user_id };
}

eachDialect('identity: website login', (dialect) => {
  const t = useTestBackend(dialect);
  const verify = (body: Record<string, unknown>, headers: Record<string, string> = {}) => t.client.post('/api/v1/auth/website/verify', body, { headers });
  const expectLiteral = (res: { status: number; body: { error: { message: string } } }, status: number, message: string) => {
    expect(res.status).to.equal(status);
    expect(res.body.error.message).to.equal(message);
  };

  it('issues an origin-bound challenge that names the origin and the service', async () => {
    const issued = await challenge(t);
    expect(issued.challenge_id).to.match(/^[0-9a-f]{64}$/);
    expect(issued.challenge).to.include(ORIGIN).and.include(issued.challenge_id).and.include('https://wallet.example.test');
    for (const origin of ['https://shop.example/login', 'ftp://shop.example', 'shop.example', 'https://shop.example/']) {
      expectLiteral(await t.client.post('/api/v1/auth/website/challenge', { origin }), 400, 'Invalid origin');
    }
  });

  it('logs a registered wallet in with its BTC key on a web session', async () => {
    const { btc, userId } = await registeredWallet(t);
    const issued = await challenge(t);
    const res = await verify({ challenge_id: issued.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage(issued.challenge) }, { origin: ORIGIN });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ user_id: userId, platform: 'web' });
    const event = await t.backend.db.knex('login_events').where({ user_id: userId, platform: 'web' }).first();
    expect(event.ip_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('verifies LTC, XMR, WOW and Grin signatures with each asset scheme', async () => {
    const ltc = new BtcKey();
    const xmr = new CryptonoteKey('xmr');
    const wow = new CryptonoteKey('wow');
    const grin = new GrinKey();
    const cases: SigningKey[] = [
      { asset: 'ltc', publicKey: ltc.publicKeyHex, sign: (m: string) => ltc.signMessage(m, 'ltc') },
      { asset: 'xmr', publicKey: xmr.address(), sign: (m: string) => xmr.sign(m) },
      { asset: 'wow', publicKey: wow.address(), sign: (m: string) => wow.sign(m) },
      { asset: 'grin', publicKey: grin.publicKeyHex, sign: (m: string) => grin.sign(m) },
    ];
    const { userId } = await registeredWallet(t, cases);
    for (const { asset, publicKey: public_key, sign } of cases) {
      const issued = await challenge(t);
      const res = await verify({ challenge_id: issued.challenge_id, asset, public_key, signature: sign(issued.challenge) });
      expect(res.status, asset).to.equal(200);
      expect(res.body.user_id, asset).to.equal(userId);
    }
    // Schemes do not cross: a Bitcoin-magic signature is not an LTC proof, a Monero one not a Wownero one.
    const issued = await challenge(t);
    expectLiteral(await verify({ challenge_id: issued.challenge_id, asset: 'ltc', public_key: ltc.publicKeyHex, signature: ltc.signMessage(issued.challenge, 'btc') }), 401, 'Invalid signature');
    const again = await challenge(t);
    expectLiteral(await verify({ challenge_id: again.challenge_id, asset: 'wow', public_key: wow.address(), signature: wow.sign(again.challenge, 'xmr') }), 401, 'Invalid signature');
  });

  it('consumes the challenge first: a failed attempt burns it, and it is single use', async () => {
    const { btc } = await registeredWallet(t);
    const issued = await challenge(t);
    const other = new BtcKey();
    expectLiteral(await verify({ challenge_id: issued.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: other.signMessage(issued.challenge) }), 401, 'Invalid signature');
    const good = { challenge_id: issued.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage(issued.challenge) };
    expectLiteral(await verify(good), 401, 'Invalid or expired challenge');

    const fresh = await challenge(t);
    const body = { ...good, challenge_id: fresh.challenge_id, signature: btc.signMessage(fresh.challenge) };
    expect((await verify(body)).status).to.equal(200);
    expectLiteral(await verify(body), 401, 'Invalid or expired challenge');
  });

  it('refuses an expired challenge, another origin and an unknown wallet; never creates an account', async () => {
    const { btc } = await registeredWallet(t);
    const expired = await challenge(t);
    t.clock.advance(301_000);
    expectLiteral(await verify({ challenge_id: expired.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage(expired.challenge) }), 401, 'Invalid or expired challenge');

    const elsewhere = await challenge(t, 'https://evil.example');
    expectLiteral(
      await verify({ challenge_id: elsewhere.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage(elsewhere.challenge) }, { origin: ORIGIN }),
      401,
      'Invalid or expired challenge',
    );

    const stranger = new GrinKey();
    const issued = await challenge(t);
    expectLiteral(await verify({ challenge_id: issued.challenge_id, asset: 'grin', public_key: stranger.publicKeyHex, signature: stranger.sign(issued.challenge) }), 401, 'Unknown wallet');
    const unknownBtc = new BtcKey();
    const next = await challenge(t);
    expectLiteral(await verify({ challenge_id: next.challenge_id, asset: 'btc', public_key: unknownBtc.publicKeyHex, signature: unknownBtc.signMessage(next.challenge) }), 401, 'Unknown wallet');
    const [row] = await t.backend.db.knex('users').count({ n: '*' });
    expect(Number((row as { n: unknown }).n)).to.equal(1);
  });

  it('answers an invalid asset or signature format with 400 and leaves the challenge usable', async () => {
    const { btc } = await registeredWallet(t);
    const issued = await challenge(t);
    const good = { challenge_id: issued.challenge_id, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage(issued.challenge) };
    expectLiteral(await verify({ ...good, asset: 'doge' }), 400, 'Invalid asset');
    expectLiteral(await verify({ ...good, signature: 'not base64' }), 400, 'Invalid signature format');
    expectLiteral(await verify({ ...good, asset: 'grin' }), 400, 'Invalid signature format');
    expectLiteral(await verify({ ...good, asset: 'xmr', signature: 'SigV2abc' }), 400, 'Invalid signature format');
    expect((await verify(good)).status).to.equal(200);
  });

  it('a nonce issued for another purpose is not a website challenge and is not burned', async () => {
    const { btc } = await registeredWallet(t);
    const register = await t.client.get('/api/v1/auth/nostr/register-challenge');
    const res = await verify({ challenge_id: register.body.nonce, asset: 'btc', public_key: btc.publicKeyHex, signature: btc.signMessage('anything') });
    expectLiteral(res, 401, 'Invalid or expired challenge');
    expect(await t.backend.db.knex('challenges').where({ nonce: register.body.nonce }).first()).to.not.equal(undefined);
  });
});
