import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, provenKeyBody, seedUser, useTestBackend, type DialectName, type TestBackend, type TestResponse } from '../../harness/index.js';
import { phasedGate } from './gate-plugin.js';

/**
 * Any number of concurrent extension logins of one wallet all succeed and land on one account
 * (issue: on Postgres, the first logins of a wallet whose BTC key a Nostr-registered account had
 * proved answered 409 identity_conflict, or 400 pow_required on a gated server: the login that
 * lost the race to attach the pubkey_hash fell through to the new-account path). Also the first
 * logins of a brand-new wallet.
 */

const RACERS = 24;

async function count(t: TestBackend, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = (await t.backend.db.knex(table).where(where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n);
}

/** The login transactions the database saw, from knex's query events: how many were open at one instant at most. */
function transactionOverlap(t: TestBackend): { stop(): number } {
  const windows = new Map<string, { start: number; end: number }>();
  const seen = (event: { __knexTxId?: string }) => {
    if (event.__knexTxId === undefined) return;
    const now = performance.now();
    const window = windows.get(event.__knexTxId);
    if (window === undefined) windows.set(event.__knexTxId, { start: now, end: now });
    else window.end = now;
  };
  const onAnswer = (_response: unknown, event: { __knexTxId?: string }) => seen(event);
  const { knex } = t.backend.db;
  knex.on('query', seen).on('query-response', onAnswer).on('query-error', onAnswer);
  return {
    stop() {
      knex.off('query', seen).off('query-response', onAnswer).off('query-error', onAnswer);
      const edges = [...windows.values()].flatMap((w) => [[w.start, 1], [w.end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let open = 0;
      let most = 0;
      for (const [, step] of edges) most = Math.max(most, (open += step));
      return most;
    },
  };
}

/** RACERS logins of `btc` at once, each with its own timestamp (a timestamp is single use), after warming the pool; proves they overlapped. */
async function loginRace(t: TestBackend, dialect: DialectName, btc: BtcKey, fields: Record<string, unknown> = {}): Promise<TestResponse[]> {
  await Promise.all(Array.from({ length: RACERS }, () => t.client.get('/api/v1/health')));
  if (dialect === 'postgres') {
    const client = t.backend.db.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> };
    const held = await Promise.all(Array.from({ length: RACERS }, () => client.acquireConnection()));
    await Promise.all(held.map((connection) => client.releaseConnection(connection)));
  }
  const base = t.clock.now().getTime();
  const bodies = Array.from({ length: RACERS }, (_, i) => extensionBody(btc, new Date(base - i * 1000), fields));
  const overlap = transactionOverlap(t);
  const starts: number[] = [];
  const ends: number[] = [];
  const results = await Promise.all(
    bodies.map(async (body, i) => {
      starts[i] = performance.now();
      try {
        return await t.client.post('/api/v1/auth/extension', body);
      } finally {
        ends[i] = performance.now();
      }
    }),
  );
  const most = overlap.stop();
  expect(Math.max(...starts), 'the last login was sent before the first one was answered').to.be.lessThan(Math.min(...ends));
  // SQLite's one writer connection runs the transactions one after another by construction.
  if (dialect === 'postgres') expect(most, 'login transactions open in the database at one instant').to.be.greaterThan(RACERS / 2);
  return results;
}

const outcomes = (results: TestResponse[]) => results.map((r) => (r.status === 200 ? `200 ${r.body.user_id}` : `${r.status} ${r.body.error?.code}`));

eachDialect('identity: concurrent extension logins of one wallet', (dialect) => {
  // Proof of work on: a login that took the new-account path would be refused pow_required.
  const t = useTestBackend(dialect, { settings: { registrationRequirePow: true, powDifficulty: 2_000, databasePoolMax: RACERS } });

  it('a Nostr-registered account that proved the BTC key: every first login lands on it, none gated, none in conflict', async () => {
    const { id } = await seedUser(t.backend, { nostrPubkey: 'ab'.repeat(32) });
    const { access_token: token } = await t.backend.sessions.start(id, 'nostr');
    const btc = new BtcKey();
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) }, id), { token });
    expect(proof.status, proof.text).to.equal(200);

    const results = await loginRace(t, dialect, btc);
    expect(outcomes(results)).to.deep.equal(results.map(() => `200 ${id}`));
    expect(await count(t, 'users')).to.equal(1);
    expect(await count(t, 'sessions', { user_id: id, platform: 'extension' })).to.equal(RACERS);
  });
});

eachDialect('identity: concurrent first logins of a brand-new wallet', (dialect) => {
  const t = useTestBackend(dialect, { settings: { databasePoolMax: RACERS } });

  it('one account, and every login lands on it', async () => {
    const btc = new BtcKey();
    const results = await loginRace(t, dialect, btc);
    const [{ id }] = (await t.backend.db.knex('users').select('id')) as [{ id: string }];
    expect(await count(t, 'users')).to.equal(1);
    expect(outcomes(results)).to.deep.equal(results.map(() => `200 ${id}`));
  });
});

eachDialect('identity: the gates are skipped only for a login that will adopt an account', (dialect) => {
  // A gate whose precheck refuses (the payment gate asks the processor there whether the invoice
  // is Settled; its admit only consumes the row): a new identity that skipped it would be
  // registered unpaid. The login skips the precheck up front when the key has a proven owner;
  // when that owner cannot be adopted, RegistrationGates.admit must precheck it after all.
  const gate = phasedGate('precheck-only-gate');
  const t = useTestBackend(dialect, { plugins: [gate.plugin] });

  it('a BTC key proven by an account that already has another BTC identity: its login is a new identity, prechecked like any other', async () => {
    const k1 = new BtcKey();
    const a = await t.client.post('/api/v1/auth/extension', extensionBody(k1, t.clock.now()));
    expect(a.status, a.text).to.equal(200);
    const k2 = new BtcKey();
    const proof = await t.client.post('/api/v1/keys', provenKeyBody({ asset: 'btc', publicKey: k2.publicKeyHex, sign: (m) => k2.signMessage(m) }, a.body.user_id), { token: a.body.access_token });
    expect(proof.status, proof.text).to.equal(200);
    // K2's own login cannot adopt A (A has K1's pubkey_hash): it is a new identity.
    gate.prechecks.length = 0;
    gate.admits.length = 0;
    gate.refusePrecheck = true;
    t.clock.advance(1000);
    const refused = await t.client.post('/api/v1/auth/extension', extensionBody(k2, t.clock.now()));
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'precheck_refused']);
    expect(gate.admits).to.deep.equal([]);
    expect(await count(t, 'users')).to.equal(1);
  });
});
