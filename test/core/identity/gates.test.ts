import { BootError, type WalletPlugin } from '@wallet/backend-core';
import { expect } from 'chai';
import { BtcKey, createTestBackend, eachDialect, extensionBody, provenKeyBody, rejectionOf, useTestBackend, type TestBackend } from '../../harness/index.js';
import { phasedGate } from './gate-plugin.js';

/**
 * The registration gates' own rules: a gate name is unique across every plugin (a second gate
 * of one name refuses the boot), and a registration that turns out new only inside its
 * transaction (so nothing prechecked it) still goes through every gate's precheck.
 */

async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

/** A plugin adding one admitting gate per name, in order. */
function gatesPlugin(plugin: string, ...names: string[]): WalletPlugin {
  return {
    name: plugin,
    setup(ctx) {
      for (const name of names) ctx.registration.addGate({ name, admit: async () => {} });
    },
  };
}

eachDialect('identity: registration gate names', (dialect) => {
  /** The boot's refusal; a backend that boots after all is closed (and the test fails). */
  async function bootRefusal(plugins: WalletPlugin[]): Promise<unknown> {
    return rejectionOf(
      createTestBackend(dialect, { listen: false, plugins }).then(async (booted) => {
        await booted.close();
        return 'booted';
      }),
    );
  }

  it('two gates with one name, even from two plugins, are a BootError naming the plugin and the gate', async () => {
    const err = await bootRefusal([gatesPlugin('alpha', 'shared'), gatesPlugin('beta', 'other', 'shared', 'third')]);
    expect(err).to.be.instanceOf(BootError);
    expect((err as BootError).problems).to.deep.equal(['beta: registration gate "shared" is registered twice']);
    expect((err as BootError).message).to.include('beta: registration gate "shared" is registered twice');
  });

  it('one plugin adding the same gate name twice is refused the same way', async () => {
    const err = await bootRefusal([gatesPlugin('gamma', 'twice', 'twice')]);
    expect(err).to.be.instanceOf(BootError);
    expect((err as BootError).problems).to.deep.equal(['gamma: registration gate "twice" is registered twice']);
  });

  it('gates with distinct names boot, and a new wallet passes through each of them once', async () => {
    const first = phasedGate('first-gate');
    const second = phasedGate('second-gate');
    const t = await createTestBackend(dialect, { plugins: [first.plugin, second.plugin, gatesPlugin('delta', 'third-gate', 'fourth-gate')] });
    try {
      const btc = new BtcKey();
      const res = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()));
      expect(res.status).to.equal(200);
      for (const gate of [first, second]) {
        expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: btc.pubkeyHash }]);
        expect(gate.admits.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: btc.pubkeyHash }]);
      }
    } finally {
      await t.close();
    }
  });
});

eachDialect('identity: a registration found new only inside its transaction is prechecked by admit', (dialect) => {
  const gate = phasedGate();
  const t = useTestBackend(dialect, { plugins: [gate.plugin] });
  const login = (body: Record<string, unknown>) => t.client.post('/api/v1/auth/extension', body);

  beforeEach(() => {
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    gate.refusePrecheck = false;
    gate.refuseAdmit = false;
  });

  /**
   * An account with a BTC identity of its own that proved a SECOND BTC key: a wallet of that key
   * looks like a returning one before the transaction (a proven holder exists, so no precheck),
   * but the holder cannot adopt its pubkey_hash (it has one), so the login registers a new account.
   */
  async function holderOfSecondKey(): Promise<{ holderId: string; second: BtcKey }> {
    const own = new BtcKey();
    const registered = await login(extensionBody(own, t.clock.now()));
    expect(registered.status).to.equal(200);
    const second = new BtcKey();
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'btc', publicKey: second.publicKeyHex, sign: (m) => second.signMessage(m) }, registered.body.user_id), {
      token: registered.body.access_token,
    });
    expect(proof.status).to.equal(200);
    expect(proof.body.proven).to.equal(true);
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    t.clock.advance(1000);
    return { holderId: registered.body.user_id, second };
  }

  it('a refusing precheck refuses it, though nothing prechecked it before the transaction; nothing is created', async () => {
    const { second } = await holderOfSecondKey();
    const provenBefore = await t.backend.db.knex('user_keys').whereNotNull('proven_at').select('user_id', 'public_key');
    gate.refusePrecheck = true;
    const refused = await login(extensionBody(second, t.clock.now()));
    expect(refused.status).to.equal(400);
    expect(refused.body.error.code).to.equal('precheck_refused');
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: second.pubkeyHash }]);
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(1);
    expect(await t.backend.db.knex('user_keys').whereNotNull('proven_at').select('user_id', 'public_key')).to.deep.equal(provenBefore);
  });

  it('an admitting gate: the precheck runs exactly once (inside the transaction), then admit, and a new account is created', async () => {
    const { holderId, second } = await holderOfSecondKey();
    const res = await login(extensionBody(second, t.clock.now()));
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.not.equal(holderId);
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: second.pubkeyHash }]);
    expect(gate.admits.map((a) => a.identity)).to.deep.equal([{ kind: 'pubkey_hash', value: second.pubkeyHash }]);
    expect(await count(t, 'users')).to.equal(2);
  });
});
