import { expect } from 'chai';
import { bytesToHex } from '@noble/hashes/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { requestDescriptorHash } from '../../packages/core/src/auth/index.js';
import { BtcKey, eachDialect, extensionBody, NostrKey, seedSession, TEST_PUBLIC_API_URL, useTestBackend } from '../harness/index.js';
import { solvePow } from '../core/gates/pow-solver.js';

/** docs/wallet-integration.md §§ 1–3: the NIP-98 tag-order rules and the proof_replayed retry advice. */
eachDialect('docs/wallet-integration.md: tag order and login retries', (dialect) => {
  const t = useTestBackend(dialect, { settings: { registrationRequirePow: true, powDifficulty: 1_000 } });
  const seconds = () => Math.floor(t.clock.now().getTime() / 1000);
  const LINK = '/api/v1/auth/nostr/link';
  const LOGIN = '/api/v1/auth/nostr';

  it('a signed action and a login verify with their tags in any order; a repeated tag or a body payload is refused', async () => {
    const { auth } = await seedSession(t.backend);
    const nostr = new NostrKey();
    const link = async (tags: (nonce: string) => string[][]) => {
      const { nonce } = (await t.client.get('/api/v1/auth/nostr/link-challenge', { token: auth.access_token })).body;
      return t.client.post(LINK, { nostr_token: nostr.event(tags(nonce), seconds()), nonce }, { token: auth.access_token });
    };
    const base = (nonce: string) => [
      ['u', `${TEST_PUBLIC_API_URL}${LINK}`],
      ['method', 'POST'],
      ['nonce', nonce],
      ['purpose', 'nostr_link'],
      ['descriptor', requestDescriptorHash({ method: 'POST', path: LINK })],
    ];
    const repeated = await link((nonce) => [...base(nonce), ['u', `${TEST_PUBLIC_API_URL}${LINK}`]]);
    expect(repeated.status).to.equal(401);
    expect(repeated.body.error.code).to.equal('signed_action_invalid');
    const bodyPayload = await link((nonce) => [...base(nonce), ['payload', bytesToHex(sha256(Buffer.from('{"nonce":"x"}')))]]);
    expect(bodyPayload.body.error.code).to.equal('signed_action_invalid');
    const reversed = await link((nonce) => [['client', 'any wallet'], ...base(nonce).reverse(), ['payload', bytesToHex(sha256(new Uint8Array()))]]);
    expect(reversed.status, JSON.stringify(reversed.body)).to.equal(200);

    const login = await t.client.request('POST', LOGIN, { headers: { authorization: `Nostr ${nostr.event([['method', 'post'], ['u', `${TEST_PUBLIC_API_URL}${LOGIN}`]], seconds())}` } });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const repeatedMethod = await t.client.request('POST', LOGIN, { headers: { authorization: `Nostr ${nostr.event([['u', `${TEST_PUBLIC_API_URL}${LOGIN}`], ['method', 'POST'], ['method', 'POST']], seconds())}` } });
    expect(repeatedMethod.status).to.equal(401);
  });

  it('a second login in the same second is proof_replayed; a fresh timestamp one second later logs in', async () => {
    const btc = new BtcKey();
    const first = extensionBody(btc, t.clock.now(), { altcha_solution: await solvePow((await t.client.post('/api/v1/auth/pow-challenge')).body) });
    expect((await t.client.post('/api/v1/auth/extension', first)).status).to.equal(200);
    const again = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()));
    expect(again.status).to.equal(401);
    expect(again.body.error.code).to.equal('proof_replayed');
    t.clock.advance(1_000);
    expect((await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()))).status).to.equal(200);
  });

  it('a refused attempt does not use its timestamp up', async () => {
    const used = await solvePow((await t.client.post('/api/v1/auth/pow-challenge')).body);
    expect((await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { altcha_solution: used }))).status).to.equal(200);
    const btc = new BtcKey();
    // Refused inside the login's transaction (the proof-of-work solution is spent), after the timestamp was spent there.
    const refused = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { altcha_solution: used }));
    expect(refused.body.error.code).to.equal('pow_invalid');
    const fresh = await solvePow((await t.client.post('/api/v1/auth/pow-challenge')).body);
    const retried = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { altcha_solution: fresh }));
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
  });
});
