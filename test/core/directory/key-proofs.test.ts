import { expect } from 'chai';
import { ASSETS } from '@wallet/backend-core';
import {
  BtcKey,
  eachDialect,
  extensionBody,
  extensionWallet,
  keyProofMessage,
  nostrWallet,
  provenKeyBody,
  signingKeysOfEveryAsset,
  useTestBackend,
  websiteLogin,
  type SigningKey,
  type TestBackend,
} from '../../harness/index.js';

/**
 * POST /keys key proofs (issue 29 item 11): a proof signed by any key but the registered one is
 * refused for EVERY asset. Skipping the check for one asset (BTC was the one the suite missed)
 * lets an attacker take the proof of the victim's key, and with it the victim's logins.
 */

const label = (key: SigningKey) => `${key.asset} ${key.publicKey.slice(0, 10)}…`;

/** Every user_keys row with every column: a refused request must not even touch one. */
async function allKeyRows(t: TestBackend): Promise<unknown[]> {
  return t.backend.db.knex('user_keys').orderBy('id').select('*');
}

/** The POST /keys body claiming `key` for `userId`, but signed by `signer` (a key of the same kind). */
function forgedBody(key: SigningKey, signer: SigningKey, userId: string): Record<string, unknown> {
  return { asset: key.asset, public_key: key.publicKey, signature: signer.sign(keyProofMessage(userId, key.asset, key.publicKey)) };
}

function btcSigningKey(btc: BtcKey, uncompressed: boolean): SigningKey {
  return uncompressed
    ? { asset: 'btc', publicKey: btc.uncompressedHex, sign: (m) => btc.signMessage(m, 'btc', { uncompressed: true }) }
    : { asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) };
}

describe('test harness: signingKeysOfEveryAsset', () => {
  it('holds a key of every asset the backend knows, BTC included', () => {
    const assets = new Set(signingKeysOfEveryAsset().map((key) => key.asset));
    expect([...assets].sort()).to.deep.equal([...ASSETS].sort());
  });
});

eachDialect('directory: key proofs (POST /keys), every asset', (dialect) => {
  const t = useTestBackend(dialect);

  it('every asset: a proof signed by another key is refused, stores nothing and moves no proof', async () => {
    const keys = signingKeysOfEveryAsset();
    const others = signingKeysOfEveryAsset();
    for (const [index, key] of keys.entries()) {
      const other = others[index]!;
      expect(other.publicKey, label(key)).to.not.equal(key.publicKey);
      const attacker = await extensionWallet(t);

      // Nobody holds the key yet: the forged proof claims it for the attacker.
      let before = await allKeyRows(t);
      const unclaimed = await t.client.post('/api/v1/keys', forgedBody(key, other, attacker.userId), { token: attacker.token });
      expect(unclaimed.status, label(key)).to.equal(400);
      expect(unclaimed.body.error.code, label(key)).to.equal('key_proof_invalid');
      expect(await allKeyRows(t), label(key)).to.deep.equal(before);
      expect((await websiteLogin(t, key)).status, label(key)).to.equal(401);

      // Its holder proves it; the same forgery must not move the proof to the attacker.
      const holder = await extensionWallet(t);
      const proven = await t.client.post('/api/v1/keys', provenKeyBody(key, holder.userId), { token: holder.token });
      expect(proven.status, label(key)).to.equal(200);
      expect(proven.body.proven, label(key)).to.equal(true);
      before = await allKeyRows(t);
      const taken = await t.client.post('/api/v1/keys', forgedBody(key, other, attacker.userId), { token: attacker.token });
      expect(taken.status, label(key)).to.equal(400);
      expect(taken.body.error.code, label(key)).to.equal('key_proof_invalid');
      expect(await allKeyRows(t), label(key)).to.deep.equal(before);
      const login = await websiteLogin(t, key);
      expect(login.status, label(key)).to.equal(200);
      expect(login.body.user_id, label(key)).to.equal(holder.userId);
    }
  });

  it('BTC: the victim key posted with the attacker signature is refused; the victim logins still resolve to the victim', async () => {
    for (const uncompressed of [false, true]) {
      const tag = uncompressed ? 'uncompressed' : 'compressed';
      // The victim registered through Nostr and proved its BTC key: that proof is what its BTC logins resolve through.
      const victimBtc = new BtcKey();
      const victimKey = btcSigningKey(victimBtc, uncompressed);
      const victim = await nostrWallet(t);
      const proven = await t.client.post('/api/v1/keys', provenKeyBody(victimKey, victim.userId), { token: victim.token });
      expect(proven.status, tag).to.equal(200);
      expect(proven.body.proven, tag).to.equal(true);
      expect((await websiteLogin(t, victimKey)).body.user_id, tag).to.equal(victim.userId);

      const attackerBtc = new BtcKey();
      const attacker = await extensionWallet(t, attackerBtc);
      const before = await allKeyRows(t);
      const attack = await t.client.post('/api/v1/keys', forgedBody(victimKey, btcSigningKey(attackerBtc, uncompressed), attacker.userId), { token: attacker.token });
      expect(attack.status, tag).to.equal(400);
      expect(attack.body.error.code, tag).to.equal('key_proof_invalid');
      expect(await allKeyRows(t), tag).to.deep.equal(before);

      const login = await websiteLogin(t, victimKey);
      expect(login.status, tag).to.equal(200);
      expect(login.body.user_id, tag).to.equal(victim.userId);
      // The extension login of the victim's wallet adopts the account that proved the key: still the victim's.
      const extension = await t.client.post('/api/v1/auth/extension', extensionBody(victimBtc, t.clock.now()));
      expect(extension.status, tag).to.equal(200);
      expect(extension.body.user_id, tag).to.equal(victim.userId);
    }
  });

  it('BTC: the same attack on a victim whose BTC key is its identity is refused too', async () => {
    const victimBtc = new BtcKey();
    const victim = await extensionWallet(t, victimBtc);
    const attackerBtc = new BtcKey();
    const attacker = await extensionWallet(t, attackerBtc);
    const victimKey = btcSigningKey(victimBtc, false);
    const before = await allKeyRows(t);
    const attack = await t.client.post('/api/v1/keys', forgedBody(victimKey, btcSigningKey(attackerBtc, false), attacker.userId), { token: attacker.token });
    expect(attack.status).to.equal(400);
    expect(attack.body.error.code).to.equal('key_proof_invalid');
    expect(await allKeyRows(t)).to.deep.equal(before);
    expect((await websiteLogin(t, victimKey)).body.user_id).to.equal(victim.userId);
  });
});
