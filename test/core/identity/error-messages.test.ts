import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, mergeSignature, NostrKey, seedSession, useTestBackend, type TestResponse } from '../../harness/index.js';

/**
 * The identity refusals' messages as the wallet receives them: each error body carries its code
 * and its fixed human-readable message (literal known answers, not read from the catalogue).
 */

const LINK = '/api/v1/auth/nostr/link';
const REGISTER = '/api/v1/auth/nostr/register';

function expectError(res: TestResponse, status: number, code: string, message: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.error).to.deep.equal({ code, message });
}

eachDialect('identity: the refusals’ messages', (dialect) => {
  const t = useTestBackend(dialect, { settings: { restoreIpThreshold: 2, restoreFailThreshold: 100, restoreWindowSec: 600 } });
  const extension = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);

  it('extension login: an invalid proof, an expired one, a replayed one, a mismatched BTC key, a duplicated key', async () => {
    const btc = new BtcKey();
    const forged = { ...extensionBody(btc, t.clock.now()), signature: extensionBody(new BtcKey(), t.clock.now()).signature };
    expectError(await extension(forged), 401, 'proof_invalid', 'The key-control proof is invalid.');
    expectError(await extension(extensionBody(btc, new Date(t.clock.now().getTime() - 301_000))), 401, 'proof_expired', 'The proof timestamp is outside the accepted window.');
    expectError(
      await extension(extensionBody(btc, t.clock.now(), { keys: [{ asset: 'btc', public_key: new BtcKey().publicKeyHex }] })),
      400,
      'key_mismatch',
      'The submitted BTC key does not match the proven key.',
    );

    const other = new BtcKey();
    const duplicated = await extension(extensionBody(btc, t.clock.now(), { keys: [{ asset: 'btc', public_key: btc.publicKeyHex }, { asset: 'btc', public_key: other.publicKeyHex }] }));
    expect(duplicated.status, duplicated.text).to.equal(400);
    expect(duplicated.body.error.code).to.equal('duplicate_key');
    expect(duplicated.body.error.message).to.equal('The keys list has more than one key for one asset and key type.');

    const body = extensionBody(btc, t.clock.now());
    expect((await extension(body)).status).to.equal(200);
    expectError(await extension(body), 401, 'proof_replayed', 'This proof was already used.');
  });

  it('Nostr: an unlinked npub logging in, an account linking a second npub, a seed registered under another npub', async () => {
    expectError(await t.client.request('POST', '/api/v1/auth/nostr', { headers: { authorization: new NostrKey().nip98('/api/v1/auth/nostr', t.clock.now()) } }), 401, 'nostr_not_linked', 'This Nostr identity is not linked to an account.');

    const { auth } = await seedSession(t.backend);
    const link = async (nostr: NostrKey) => {
      const nonce = (await t.client.get('/api/v1/auth/nostr/link-challenge', { token: auth.access_token })).body.nonce;
      return t.client.post(LINK, { nostr_token: nostr.signedAction(LINK, nonce, 'nostr_link', t.clock.now()), nonce }, { token: auth.access_token });
    };
    expect((await link(new NostrKey())).status).to.equal(200);
    expectError(await link(new NostrKey()), 409, 'account_nostr_linked', 'This account is already linked to another Nostr identity.');

    // A wallet whose proven BTC key joins (merge_signature) an account that already has another npub.
    const register = async (nostr: NostrKey, btc: BtcKey) => {
      const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
      return t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', merge_signature: mergeSignature(btc, nostr.pubkey, nonce) });
    };
    const btc = new BtcKey();
    expect((await extension(extensionBody(btc, t.clock.now()))).status).to.equal(200);
    expect((await register(new NostrKey(), btc)).status).to.equal(200);
    expectError(await register(new NostrKey(), btc), 409, 'seed_registered_elsewhere', 'This wallet is registered under another Nostr identity.');
  });

  it('restore check: past the per-IP budget', async () => {
    const check = (seed: string) => t.client.post('/api/v1/auth/check-restore', { seed_fingerprint: seed });
    expect((await check('10000000')).status).to.equal(200);
    expect((await check('10000001')).status).to.equal(200);
    const limited = await check('10000002');
    expectError(limited, 429, 'restore_limited', 'Too many restore checks; retry later.');
    expect(limited.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
  });
});
