import { expect } from 'chai';
import type { PaymentProcessor, PluginContext } from '@wallet/backend-core';
import { ManualClock } from '@wallet/backend-core/testing';
import { premiumTerms } from '../../packages/premium/src/options.js';
import { PremiumService } from '../../packages/premium/src/service.js';
import { eachDialect } from '../harness/index.js';
import { PREMIUM_OPTIONS } from './harness.js';
import { api, useProbedPremiumWorld } from './support.js';

// Survivors of `npm run test:mutation` on packages/premium/src/service.ts (docs/testing.md).

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return 'resolved';
};

eachDialect('premium: service survivors', (dialect) => {
  const w = useProbedPremiumWorld(dialect);

  it('terms without a processor is premium off: nothing created, nothing activated', async () => {
    const users: PluginContext['users'] = w.ctx.users;
    const service = new PremiumService({ db: w.t.backend.db, clock: w.t.clock, users, processor: null, terms: premiumTerms(PREMIUM_OPTIONS) });
    expect(await codeOf(service.createInvoice(w.alice.userId, 'month'))).to.equal('premium_off');
    expect(await codeOf(service.activate(w.alice.userId, 'any'))).to.equal('premium_off');
    const processor = {} as PaymentProcessor;
    const off = new PremiumService({ db: w.t.backend.db, clock: w.t.clock, users, processor, terms: null });
    expect(await codeOf(off.createInvoice(w.alice.userId, 'month'))).to.equal('premium_off');
  });

  it('an account that does not exist has no linked key: its invoice is refused, its status names none', async () => {
    const processor = { createInvoice: () => Promise.reject(new Error('the processor must not be asked')) } as unknown as PaymentProcessor;
    const service = new PremiumService({ db: w.t.backend.db, clock: w.t.clock, users: w.ctx.users, processor, terms: premiumTerms(PREMIUM_OPTIONS) });
    const nobody = '00000000-0000-4000-8000-000000000000';
    expect(await codeOf(service.createInvoice(nobody, 'month'))).to.equal('premium_nostr_not_linked');
    expect(await service.status(nobody)).to.deep.equal({ active: false, premium_until: null, nostr_pubkey: null, relay_premium: false, invoices: [] });
  });

  it('a user who never bought premium is not active, whatever the clock says', async () => {
    const clock = new ManualClock('1969-12-31T23:59:59.000Z');
    const service = new PremiumService({ db: w.t.backend.db, clock, users: w.ctx.users, processor: null, terms: null });
    expect(await service.status(w.alice.userId)).to.deep.equal({ active: false, premium_until: null, nostr_pubkey: w.alice.nostrPubkey, relay_premium: false, invoices: [] });
  });

  // Row locks exist on Postgres only (SQLite runs one writer at a time, which the SQLite runs of the race tests cover): this property is defined there.
  if (dialect === 'postgres')
  it('an invoice creation locks only its own user’s row: other users’ open locks do not hold it up', async function () {
    const { knex } = w.t.backend.db;
    const trx = await knex.transaction();
    try {
      await trx('users').select('id').whereNot({ id: w.bob.userId }).forUpdate();
      const answer = api(w, w.bob).invoice('month');
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        answer.then((response) => response.status),
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve('held by the other users’ locks'), 5_000);
        }),
      ]);
      clearTimeout(timer);
      expect(outcome).to.equal(200);
    } finally {
      await trx.rollback();
    }
  });
});
