import { expect } from 'chai';
import { erasurePlugin } from '@wallet/erasure';
import type { WalletPlugin } from '@wallet/backend-core';
import { BtcKey, createTestBackend, eachDialect, extensionBody, holdTransaction, NostrKey, waitingOn, websiteLogin, type SigningKey, type TestBackend, type TestResponse } from '../harness/index.js';
import { API, confirmPath, proof, requestAndConfirm } from './harness.js';

const HOUR_MS = 3_600_000;
const GRACE_MS = 72 * HOUR_MS;
const PENDING = { code: 'account_erasure_pending', message: 'This account is frozen by a confirmed erasure request: cancel the erasure first to sign in again.' };
const cancelPath = (id: string) => `${API}/account/erasure/${id}`;

function btcSigning(key: BtcKey): SigningKey {
  return { asset: 'btc', publicKey: key.publicKeyHex, sign: (m) => key.signMessage(m) };
}

interface Account {
  id: string;
  btc: BtcKey;
  nostr: NostrKey;
  /** The token pair of the extension login that registered it. */
  tokens: { access_token: string; refresh_token: string };
}

/** An account registered through the extension login (BTC identity) with a Nostr key linked, so every login path reaches it. */
async function account(t: TestBackend): Promise<Account> {
  const btc = new BtcKey();
  const nostr = new NostrKey();
  const res = await t.client.post(`${API}/auth/extension`, extensionBody(btc, t.clock.now()));
  expect(res.status, res.text).to.equal(200);
  await t.backend.db.knex('users').where({ id: res.body.user_id }).update({ nostr_pubkey: nostr.pubkey });
  return { id: res.body.user_id, btc, nostr, tokens: res.body };
}

/** Every way to get a new session of `a`: each answer. */
async function everyLogin(t: TestBackend, a: Account): Promise<Record<string, TestResponse>> {
  // a fresh second: each login proof is single use, and the same second would sign the same one
  t.clock.advance(2_000);
  const nonce = (await t.client.get(`${API}/auth/nostr/register-challenge`)).body.nonce as string;
  const register = `${API}/auth/nostr/register`;
  return {
    nostr: await t.client.request('POST', `${API}/auth/nostr`, { headers: { authorization: a.nostr.nip98(`${API}/auth/nostr`, t.clock.now()) } }),
    nostrRegister: await t.client.post(register, { nostr_token: a.nostr.signedAction(register, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: 'a1b2c3d4' }),
    extension: await t.client.post(`${API}/auth/extension`, extensionBody(a.btc, t.clock.now())),
    website: await websiteLogin(t, btcSigning(a.btc)),
  };
}

const outcome = (answers: Record<string, TestResponse>) => Object.fromEntries(Object.entries(answers).map(([path, res]) => [path, res.status === 200 ? [200, res.body.user_id] : [res.status, res.body?.error]]));

async function sessionsOf(t: TestBackend, userId: string) {
  return t.backend.db.knex('sessions').where({ user_id: userId }).orderBy('id');
}

async function liveSessions(t: TestBackend, userId: string): Promise<number> {
  return (await t.backend.db.knex('sessions').where({ user_id: userId }).whereNull('revoked_at')).length;
}

eachDialect('erasure: a confirmed erasure freezes the account', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });
  });
  afterEach(async () => {
    await t?.close();
  });

  it('every login path: allowed while only requested, refused (403 account_erasure_pending, nothing stored) from confirmation to the end of the grace period, allowed again after cancel', async () => {
    const a = await account(t);
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, a.nostr, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    const allowed = { nostr: [200, a.id], nostrRegister: [200, a.id], extension: [200, a.id], website: [200, a.id] };
    expect(outcome(await everyLogin(t, a)), 'a request not yet confirmed freezes nothing').to.deep.equal(allowed);

    const confirmed = await t.client.post(confirmPath(id), await proof(t, a.nostr, 'erasure_confirm', confirmPath(id)));
    expect(confirmed.status).to.equal(200);
    const due = Date.parse(confirmed.body.due_at as string);
    const refused = { nostr: [403, PENDING], nostrRegister: [403, PENDING], extension: [403, PENDING], website: [403, PENDING] };
    const sessions = await sessionsOf(t, a.id);
    // Every login path records its login event in the transaction that stores the session, so a refused one leaves none.
    const events = () => t.backend.db.knex('login_events').where({ user_id: a.id }).orderBy('id');
    const eventsBefore = await events();
    expect(await liveSessions(t, a.id)).to.equal(0);
    expect(outcome(await everyLogin(t, a)), 'right after confirmation').to.deep.equal(refused);
    // everyLogin moves the clock 2 s first: these logins and the cancel below run 1 s before the due time
    t.clock.advance(due - t.clock.now().getTime() - 2_000 - 1_000);
    expect(outcome(await everyLogin(t, a)), 'a second before the due time').to.deep.equal(refused);
    expect(t.clock.now().getTime()).to.equal(due - 1_000);
    expect(await sessionsOf(t, a.id), 'no session stored').to.deep.equal(sessions);
    expect(await events(), 'no login event stored').to.deep.equal(eventsBefore);

    const cancelled = await t.client.delete(cancelPath(id), await proof(t, a.nostr, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expect([cancelled.status, cancelled.body.status], 'cancel is proof-gated, not session-gated').to.deep.equal([200, 'cancelled']);
    const again = await everyLogin(t, a);
    expect(outcome(again)).to.deep.equal(allowed);
    expect((await t.client.get(`${API}/auth/me`, { token: again.website!.body.access_token })).status).to.equal(200);
  });

  it('past the due time and until the sweep: still refused; after the sweep the account is gone', async () => {
    const a = await account(t);
    await requestAndConfirm(t, a.nostr);
    t.clock.advance(GRACE_MS);
    expect(outcome(await everyLogin(t, a))).to.deep.include({ nostr: [403, PENDING], extension: [403, PENDING], website: [403, PENDING] });
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: a.id }).first()).to.equal(undefined);
    const nostr = await t.client.request('POST', `${API}/auth/nostr`, { headers: { authorization: a.nostr.nip98(`${API}/auth/nostr`, t.clock.now()) } });
    expect([nostr.status, nostr.body.error.code]).to.deep.equal([401, 'nostr_not_linked']);
  });

  it('tokens issued before confirmation stop acting: the bearer guard refuses the revoked session; its refresh token answers the freeze, and after cancel it is still revoked', async () => {
    const a = await account(t);
    expect((await t.client.get(`${API}/auth/me`, { token: a.tokens.access_token })).status).to.equal(200);
    await requestAndConfirm(t, a.nostr);
    const me = await t.client.get(`${API}/auth/me`, { token: a.tokens.access_token });
    expect([me.status, me.body.error.code]).to.deep.equal([401, 'unauthorized']);
    const linkChallenge = await t.client.get(`${API}/auth/nostr/link-challenge`, { token: a.tokens.access_token });
    expect(linkChallenge.status, 'a bearer route that stores a challenge').to.equal(401);
    const refresh = await t.client.post(`${API}/auth/refresh`, { refresh_token: a.tokens.refresh_token });
    expect([refresh.status, refresh.body.error], 'the freeze is checked before the session').to.deep.equal([403, PENDING]);
    const id = (await t.backend.db.knex('erasure_requests').where({ user_id: a.id }).first()).id as string;
    await t.client.delete(cancelPath(id), await proof(t, a.nostr, 'erasure_cancel', cancelPath(id), 'DELETE'));
    const after = await t.client.post(`${API}/auth/refresh`, { refresh_token: a.tokens.refresh_token });
    expect([after.status, after.body.error.code], 'confirmation ended that session for good').to.deep.equal([401, 'invalid_refresh_token']);
    expect((await t.client.get(`${API}/auth/me`, { token: a.tokens.access_token })).status).to.equal(401);
  });

  // A refresh runs no guard: confirmation's revocation, ordered with the refresh's one statement
  // by the user row, is what stops it. The confirmation is held after it locked the user row (its
  // request row is locked by the test); the refresh provably waits for it on Postgres.
  it('a refresh arriving while a confirmation holds the user row waits for it, then answers 403 account_erasure_pending with nothing rotated', async () => {
    const a = await account(t);
    const knex = t.backend.db.knex;
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, a.nostr, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    const confirmBody = await proof(t, a.nostr, 'erasure_confirm', confirmPath(id));
    const before = await sessionsOf(t, a.id);
    const request = await holdTransaction(knex, (trx) => (dialect === 'postgres' ? trx.raw('select id from erasure_requests where id = ? for update', [id]) : trx.raw('select 1')));
    let confirmed = false;
    let refreshed = false;
    try {
      const confirming = t.client.post(confirmPath(id), confirmBody).finally(() => (confirmed = true));
      const confirmation = await waitingOn(knex, request, { statement: /^update "erasure_requests"/i, settled: () => confirmed });
      const refreshing = t.client.post(`${API}/auth/refresh`, { refresh_token: a.tokens.refresh_token }).finally(() => (refreshed = true));
      await waitingOn(knex, confirmation ?? request, { statement: /^with "?transitioned"? as \(update "sessions"/i, alreadyWaiting: 1, settled: () => refreshed });
      await request.release();
      const [confirmation2, refresh] = await Promise.all([confirming, refreshing]);
      expect([confirmation2.status, confirmation2.body.status], confirmation2.text).to.deep.equal([200, 'confirmed']);
      if (dialect === 'postgres' || refresh.status !== 200) {
        expect([refresh.status, refresh.body.error]).to.deep.equal([403, PENDING]);
        expect((await sessionsOf(t, a.id)).map((row) => row.id), 'nothing rotated').to.deep.equal(before.map((row) => row.id));
      }
      // (SQLite serialises whole requests on one connection: a refresh that got it first ran wholly before the confirmation.)
    } finally {
      if (!request.trx.isCompleted()) await request.release();
    }
    expect(await liveSessions(t, a.id), 'no session outlives the confirmation').to.equal(0);
  });

  it('a refresh holding the user row when the confirmation comes: the confirmation waits, then ends the session the refresh made', async () => {
    const a = await account(t);
    const knex = t.backend.db.knex;
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, a.nostr, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    const confirmBody = await proof(t, a.nostr, 'erasure_confirm', confirmPath(id));
    // Stops the refresh's statement at the session row, after its share lock on the user row.
    const sessionRow = await holdTransaction(knex, (trx) => (dialect === 'postgres' ? trx.raw('select id from sessions where user_id = ? for update', [a.id]) : trx.raw('select 1')));
    let confirmed = false;
    let refreshed = false;
    try {
      const refreshing = t.client.post(`${API}/auth/refresh`, { refresh_token: a.tokens.refresh_token }).finally(() => (refreshed = true));
      const rotation = await waitingOn(knex, sessionRow, { statement: /^with "?transitioned"? as \(update "sessions"/i, settled: () => refreshed });
      const confirming = t.client.post(confirmPath(id), confirmBody).finally(() => (confirmed = true));
      await waitingOn(knex, rotation ?? sessionRow, { statement: /from "users"/i, alreadyWaiting: 1, settled: () => confirmed });
      await sessionRow.release();
      const [refresh, confirmation] = await Promise.all([refreshing, confirming]);
      expect(refresh.status, refresh.text).to.equal(200);
      expect([confirmation.status, confirmation.body.status], confirmation.text).to.deep.equal([200, 'confirmed']);
      expect((await t.client.get(`${API}/auth/me`, { token: refresh.body.access_token })).status, 'the refreshed session was ended').to.equal(401);
    } finally {
      if (!sessionRow.trx.isCompleted()) await sessionRow.release();
    }
    expect(await liveSessions(t, a.id)).to.equal(0);
  });

  it('only the frozen account: another account logs in and refreshes as before', async () => {
    const a = await account(t);
    const b = await account(t);
    await requestAndConfirm(t, a.nostr);
    expect(outcome(await everyLogin(t, b))).to.deep.equal({ nostr: [200, b.id], nostrRegister: [200, b.id], extension: [200, b.id], website: [200, b.id] });
    expect((await t.client.post(`${API}/auth/refresh`, { refresh_token: b.tokens.refresh_token })).status).to.equal(200);
  });
});

eachDialect('erasure: concurrent logins of one account while erasure is on', (dialect) => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })], settings: { databasePoolMax: 16 } });
  });
  afterEach(async () => {
    await t?.close();
  });

  // The guard's user-row lock must not conflict with the foreign-key lock a login's earlier
  // insert (its login event) holds on the same row: two such logins would each wait for the
  // other (Postgres: deadlock detected, a 500).
  it('16 Nostr and website logins of one account at once: every one 200, none deadlocked', async () => {
    const a = await account(t);
    await Promise.all(Array.from({ length: 16 }, () => t.client.get(`${API}/health`)));
    const base = t.clock.now().getTime();
    const logins = Array.from({ length: 16 }, (_, i) =>
      i % 4 === 3
        ? websiteLogin(t, btcSigning(a.btc))
        : t.client.request('POST', `${API}/auth/nostr`, { headers: { authorization: a.nostr.nip98(`${API}/auth/nostr`, new Date(base - i * 1000)) } }),
    );
    const answers = await Promise.all(logins);
    expect(answers.map((res) => (res.status === 200 ? 200 : `${res.status} ${res.body?.error?.code}`))).to.deep.equal(answers.map(() => 200));
    expect(await liveSessions(t, a.id)).to.equal(17);
  });
});

eachDialect('erasure: a login racing the confirmation', (dialect) => {
  let t: TestBackend;
  afterEach(async () => {
    await t?.close();
  });

  it('the confirmation lands while a login is between the freeze check and storing its session: the confirmation waits, then revokes that session', async function () {
    this.timeout(30_000);
    const stall: { armed: boolean; erasureId: string; confirmBody?: { nostr_token: string; nonce: string }; during?: Promise<TestResponse>; settledDuringStall?: boolean } = { armed: false, erasureId: '' };
    // Runs after the erasure plugin's guard (plugins set up in order), inside the login's transaction.
    const staller: WalletPlugin = {
      name: 'staller',
      setup(ctx) {
        ctx.auth.addSessionGuard(async () => {
          if (!stall.armed) return;
          stall.armed = false;
          let settled = false;
          stall.during = t.client.post(confirmPath(stall.erasureId), stall.confirmBody).finally(() => void (settled = true));
          await new Promise((resolve) => setTimeout(resolve, 500));
          stall.settledDuringStall = settled;
        });
      },
    };
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true }), staller] });
    const a = await account(t);
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, a.nostr, 'erasure_request', `${API}/account/erasure`));
    stall.erasureId = requested.body.erasure_id as string;
    stall.confirmBody = await proof(t, a.nostr, 'erasure_confirm', confirmPath(stall.erasureId));
    stall.armed = true;
    const login = await websiteLogin(t, btcSigning(a.btc));
    expect(stall.settledDuringStall, 'the confirmation was sent and had not finished while the login held its transaction').to.equal(false);
    const confirmed = await stall.during!;
    expect([confirmed.status, confirmed.body.status], confirmed.text).to.deep.equal([200, 'confirmed']);
    expect(login.status, 'the login passed the check before the confirmation').to.equal(200);
    expect(await liveSessions(t, a.id), 'no session outlives the confirmation').to.equal(0);
    expect((await t.client.get(`${API}/auth/me`, { token: login.body.access_token })).status).to.equal(401);
  });
});

eachDialect('erasure: the freeze costs a refresh nothing', (dialect) => {
  for (const enabled of [false, true]) {
    it(`erasure ${enabled ? 'on' : 'off'}: a refresh is the rotation alone, no guard and no transaction of its own`, async () => {
      const t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled })] });
      try {
        const a = await account(t);
        const seen: string[] = [];
        const record = (query: { sql: string }) => seen.push(query.sql.trim().split(/\s+/)[0]!.toLowerCase().replace(/;$/, ''));
        t.backend.db.knex.on('query', record);
        const res = await t.client.post(`${API}/auth/refresh`, { refresh_token: a.tokens.refresh_token });
        t.backend.db.knex.off('query', record);
        expect(res.status, res.text).to.equal(200);
        // Postgres rotates in one statement (a data-modifying WITH that share-locks the user row);
        // SQLite in two, in the transaction its single writer needs for them.
        expect(seen).to.deep.equal(dialect === 'postgres' ? ['with'] : ['begin', 'update', 'insert', 'commit']);
      } finally {
        await t.close();
      }
    });
  }
});

eachDialect('erasure: the freeze only while erasure is on', (dialect) => {
  const opened: TestBackend[] = [];
  afterEach(async () => {
    for (const b of opened.splice(0)) await b.close();
  });

  it('confirmed with erasure on; the same database served with erasure off logs the account in (nothing could cancel); on again, frozen again', async () => {
    const on = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });
    opened.push(on);
    const a = await account(on);
    await requestAndConfirm(on, a.nostr);
    const nostrLogin = (t: TestBackend) => t.client.request('POST', `${API}/auth/nostr`, { headers: { authorization: a.nostr.nip98(`${API}/auth/nostr`, t.clock.now()) } });
    const frozen = await nostrLogin(on);
    expect([frozen.status, frozen.body.error]).to.deep.equal([403, PENDING]);

    const off = await createTestBackend(dialect, { databaseUrl: on.databaseUrl, plugins: [erasurePlugin({ enabled: false })] });
    opened.push(off);
    off.clock.advance(60_000);
    const allowed = await nostrLogin(off);
    expect([allowed.status, allowed.body.user_id], allowed.text).to.deep.equal([200, a.id]);

    const again = await createTestBackend(dialect, { databaseUrl: on.databaseUrl, plugins: [erasurePlugin({ enabled: true })] });
    opened.push(again);
    again.clock.advance(120_000);
    const refused = await nostrLogin(again);
    expect([refused.status, refused.body.error]).to.deep.equal([403, PENDING]);
    // The session opened while erasure was off: a refresh is not gated by the guard, so the
    // sweep (its first run comes within seconds of the start) ends it, and then it is refused.
    await again.backend.scheduler.runNow('erasure.sweep');
    const refresh = await again.client.post(`${API}/auth/refresh`, { refresh_token: allowed.body.refresh_token });
    expect([refresh.status, refresh.body.error]).to.deep.equal([403, PENDING]);
    expect((await again.client.get(`${API}/auth/me`, { token: allowed.body.access_token })).status).to.equal(401);
    await again.backend.scheduler.runNow('erasure.sweep');
    expect(await liveSessions(again, a.id), 'nothing left to end').to.equal(0);
  });
});
