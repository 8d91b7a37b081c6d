import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, NostrKey, provenKeyBody, useTestBackend, type TestBackend } from '../../harness/index.js';
import { phasedGate } from './gate-plugin.js';

/**
 * Registration gates' precheck at POST /auth/extension: it runs before the login transaction and
 * only for a NEW identity. A known pubkey_hash, and an account that already proved the BTC key
 * (it adopts the pubkey_hash), log in whatever the gates say.
 */


async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

eachDialect('identity: POST /auth/extension and the gates’ precheck', (dialect) => {
  const gate = phasedGate();
  const t = useTestBackend(dialect, { plugins: [gate.plugin] });
  const login = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);
  const REGISTER = '/api/v1/auth/nostr/register';

  beforeEach(() => {
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    gate.refusePrecheck = false;
    gate.refuseAdmit = false;
    gate.hold = undefined;
    gate.entered = undefined;
  });

  it('a refusing precheck refuses a new wallet and creates nothing, and never runs for a known one', async () => {
    const known = new BtcKey();
    const first = await login(extensionBody(known, t.clock.now()));
    expect(first.status).to.equal(200);
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: known.pubkeyHash }]);
    expect(gate.admits).to.have.length(1);

    gate.refusePrecheck = true;
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    const fresh = new BtcKey();
    const refused = await login(extensionBody(fresh, t.clock.now()));
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('precheck_refused');
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: fresh.pubkeyHash }]);
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(1);
    expect(await count(t, 'spent_proofs')).to.equal(1);

    gate.prechecks.length = 0;
    t.clock.advance(1000);
    const again = await login(extensionBody(known, t.clock.now()));
    expect(again.status).to.equal(200);
    expect(again.body.user_id).to.equal(first.body.user_id);
    expect(gate.prechecks).to.deep.equal([]);
    expect(gate.admits).to.deep.equal([]);
  });

  it('a known wallet whose BTC key on file is no longer proven still logs in without any gate', async () => {
    const btc = new BtcKey();
    const first = await login(extensionBody(btc, t.clock.now()));
    expect(first.status).to.equal(200);
    // The account replaces its BTC key with an unproven value: nobody holds btc's proof now.
    const replaced = await t.client.post('/api/v1/keys', { asset: 'btc', public_key: new BtcKey().publicKeyHex }, { token: first.body.access_token });
    expect(replaced.body.proven).to.equal(false);
    expect(await t.backend.db.knex('user_keys').where({ asset: 'btc' }).whereNotNull('proven_at')).to.deep.equal([]);

    gate.prechecks.length = 0;
    gate.admits.length = 0;
    gate.refusePrecheck = true;
    gate.refuseAdmit = true;
    t.clock.advance(1000);
    const again = await login(extensionBody(btc, t.clock.now()));
    expect(again.status).to.equal(200);
    expect(again.body.user_id).to.equal(first.body.user_id);
    expect(gate.prechecks).to.deep.equal([]);
    expect(gate.admits).to.deep.equal([]);
  });

  it('an account that proved the BTC key (Nostr-registered) adopts the pubkey_hash at extension login without any gate', async () => {
    const nostr = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const registered = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de' });
    expect(registered.status).to.equal(200);
    const btc = new BtcKey();
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) }, registered.body.user_id), {
      token: registered.body.access_token,
    });
    expect(proof.status).to.equal(200);
    expect(proof.body.proven).to.equal(true);

    gate.prechecks.length = 0;
    gate.admits.length = 0;
    gate.refusePrecheck = true;
    gate.refuseAdmit = true;
    // docs/wallet-integration.md §7: a returning wallet needs none of the gate inputs.
    const res = await login(extensionBody(btc, t.clock.now(), { seed_fingerprint: '0badc0de' }));
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.equal(registered.body.user_id);
    expect(gate.prechecks).to.deep.equal([]);
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(1);
  });

  it('a slow precheck of a new wallet does not hold the database: another wallet logs in meanwhile', async () => {
    const known = new BtcKey();
    expect((await login(extensionBody(known, t.clock.now()))).status).to.equal(200);

    let release!: () => void;
    gate.hold = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (gate.entered = resolve));
    const fresh = new BtcKey();
    const pending = login(extensionBody(fresh, t.clock.now()));
    try {
      await entered;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), 3000)));
      // A second login of the known wallet (another timestamp, so no replay) while the precheck waits.
      const other = await Promise.race([login(extensionBody(known, new Date(t.clock.now().getTime() - 1000))), deadline]);
      clearTimeout(timer);
      expect(other, 'the known wallet waited for the new wallet’s precheck').to.not.equal('blocked');
      expect(other === 'blocked' ? 0 : other.status).to.equal(200);
    } finally {
      release();
    }
    const created = await pending;
    expect(created.status).to.equal(200);
    expect(gate.prechecks.map((a) => a.identity.value)).to.deep.equal([known.pubkeyHash, fresh.pubkeyHash]);
    expect(await count(t, 'users')).to.equal(2);
  });
});
