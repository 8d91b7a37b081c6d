import { expect } from 'chai';
import { InviteStore, WalletError, type WalletPlugin } from '@wallet/backend-core';
import { BtcKey, eachDialect, extensionBody, useTestBackend, type TestBackend } from '../../harness/index.js';
import { solvePow } from './pow-solver.js';

const order: string[] = [];
let refuseLast = false;
const lastGate: WalletPlugin = {
  name: 'last-gate',
  setup(ctx) {
    ctx.registration.addGate({
      name: 'last-gate',
      precheck: async () => {
        order.push('last');
      },
      admit: async () => {
        if (refuseLast) throw new WalletError('last_refused', 400, 'Refused by the last gate.');
      },
    });
  },
};

eachDialect('gates: order and atomicity', (dialect) => {
  const t: TestBackend = useTestBackend(dialect, { plugins: [lastGate], settings: { registrationRequirePow: true, registrationRequireInvite: true, powDifficulty: 2_000 } });
  beforeEach(() => {
    order.length = 0;
    refuseLast = false;
  });
  const pow = async () => solvePow((await t.client.post('/api/v1/auth/pow-challenge')).body);

  it('runs proof of work, then invite, then later gates; the first refusal stops the rest', async () => {
    const [code] = await new InviteStore(t.backend.db, t.clock).mint(1);
    const noPow = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { invite_code: code }));
    expect(noPow.body.error.code).to.equal('pow_required');
    const noInvite = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { altcha_solution: await pow() }));
    expect(noInvite.body.error.code).to.equal('invite_invalid');
    expect(order).to.deep.equal([]);
  });

  it('a refusal after the invite and the solution consumes neither', async () => {
    const [code] = await new InviteStore(t.backend.db, t.clock).mint(1);
    const solution = await pow();
    refuseLast = true;
    const refused = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { invite_code: code, altcha_solution: solution }));
    expect(refused.body.error.code).to.equal('last_refused');
    expect(order).to.deep.equal(['last']);
    expect(await t.backend.db.knex('invite_codes').whereNotNull('used_at').first()).to.equal(undefined);
    refuseLast = false;
    const admitted = await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { invite_code: code, altcha_solution: solution }));
    expect(admitted.status).to.equal(200);
  });
});
