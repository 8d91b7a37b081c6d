import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { erasurePlugin } from '@wallet/erasure';
import { InviteStore } from '@wallet/backend-core';
import { BtcKey, eachDialect, extensionBody, GrinKey, mergeSignature, NostrKey, useTestBackend, type TestBackend } from '../../harness/index.js';
import { solvePow } from '../gates/pow-solver.js';

/**
 * The seed fingerprint is chosen by the wallet and often public (a 4-byte BIP32 master
 * fingerprint travels in every descriptor and PSBT), so it must never join, move or reveal an
 * account by itself (issue: Nostr registration joined the newest account of a fingerprint that
 * had no npub). An attacker who knows a victim's fingerprint gets nothing of the victim's, on an
 * ungated server and on one gated by proof of work and invite; the rightful wallet joins its
 * account only with a signature by the BTC key that account proved, bound to the npub and the
 * register challenge's nonce.
 */

const API = '/api/v1';
const REGISTER = `${API}/auth/nostr/register`;

async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

interface Victim {
  btc: BtcKey;
  grin: GrinKey;
  seed: string;
  id: string;
  username: string;
  token: string;
}

/** Everything of the victim's an attacker would want, as it stands: compared before and after. */
async function snapshot(t: TestBackend, victim: Victim) {
  const user = await t.backend.db.knex('users').where({ id: victim.id }).first();
  const keys = await t.backend.db.knex('user_keys').where({ user_id: victim.id }).orderBy(['asset', 'key_type']).select('asset', 'key_type', 'public_key', 'proven_at');
  const sessions = await t.backend.db.knex('sessions').where({ user_id: victim.id }).orderBy('id').select('id', 'revoked_at');
  const lookup = (await t.client.get(`${API}/users/by-username/${victim.username}`)).body;
  const nip05 = (await t.client.get(`/.well-known/nostr.json?name=${victim.username}`)).body;
  return { user, keys, sessions, lookup, nip05 };
}

eachDialect('identity: a seed fingerprint alone never joins, moves or reveals an account', (dialect) => {
  for (const gated of [false, true]) {
    describe(gated ? 'gated by proof of work and invite' : 'ungated', () => {
      const settings = gated ? { registrationRequirePow: true, registrationRequireInvite: true, powDifficulty: 2_000 } : {};
      const t = useTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })], settings });
      const gateInputs = async (): Promise<Record<string, unknown>> => {
        if (!gated) return {};
        const [code] = await new InviteStore(t.backend.db, t.clock).mint(1);
        return { invite_code: code, altcha_solution: await solvePow((await t.client.post(`${API}/auth/pow-challenge`)).body) };
      };
      const nonce = async () => (await t.client.get(`${API}/auth/nostr/register-challenge`)).body.nonce as string;
      const register = async (nostr: NostrKey, seed: string, fields: Record<string, unknown> = {}, registerNonce?: string) => {
        const n = registerNonce ?? (await nonce());
        return t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, n, 'nostr_register', t.clock.now()), nonce: n, seed_fingerprint: seed, ...fields });
      };

      /** A wallet registered through the extension (its BTC key proven), with a username and a Grin key. */
      async function victim(): Promise<Victim> {
        const btc = new BtcKey();
        const grin = new GrinKey();
        // A 4-byte fingerprint, as a BIP32 master fingerprint is: public wherever descriptors travel.
        const seed = randomBytes(4).toString('hex');
        const keys = [
          { asset: 'btc', public_key: btc.publicKeyHex },
          { asset: 'grin', public_key: grin.slatepackAddress },
        ];
        const res = await t.client.post(`${API}/auth/extension`, extensionBody(btc, t.clock.now(), { seed_fingerprint: seed, keys, ...(await gateInputs()) }));
        expect(res.status, res.text).to.equal(200);
        const username = `victim${randomBytes(3).toString('hex')}`;
        const named = await t.client.post(`${API}/users/me/username`, { username }, { token: res.body.access_token });
        expect(named.status, named.text).to.equal(200);
        t.clock.advance(1000);
        return { btc, grin, seed, id: res.body.user_id, username, token: res.body.access_token };
      }

      it('an attacker registering with the victim’s fingerprint gets nothing of the victim’s', async () => {
        const v = await victim();
        const before = await snapshot(t, v);
        const usersBefore = await count(t, 'users');
        const attacker = new NostrKey();

        const res = await register(attacker, v.seed, { keys: [{ asset: 'grin', public_key: new GrinKey().slatepackAddress }] });
        if (gated) {
          // No gate inputs: refused like any new identity, nothing created, the fingerprint skipped nothing.
          expect([res.status, res.body.error?.code]).to.deep.equal([400, 'pow_required']);
          expect(await count(t, 'users')).to.equal(usersBefore);
          expect(await snapshot(t, v)).to.deep.equal(before);
          return;
        }
        expect(res.status, res.text).to.equal(200);
        expect(res.body.user_id, 'a session on the victim’s account').to.not.equal(v.id);
        const token = res.body.access_token as string;
        expect((await t.client.get(`${API}/auth/me`, { token })).body.id).to.equal(res.body.user_id);

        // What the attacker then tried: the victim's name, the victim's receiving keys, the victim's BTC key.
        const name = await t.client.post(`${API}/users/me/username`, { username: v.username }, { token });
        expect([name.status, name.body.error?.code]).to.deep.equal([409, 'username_unavailable']);
        const keys = await t.client.post(`${API}/keys`, { asset: 'grin', public_key: new GrinKey().slatepackAddress }, { token });
        expect(keys.status, keys.text).to.equal(200);
        const btcKey = await t.client.post(`${API}/keys`, { asset: 'btc', public_key: new BtcKey().publicKeyHex }, { token });
        expect(btcKey.status, btcKey.text).to.equal(200);

        // Export and erasure resolve the attacker's npub to the attacker's own new account only.
        const exportNonce = (await t.client.post(`${API}/account/erasure/challenge`, { purpose: 'erasure_export' })).body.nonce as string;
        const exported = await t.client.post(`${API}/account/export`, { nostr_token: attacker.signedAction(`${API}/account/export`, exportNonce, 'erasure_export', t.clock.now()), nonce: exportNonce });
        expect(exported.status, exported.text).to.equal(200);
        expect(exported.body.sections.core.account.id).to.equal(res.body.user_id);
        expect(JSON.stringify(exported.body)).to.not.include(v.id).and.to.not.include(v.username).and.to.not.include(v.btc.publicKeyHex);
        const erasureNonce = (await t.client.post(`${API}/account/erasure/challenge`, { purpose: 'erasure_request' })).body.nonce as string;
        const erasure = await t.client.post(`${API}/account/erasure`, { nostr_token: attacker.signedAction(`${API}/account/erasure`, erasureNonce, 'erasure_request', t.clock.now()), nonce: erasureNonce });
        expect(erasure.status, erasure.text).to.equal(200);
        expect(await t.backend.db.knex('erasure_requests').where({ user_id: v.id }).first()).to.equal(undefined);

        // The victim's account is exactly as it was: no npub, same keys, sessions, lookup and NIP-05.
        expect(await snapshot(t, v)).to.deep.equal(before);
        expect((await t.client.get(`${API}/auth/me`, { token: v.token })).status).to.equal(200);
        // And the victim's next login lands on the victim's own account, without any gate.
        t.clock.advance(1000);
        const again = await t.client.post(`${API}/auth/extension`, extensionBody(v.btc, t.clock.now(), { seed_fingerprint: v.seed }));
        expect(again.status, again.text).to.equal(200);
        expect(again.body.user_id).to.equal(v.id);
      });

      it('a fingerprint held by an account of another npub answers like any new npub (no 409 oracle, no lock-out)', async () => {
        const holder = new NostrKey();
        const seed = randomBytes(4).toString('hex');
        const first = await register(holder, seed, await gateInputs());
        expect(first.status, first.text).to.equal(200);
        const other = await register(new NostrKey(), seed, await gateInputs());
        expect(other.status, other.text).to.equal(200);
        expect(other.body.user_id).to.not.equal(first.body.user_id);
        expect((await t.backend.db.knex('users').where({ id: first.body.user_id }).first()).nostr_pubkey).to.equal(holder.pubkey);
      });

      it('the rightful wallet joins its account with a signature by the BTC key it proved: no gate, one account', async () => {
        const v = await victim();
        const usersBefore = await count(t, 'users');
        const nostr = new NostrKey();
        const n = await nonce();
        const res = await register(nostr, v.seed, { merge_signature: mergeSignature(v.btc, nostr.pubkey, n) }, n);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.user_id).to.equal(v.id);
        expect(await count(t, 'users')).to.equal(usersBefore);
        expect((await t.backend.db.knex('users').where({ id: v.id }).first()).nostr_pubkey).to.equal(nostr.pubkey);
        const nip05 = await t.client.get(`/.well-known/nostr.json?name=${v.username}`);
        expect(nip05.body.names).to.deep.equal({ [v.username]: nostr.pubkey });
        // The proof is worth one registration: its nonce is spent.
        const replay = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, n, 'nostr_register', t.clock.now()), nonce: n, seed_fingerprint: v.seed, merge_signature: mergeSignature(v.btc, nostr.pubkey, n) });
        expect([replay.status, replay.body.error?.code]).to.deep.equal([401, 'nonce_invalid']);
      });

      it('the join proof works without the fingerprint: the proof decides, not the seed', async () => {
        const v = await victim();
        const nostr = new NostrKey();
        const n = await nonce();
        const res = await register(nostr, 'ffffffff', { merge_signature: mergeSignature(v.btc, nostr.pubkey, n) }, n);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.user_id).to.equal(v.id);
        // The account keeps the fingerprint it had.
        const row = await t.backend.db.knex('users').where({ id: v.id }).first();
        const again = await register(new NostrKey(), v.seed, await gateInputs());
        expect(again.body.user_id).to.not.equal(v.id);
        expect((await t.backend.db.knex('users').where({ id: v.id }).first()).seed_fingerprint).to.equal(row.seed_fingerprint);
      });

      it('a proof that does not bind this npub and nonce, or by a key the account never proved, joins nothing', async () => {
        const v = await victim();
        const attacker = new NostrKey();
        // (a) a real signature of the victim's key, captured from another registration (other npub, other nonce).
        const elsewhere = new NostrKey();
        const captured = mergeSignature(v.btc, elsewhere.pubkey, 'ab'.repeat(32));
        const replayed = await register(attacker, v.seed, { merge_signature: captured, ...(await gateInputs()) });
        expect(replayed.status, replayed.text).to.equal(200);
        expect(replayed.body.user_id).to.not.equal(v.id);
        // (b) a key no account proved, signing for the right npub and nonce: a new account, as without a proof.
        const own = new BtcKey();
        const second = new NostrKey();
        const n = await nonce();
        const unproven = await register(second, v.seed, { merge_signature: mergeSignature(own, second.pubkey, n), ...(await gateInputs()) }, n);
        expect(unproven.status, unproven.text).to.equal(200);
        expect(unproven.body.user_id).to.not.equal(v.id);
        expect((await t.backend.db.knex('users').where({ id: v.id }).first()).nostr_pubkey).to.equal(null);
      });

      it('a merge signature that is not a Bitcoin message signature is 401 proof_invalid and leaves the nonce usable', async () => {
        const nostr = new NostrKey();
        const n = await nonce();
        const bad = await register(nostr, 'a1b2c3d4', { merge_signature: 'not-a-signature' }, n);
        expect([bad.status, bad.body.error?.code]).to.deep.equal([401, 'proof_invalid']);
        expect(await count(t, 'users')).to.equal(0);
        const retry = await register(nostr, 'a1b2c3d4', await gateInputs(), n);
        expect(retry.status, retry.text).to.equal(200);
      });
    });
  }
});
