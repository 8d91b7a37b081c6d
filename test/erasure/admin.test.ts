import { expect } from 'chai';
import { erasurePlugin } from '@wallet/erasure';
import { adminLogin, bootstrapAdmin, createTestBackend, eachDialect, NostrKey, seedUser, type TestBackend } from '../harness/index.js';
import { API, requestAndConfirm, requestSeal } from './harness.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const HOUR_MS = 3_600_000;
const GRACE_MS = 72 * HOUR_MS;
const at = (ms: number) => new Date(T0 + ms).toISOString();
/** UUIDs whose order is known (the list breaks ties on equal creation times by id, descending). */
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** An admin list's cursor, computed here (core's paging convention): base64url of `<epoch ms>.<id>`. */
const cursorOf = (ms: number, id: string) => Buffer.from(`${ms}.${id}`, 'utf8').toString('base64url');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

const REQUESTS = `${API}/admin/erasure/requests`;
const SWEEP = `${API}/admin/erasure/sweep`;
const STUCK = `${API}/admin/erasure/stuck`;
/** Core's account view, whose `sections.erasure` is erasure's `onUserSummary` answer. */
const ACCOUNT = `${API}/admin/users`;
const NEVER_SWEPT = { started_at: null, finished_at: null, due_found: null, completed: null, failed: null, expired: null };

/** A row as the admin list shows it: every field, nulls where the request has no such time. */
function listed(row: { id: string; status: string; user_id: string | null; created: number; confirmed?: number; due?: number; ended?: number; attempts?: number; last_error?: string | null }) {
  const ended = (status: string) => (row.status === status && row.ended !== undefined ? at(row.ended) : null);
  return {
    erasure_id: row.id,
    status: row.status,
    user_id: row.user_id,
    requested_at: at(row.created),
    confirmed_at: row.confirmed === undefined ? null : at(row.confirmed),
    due_at: row.due === undefined ? null : at(row.due),
    completed_at: ended('completed'),
    cancelled_at: ended('cancelled'),
    expired_at: ended('expired'),
    attempts: row.attempts ?? 0,
    last_error: row.last_error ?? null,
  };
}

/** A full admin token and a read-scope admin's key and token (admin sessions are short: log in again after moving the clock). */
async function admins(t: TestBackend): Promise<{ full: string; read: string; reader: NostrKey }> {
  const first = await bootstrapAdmin(t);
  const full = await adminLogin(t, first.nostr);
  const reader = new NostrKey();
  const created = await t.client.post(`${API}/admin/keys`, { pubkey: reader.pubkey, scope: 'read' }, { token: full });
  expect(created.status, created.text).to.equal(201);
  return { full, read: await adminLogin(t, reader), reader };
}

eachDialect('erasure admin API: requests by state, the last sweep, the account summary', (dialect) => {
  const w = {} as { t: TestBackend; user: { id: string; key: NostrKey; token: string } };
  beforeEach(async () => {
    w.t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });
    const key = new NostrKey();
    const { id } = await seedUser(w.t.backend, { nostrPubkey: key.pubkey, username: 'erin' });
    w.user = { id, key, token: (await w.t.backend.sessions.start(id, 'extension')).access_token };
  });
  afterEach(async () => {
    await w.t?.close();
  });

  it('every state listed with exact bodies and pages; across the due time a real sweep completes, expires and records its run', async () => {
    const { t, user } = w;
    const { time } = t.backend.db.dialect;
    expect(t.clock.now().toISOString()).to.equal(at(0));
    const { full, reader } = await admins(t);
    let read = await adminLogin(t, reader);
    const seeded = async (name: string) => (await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey, username: name })).id;
    const [p1, p2, p3, c, e, quiet] = [await seeded('pia'), await seeded('pat'), await seeded('pol'), await seeded('cai'), await seeded('eve'), await seeded('quinn')];

    // The world user's request goes through the real flow: requested and confirmed at T0.
    const w0 = await requestAndConfirm(t, user.key);
    // The rest are written as the service would have (the seal is irrelevant: none of them is swept as confirmed).
    const rows = [
      { id: uuid(1), user_id: p1, status: 'requested', created: 1_000 },
      { id: uuid(2), user_id: p2, status: 'requested', created: 2_000 },
      { id: uuid(3), user_id: p3, status: 'requested', created: 2_000 },
      { id: uuid(4), user_id: c, status: 'cancelled', created: -48 * HOUR_MS, confirmed: -47 * HOUR_MS, due: 25 * HOUR_MS, ended: -46 * HOUR_MS },
      { id: uuid(5), user_id: e, status: 'expired', created: -50 * HOUR_MS, ended: -26 * HOUR_MS },
      { id: uuid(6), user_id: null, status: 'completed', created: -100 * HOUR_MS, confirmed: -99 * HOUR_MS, due: -27 * HOUR_MS, ended: -27 * HOUR_MS + 30_000, attempts: 1 },
      // p1's earlier request, cancelled before confirmation: its summary is the newer one
      { id: uuid(8), user_id: p1, status: 'cancelled', created: -60 * HOUR_MS, ended: -59 * HOUR_MS },
    ];
    const stamp = (ms: number | undefined) => (ms === undefined ? null : time(new Date(T0 + ms)));
    await t.backend.db.knex('erasure_requests').insert(
      rows.map((row) => ({ id: row.id, user_id: row.user_id, status: row.status, created_at: stamp(row.created), confirmed_at: stamp(row.confirmed), due_at: stamp(row.due), ended_at: stamp(row.ended), attempts: row.attempts ?? 0 })),
    );
    const mine = { id: w0, user_id: user.id, status: 'confirmed', created: 0, confirmed: 0, due: GRACE_MS };
    const get = async (path: string, token?: string) => {
      const res = await t.client.get(path, { token: token ?? read });
      expect(res.status, `${path}: ${res.text}`).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    const summary = async (userId: string) => ((await get(`${ACCOUNT}/${userId}`)).sections as Record<string, unknown>).erasure;

    // Never swept: the run's fields are null; the next due time is the confirmed request's.
    expect(await get(SWEEP)).to.deep.equal({ ...NEVER_SWEPT, next_due_at: at(GRACE_MS) });
    // A run with nothing due (nothing older than the 24 h confirmation window either) is recorded too.
    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    expect(await get(SWEEP)).to.deep.equal({ started_at: at(0), finished_at: at(0), due_found: 0, completed: 0, failed: 0, expired: 0, next_due_at: at(GRACE_MS) });

    // requested: newest first, equal times by id (descending); `next_after` only while more remain
    const page1 = await get(`${REQUESTS}?state=requested&limit=2`);
    expect(page1).to.deep.equal({ requests: [listed(rows[2]!), listed(rows[1]!)], next_after: cursorOf(T0 + 2_000, uuid(2)) });
    expect(await get(`${REQUESTS}?state=requested&limit=2&after=${page1.next_after as string}`)).to.deep.equal({ requests: [listed(rows[0]!)], next_after: null });
    expect(await get(`${REQUESTS}?state=requested&limit=3`), 'exactly a page: no next').to.deep.equal({ requests: [listed(rows[2]!), listed(rows[1]!), listed(rows[0]!)], next_after: null });
    expect(await get(`${REQUESTS}?state=requested&limit=1&after=${cursorOf(T0 + 2_000, uuid(3))}`), 'a tie on the time continues by id').to.deep.equal({ requests: [listed(rows[1]!)], next_after: cursorOf(T0 + 2_000, uuid(2)) });
    expect(await get(`${REQUESTS}?state=confirmed`, full)).to.deep.equal({ requests: [listed(mine)], next_after: null });
    expect(await get(`${REQUESTS}?state=cancelled`)).to.deep.equal({ requests: [listed(rows[3]!), listed(rows[6]!)], next_after: null });
    expect(await get(`${REQUESTS}?state=cancelled&limit=1`)).to.deep.equal({ requests: [listed(rows[3]!)], next_after: cursorOf(T0 - 48 * HOUR_MS, uuid(4)) });
    expect(await get(`${REQUESTS}?state=expired`)).to.deep.equal({ requests: [listed(rows[4]!)], next_after: null });
    expect(await get(`${REQUESTS}?state=completed`)).to.deep.equal({ requests: [listed(rows[5]!)], next_after: null });

    // The account view's section: the user's newest request.
    expect(await summary(user.id)).to.deep.equal({ state: 'confirmed', requested_at: at(0), due_at: at(GRACE_MS) });
    expect(await summary(p1)).to.deep.equal({ state: 'requested', requested_at: at(1_000), due_at: null });
    expect(await summary(c)).to.deep.equal({ state: 'cancelled', requested_at: at(-48 * HOUR_MS), due_at: null });
    expect(await summary(quiet)).to.deep.equal({ state: 'none', requested_at: null, due_at: null });

    // Across the due time: stuck until a sweep runs (the existing route, unchanged).
    t.clock.advance(GRACE_MS + 60_000);
    const now = GRACE_MS + 60_000;
    read = await adminLogin(t, reader);
    expect(await get(STUCK)).to.deep.equal({ requests: [{ erasure_id: w0, due_at: at(GRACE_MS), overdue_sec: 60, attempts: 0, last_error: null }] });
    expect(await get(SWEEP), 'the idle run is still the last').to.deep.equal({ started_at: at(0), finished_at: at(0), due_found: 0, completed: 0, failed: 0, expired: 0, next_due_at: at(GRACE_MS) });

    // A real sweep: the record is written in a statement of its own, outside every transaction of the run.
    const statements: Array<{ sql: string; tx: boolean }> = [];
    const record = (query: { sql: string; __knexTxId?: string }) => statements.push({ sql: query.sql, tx: query.__knexTxId !== undefined });
    t.backend.db.knex.on('query', record);
    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    t.backend.db.knex.off('query', record);
    const writes = statements.flatMap((s, i) => (s.sql.includes('erasure_sweep_runs') ? [{ ...s, i }] : []));
    expect(writes.map((s) => s.tx), 'one statement, in no transaction').to.deep.equal([false]);
    const lastOfRun = statements.findLastIndex((s) => s.tx || s.sql.includes('erasure_requests'));
    expect(lastOfRun, 'after every statement of the run').to.be.below(writes[0]!.i);

    expect(await get(SWEEP)).to.deep.equal({ started_at: at(now), finished_at: at(now), due_found: 1, completed: 1, failed: 0, expired: 3, next_due_at: null });
    // completed: the tombstone names no one
    expect(await t.backend.db.knex('erasure_requests').where({ id: w0 }).first()).to.include({ status: 'completed', user_id: null });
    expect(await get(`${REQUESTS}?state=completed`)).to.deep.equal({ requests: [listed({ ...mine, status: 'completed', user_id: null, ended: now }), listed(rows[5]!)], next_after: null });
    expect(await get(`${REQUESTS}?state=expired`)).to.deep.equal({ requests: [2, 1, 0].map((i) => listed({ ...rows[i]!, status: 'expired', ended: now })).concat(listed(rows[4]!)), next_after: null });
    for (const state of ['requested', 'confirmed']) expect(await get(`${REQUESTS}?state=${state}`), state).to.deep.equal({ requests: [], next_after: null });
    expect(await get(STUCK)).to.deep.equal({ requests: [] });
    expect(await summary(p1)).to.deep.equal({ state: 'expired', requested_at: at(1_000), due_at: null });
    const gone = await t.client.get(`${ACCOUNT}/${user.id}`, { token: read });
    expect([gone.status, gone.body.error?.code], 'the user is gone').to.deep.equal([404, 'admin_user_not_found']);

    // More requests due than a run takes (20), none of which it can carry out (their seals are
    // wrong): the next run finds 21, fails 20, leaves the last; the one record row is replaced.
    const badDue = now + 30_000;
    const badUsers = [quiet];
    for (let i = 1; i < 21; i++) badUsers.push(await seeded(`bad${i}`));
    const bad = badUsers.map((userId, i) => ({ id: uuid(100 + i), user_id: userId, status: 'confirmed', created: badDue - GRACE_MS, confirmed: badDue - GRACE_MS, due: badDue }));
    const unsealed = (id: string, userId: string) => requestSeal(id, userId, new Date(T0 + badDue)).replace(/^./, (ch) => (ch === '0' ? '1' : '0'));
    await t.backend.db.knex('erasure_requests').insert(bad.map((row) => ({ id: row.id, user_id: row.user_id, status: row.status, created_at: stamp(row.created), confirmed_at: stamp(row.confirmed), due_at: stamp(row.due), attempts: 0, integrity: unsealed(row.id, row.user_id) })));
    expect(await get(SWEEP), 'a confirmed request is the next due').to.deep.equal({ started_at: at(now), finished_at: at(now), due_found: 1, completed: 1, failed: 0, expired: 3, next_due_at: at(badDue) });
    t.clock.advance(60_000);
    read = await adminLogin(t, reader);
    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    const later = now + 60_000;
    expect(await get(SWEEP)).to.deep.equal({ started_at: at(later), finished_at: at(later), due_found: 21, completed: 0, failed: 20, expired: 0, next_due_at: at(badDue) });
    expect(await t.backend.db.knex('erasure_sweep_runs').count({ n: '*' }).first()).to.deep.include({ n: dialect === 'postgres' ? '1' : 1 });
    const lastError = 'Error: the erasure request is not sealed by this server (its integrity check failed); nothing was erased';
    // newest first, equal times by id: the unclaimed one (the highest id) first, without an attempt
    expect(await get(`${REQUESTS}?state=confirmed&limit=2`), 'never the seal').to.deep.equal({ requests: [listed(bad[20]!), listed({ ...bad[19]!, attempts: 1, last_error: lastError })], next_after: cursorOf(T0 + badDue - GRACE_MS, bad[19]!.id) });
    expect(await summary(quiet)).to.deep.equal({ state: 'confirmed', requested_at: at(badDue - GRACE_MS), due_at: at(badDue) });
  });

  it('reads only for admins: read scope allowed; no token, a user token 401; bad state, limit or cursor 400 invalid_request', async () => {
    const { t, user } = w;
    const { read } = await admins(t);
    for (const path of [`${REQUESTS}?state=requested`, SWEEP, STUCK]) {
      expect((await t.client.get(path, { token: read })).status, `${path} read scope`).to.equal(200);
      const none = await t.client.get(path);
      expect([none.status, none.body.error?.code], `${path} no token`).to.deep.equal([401, 'admin_unauthorized']);
      const userToken = await t.client.get(path, { token: user.token });
      expect([userToken.status, userToken.body.error?.code], `${path} user token`).to.deep.equal([401, 'admin_unauthorized']);
    }
    const bad = [
      '',
      '?state=',
      '?state=live',
      '?state=REQUESTED',
      '?state=requested&limit=0',
      '?state=requested&limit=501',
      '?state=requested&limit=1.5',
      '?state=requested&limit=-1',
      '?state=requested&limit=abc',
      '?state=requested&after=',
      '?state=requested&after=abc',
      // the cursor's body in clear is not a cursor; encoded, a body without a time or an id, or with a leading zero, is none either
      `?state=requested&after=${T0}.${uuid(1)}`,
      `?state=requested&after=${b64(`01.${uuid(1)}`)}`,
      `?state=requested&after=${b64(uuid(1))}`,
      `?state=requested&after=${b64(`${T0}.`)}`,
      `?state=requested&after=${b64(`${T0}:${uuid(1)}`)}`,
      `?state=requested&after=${cursorOf(T0, uuid(1))}==`,
    ];
    for (const query of bad) {
      const res = await t.client.get(`${REQUESTS}${query}`, { token: read });
      expect([res.status, res.body.error?.code], query).to.deep.equal([400, 'invalid_request']);
    }
    expect((await t.client.get(`${REQUESTS}?state=requested&limit=500&after=${cursorOf(0, uuid(1))}`, { token: read })).body).to.deep.equal({ requests: [], next_after: null });
    // the admin API has no write here
    expect((await t.client.post(SWEEP, {}, { token: read })).status).to.equal(405);
  });
});

eachDialect('erasure admin API while erasure is off', (dialect) => {
  let t: TestBackend | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('the admin reads stay mounted (a database once served with erasure on keeps its requests); no sweeper runs, so the run fields stay null', async () => {
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: false })] });
    const { reader } = await admins(t);
    const { id } = await seedUser(t.backend, { username: 'olga' });
    const { time } = t.backend.db.dialect;
    const other = (await seedUser(t.backend, { username: 'oleg' })).id;
    const row = (n: number, userId: string, created: number) => ({ id: uuid(n), user_id: userId, status: 'confirmed', created_at: time(new Date(T0 + created)), confirmed_at: time(new Date(T0 + created)), due_at: time(new Date(T0 + created + GRACE_MS)), attempts: 0, integrity: requestSeal(uuid(n), userId, new Date(T0 + created + GRACE_MS)) });
    // the newer request is due later: the next due time is the older one's
    await t.backend.db.knex('erasure_requests').insert([row(9, id, 0), row(10, other, HOUR_MS)]);
    t.clock.advance(GRACE_MS + 1_000);
    const read = await adminLogin(t, reader);
    const requests = await t.client.get(`${REQUESTS}?state=confirmed`, { token: read });
    const confirmed = (n: number, userId: string, created: number) => listed({ id: uuid(n), user_id: userId, status: 'confirmed', created, confirmed: created, due: created + GRACE_MS });
    expect([requests.status, requests.body]).to.deep.equal([200, { requests: [confirmed(10, other, HOUR_MS), confirmed(9, id, 0)], next_after: null }]);
    const sweep = await t.client.get(SWEEP, { token: read });
    expect([sweep.status, sweep.body]).to.deep.equal([200, { ...NEVER_SWEPT, next_due_at: at(GRACE_MS) }]);
    await t.backend.scheduler.runNow('erasure.sweep').then(
      () => expect.fail('a sweep task exists while erasure is off'),
      (err: Error) => expect(err.message).to.equal('no scheduler task "erasure.sweep"'),
    );
    const account = await t.client.get(`${ACCOUNT}/${id}`, { token: read });
    expect([account.status, account.body.sections?.erasure], account.text).to.deep.equal([200, { state: 'confirmed', requested_at: at(0), due_at: at(GRACE_MS) }]);
  });
});
