import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { ManualClock } from '@wallet/backend-core/testing';
import { createPeppers } from '../../../packages/core/src/crypto/index.js';
import { NostrIdentityService, type NostrDeps } from '../../../packages/core/src/identity/nostr-service.js';
import { BtcKey, eachDialect, extensionBody, mergeSignature, NostrKey, seedUser, TEST_SECRETS, useTestBackend, type TestBackend } from '../../harness/index.js';
import { phasedGate } from './gate-plugin.js';

/**
 * POST /auth/nostr/register and the gates' precheck (spec › Nostr register): the precheck runs,
 * outside the registering transaction, unless the npub is already linked or the request joins
 * (with a signature by its proven BTC key) an account that has no npub. The seed fingerprint
 * plays no part: an account of the same seed is neither joined nor a reason for a 409.
 * Also: the login is recorded on the nostr platform, and a concurrent twin's unique collision is
 * retried once into the twin's account.
 */

const REGISTER = '/api/v1/auth/nostr/register';
const SEED = '0badc0de';

/** The peppered form the users table stores (HMAC-SHA256 under PEPPER_SECRET), written out here. */
function pepper(value: string): string {
  return createHmac('sha256', TEST_SECRETS.pepperSecret).update(value).digest('hex');
}


async function register(t: TestBackend, nostr: NostrKey, seed = SEED) {
  const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce as string;
  return t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: seed });
}

/** An account straight in storage with this (peppered) seed and npub. */
async function accountOfSeed(t: TestBackend, seed: string, nostrPubkey: string | null): Promise<string> {
  const { id } = await seedUser(t.backend, { nostrPubkey });
  await t.backend.db.knex('users').where({ id }).update({ seed_fingerprint: pepper(seed) });
  return id;
}

async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

eachDialect('identity: Nostr register, merging by seed and the gates’ precheck', (dialect) => {
  const gate = phasedGate('nostr-phased-gate');
  const refuse = (on: boolean) => {
    gate.refusePrecheck = on;
    gate.refuseAdmit = on;
  };
  // One database connection on both dialects, so a precheck held inside a transaction would hold the database.
  const t = useTestBackend(dialect, { plugins: [gate.plugin], settings: { databasePoolMax: 1 } });
  beforeEach(() => {
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    refuse(false);
    gate.hold = undefined;
    gate.entered = undefined;
  });

  it('a new npub with a seed of no account is prechecked before the transaction (the database stays free), then admitted and created', async () => {
    const nostr = new NostrKey();
    let release!: () => void;
    gate.hold = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (gate.entered = resolve));
    const pending = register(t, nostr);
    try {
      await entered;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), 3000)));
      // Another request that needs the (only) database connection while the precheck waits.
      const other = await Promise.race([t.client.get('/api/v1/auth/nostr/register-challenge'), deadline]);
      clearTimeout(timer);
      expect(other, 'a request waited for the new npub’s precheck: it ran inside the transaction').to.not.equal('blocked');
      expect(other === 'blocked' ? 0 : other.status).to.equal(200);
      expect(gate.admits).to.deep.equal([]);
    } finally {
      release();
    }
    const created = await pending;
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    expect(gate.admits.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    const row = await t.backend.db.knex('users').where({ id: created.body.user_id }).first();
    expect(row.nostr_pubkey).to.equal(nostr.pubkey);
    expect(row.seed_fingerprint).to.equal(pepper(SEED));
  });

  it('a refusing precheck refuses a new npub with a seed of no account and creates nothing', async () => {
    refuse(true);
    const res = await register(t, new NostrKey());
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('precheck_refused');
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(0);
  });

  it('a seed whose only account has no npub, without a join proof: prechecked and created like any new npub, the account untouched', async () => {
    const wallet = await accountOfSeed(t, SEED, null);
    refuse(true);
    const nostr = new NostrKey();
    const refused = await register(t, nostr);
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'precheck_refused']);
    refuse(false);
    const res = await register(t, nostr);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.user_id).to.not.equal(wallet);
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }, { kind: 'npub', value: nostr.pubkey }]);
    expect(gate.admits.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    expect((await t.backend.db.knex('users').where({ id: wallet }).first()).nostr_pubkey).to.equal(null);
    expect(await count(t, 'users')).to.equal(2);
  });

  it('an account that proved a BTC key joins with that key’s signature: no precheck, no admit, even while the gates refuse', async () => {
    const btc = new BtcKey();
    const wallet = await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { seed_fingerprint: SEED }));
    expect(wallet.status).to.equal(200);
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    refuse(true);
    const nostr = new NostrKey();
    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce as string;
    const res = await t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: SEED, merge_signature: mergeSignature(btc, nostr.pubkey, nonce) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.user_id).to.equal(wallet.body.user_id);
    expect(gate.prechecks).to.deep.equal([]);
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(1);
  });

  it('a seed whose accounts all hold another npub, without a proof: prechecked and created, never 409 (no oracle on the seed)', async () => {
    const holder = new NostrKey();
    await accountOfSeed(t, SEED, holder.pubkey);
    const nostr = new NostrKey();
    const res = await register(t, nostr);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(gate.prechecks.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    expect(gate.admits.map((a) => a.identity)).to.deep.equal([{ kind: 'npub', value: nostr.pubkey }]);
    expect(await count(t, 'users')).to.equal(2);
  });

  it('an npub already linked to an account logs into it under a new seed with no gate, and the account adopts no other seed', async () => {
    const nostr = new NostrKey();
    const first = await register(t, nostr);
    expect(first.status).to.equal(200);
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    refuse(true);
    const again = await register(t, nostr, 'feedface');
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.user_id).to.equal(first.body.user_id);
    expect(gate.prechecks).to.deep.equal([]);
    expect(gate.admits).to.deep.equal([]);
    expect((await t.backend.db.knex('users').where({ id: first.body.user_id }).first()).seed_fingerprint).to.equal(pepper(SEED));
  });

  it('an npub linked to an account without a seed: that account adopts the seed, no gate', async () => {
    const nostr = new NostrKey();
    const { id } = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    refuse(true);
    const res = await register(t, nostr);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.user_id).to.equal(id);
    expect(gate.prechecks).to.deep.equal([]);
    expect((await t.backend.db.knex('users').where({ id }).first()).seed_fingerprint).to.equal(pepper(SEED));
  });

  it('records the registration and starts the session on the nostr platform', async () => {
    const res = await register(t, new NostrKey());
    expect(res.status).to.equal(200);
    expect(res.body.platform).to.equal('nostr');
    expect(await t.backend.db.knex('login_events').where({ user_id: res.body.user_id }).select('platform', 'fingerprint')).to.deep.equal([{ platform: 'nostr', fingerprint: pepper(SEED) }]);
    expect(await t.backend.db.knex('sessions').where({ user_id: res.body.user_id }).select('platform')).to.deep.equal([{ platform: 'nostr' }]);
  });
});

eachDialect('identity: Nostr register, concurrent twins of one new npub', (dialect) => {
  const t = useTestBackend(dialect);

  it('one account, and every answer is that account (200)', async () => {
    const nostr = new NostrKey();
    const nonces = await Promise.all(Array.from({ length: 8 }, async () => (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce as string));
    const results = await Promise.all(
      nonces.map((nonce) => t.client.post(REGISTER, { nostr_token: nostr.signedAction(REGISTER, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: SEED })),
    );
    const accounts = await t.backend.db.knex('users').select('id', 'nostr_pubkey');
    expect(accounts).to.have.length(1);
    expect(accounts[0].nostr_pubkey).to.equal(nostr.pubkey);
    expect(results.map((r) => [r.status, r.body.user_id])).to.deep.equal(results.map(() => [200, accounts[0].id]));
  });

  // The forced interleaving needs two writers at once: on SQLite the backend's one connection
  // serialises the registering transaction (a second connection writing mid-transaction makes
  // SQLite refuse the upgrade with SQLITE_BUSY, not a unique violation), so the twin's collision
  // can only be forced on Postgres.
  if (dialect === 'postgres') {
    it('a twin committing the npub between our reads and our insert: ours retries once and logs into the twin’s account', async () => {
      const nostr = new NostrKey();
      // The twin's row, written but not committed: our reads see no holder of the npub.
      const trx: Knex.Transaction = await t.backend.db.knex.transaction();
      const twin = randomUUID();
      const stamp = t.backend.db.dialect.time(new Date('2026-01-01T00:00:00.000Z'));
      await trx('users').insert({ id: twin, nostr_pubkey: nostr.pubkey, created_at: stamp, updated_at: stamp });
      let committed: Promise<unknown> | undefined;
      const listener = (query: { sql: string; bindings?: readonly unknown[] }) => {
        if (committed === undefined && query.sql.toLowerCase().startsWith('insert ') && /\busers\b/.test(query.sql) && (query.bindings ?? []).includes(nostr.pubkey)) committed = trx.commit();
      };
      t.backend.db.knex.on('query', listener);
      let res;
      try {
        res = await register(t, nostr);
      } finally {
        t.backend.db.knex.removeListener('query', listener);
        if (committed === undefined) await trx.rollback();
        else await committed;
      }
      expect(committed, 'the twin committed between our reads and our insert').to.not.equal(undefined);
      // Our transaction lost the race on the npub; its one retry finds the twin's account and logs into it.
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.user_id).to.equal(twin);
      expect(await t.backend.db.knex('users').select('id')).to.deep.equal([{ id: twin }]);
      expect(await t.backend.db.knex('sessions').select('user_id')).to.deep.equal([{ user_id: twin }]);
    });
  }
});

describe('identity: NostrIdentityService.register, errors of the registering transaction', () => {
  const pubkey = 'cd'.repeat(32);
  function service(transaction: () => Promise<never>): NostrIdentityService {
    const deps = {
      db: { transaction },
      identities: { byNostr: async () => null },
      signedActions: { verify: async () => ({ pubkey }) },
      gates: { precheck: async () => undefined },
      peppers: createPeppers(TEST_SECRETS.pepperSecret, TEST_SECRETS.ipHashSalt),
      clock: new ManualClock(),
      network: 'mainnet',
    } as unknown as NostrDeps;
    return new NostrIdentityService(deps);
  }
  const request = { nostr_token: 'token', nonce: 'nonce', seed_fingerprint: SEED, keys: [] };
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('the registration should have failed'),
      (e: unknown) => e as { code?: string; status?: number; cause?: unknown },
    );

  it('a unique violation on the npub, twice, is 409 identity_conflict carrying the database error as its cause (one retry)', async () => {
    const violation = Object.assign(new Error('UNIQUE constraint failed: users.nostr_pubkey'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    let runs = 0;
    const err = await failure(service(async () => (runs++, Promise.reject(violation))).register(request, '127.0.0.1'));
    expect(err.code).to.equal('identity_conflict');
    expect(err.status).to.equal(409);
    expect(err.cause).to.equal(violation);
    expect(runs).to.equal(2);
  });

  it('a unique violation on another index is not an identity conflict: passed on unchanged, not retried', async () => {
    const violation = Object.assign(new Error('UNIQUE constraint failed: sessions.refresh_token_hash'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    let runs = 0;
    const err = await failure(service(async () => (runs++, Promise.reject(violation))).register(request, '127.0.0.1'));
    expect(err).to.equal(violation);
    expect(runs).to.equal(1);
  });

  it('any other error is passed on unchanged', async () => {
    const broken = new Error('connection terminated');
    const err = await failure(service(async () => Promise.reject(broken)).register(request, '127.0.0.1'));
    expect(err).to.equal(broken);
  });
});
