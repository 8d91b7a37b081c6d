import { expect } from 'chai';
import { PREMIUM_INVOICES_TABLE } from '@wallet/premium';
import { premiumMigrations } from '../../packages/premium/src/migrations.js';
import { adminLogin, bootstrapAdmin, eachDialect, NostrKey, seedUser } from '../harness/index.js';
import { PREMIUM_OPTIONS, usePremiumWorld } from './harness.js';
import { api, codeOf, DAY_MS, type Answer } from './support.js';
import { allowPremiumUpdates, refusePremiumUpdates } from './triggers.js';

const API = '/api/v1/admin/premium';
/** Core's account view, whose `sections.premium` is premium's `onUserSummary` answer. */
const ACCOUNT = '/api/v1/admin/users';
const MINUTE_MS = 60_000;
const EXPIRY_MS = 30 * MINUTE_MS; // PREMIUM_OPTIONS.invoiceExpiryMinutes
/** An admin list's cursor, computed here (core's paging convention): base64url of `<epoch ms>.<id>`. */
const cursorOf = (at: string, id: string) => Buffer.from(`${Date.parse(at)}.${id}`, 'utf8').toString('base64url');

const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('premium: admin routes', (dialect) => {
  const w = usePremiumWorld(dialect);
  const knex = () => w.t.backend.db.knex;

  /** The fixed world of every test below: one invoice in each state, times from `start`. */
  interface Seeded {
    start: number;
    /** alice: expired (made at start, never paid). */
    a1: string;
    /** alice: activated (made start+1m, Settled and redeemed at start+2m, year plan). */
    a2: string;
    /** bob: settled but not activated (made start+3m; the activation at start+4m heard Settled, then failed). */
    b1: string;
    /** alice: pending (made start+44m). */
    a3: string;
    /** bob: pending (made start+45m). */
    b2: string;
  }

  async function invoice(who: 'alice' | 'bob', plan: string): Promise<string> {
    const party = api(w, w[who]);
    await party.relogin();
    const created = await party.invoice(plan);
    expect(created.status, created.text).to.equal(200);
    return created.body.invoice_id as string;
  }

  async function seed(): Promise<Seeded> {
    const start = w.t.clock.now().getTime();
    const a1 = await invoice('alice', 'month');
    w.t.clock.advance(MINUTE_MS);
    const a2 = await invoice('alice', 'year');
    w.t.clock.advance(MINUTE_MS);
    w.btcpay.setStatus(a2, 'Settled');
    expect((await api(w, w.alice).activate(a2)).status).to.equal(200);
    w.t.clock.advance(MINUTE_MS);
    const b1 = await invoice('bob', 'month');
    w.t.clock.advance(MINUTE_MS);
    w.btcpay.setStatus(b1, 'Settled');
    await refusePremiumUpdates(dialect, knex());
    try {
      const failed = await api(w, w.bob).activate(b1);
      expect([failed.status, codeOf(failed)]).to.deep.equal([500, 'internal_error']);
    } finally {
      await allowPremiumUpdates(dialect, knex());
    }
    w.t.clock.advance(40 * MINUTE_MS);
    const a3 = await invoice('alice', 'month');
    w.t.clock.advance(MINUTE_MS);
    const b2 = await invoice('bob', 'month');
    return { start, a1, a2, b1, a3, b2 };
  }

  /** The admin record of each seeded invoice, written out from the seeding above. */
  function expected(s: Seeded) {
    const alice = w.alice.userId;
    const bob = w.bob.userId;
    const month = { plan: 'month', days: 30, amount: '0.0001', currency: 'BTC' };
    const year = { plan: 'year', days: 365, amount: '0.001', currency: 'BTC' };
    const times = (created: number, settled: number | null, activated: number | null) => ({
      created_at: iso(created),
      expires_at: iso(created + EXPIRY_MS),
      settled_at: settled === null ? null : iso(settled),
      activated_at: activated === null ? null : iso(activated),
    });
    const m = (n: number) => s.start + n * MINUTE_MS;
    return {
      a1: { invoice_id: s.a1, user_id: alice, state: 'expired', ...month, ...times(m(0), null, null) },
      a2: { invoice_id: s.a2, user_id: alice, state: 'activated', ...year, ...times(m(1), m(2), m(2)) },
      b1: { invoice_id: s.b1, user_id: bob, state: 'settled_unactivated', ...month, ...times(m(3), m(4), null) },
      a3: { invoice_id: s.a3, user_id: alice, state: 'pending', ...month, ...times(m(44), null, null) },
      b2: { invoice_id: s.b2, user_id: bob, state: 'pending', ...month, ...times(m(45), null, null) },
    };
  }

  let adminKey: NostrKey;
  async function adminToken(): Promise<string> {
    adminKey = (await bootstrapAdmin(w.t)).nostr;
    return adminLogin(w.t, adminKey);
  }

  const get = (path: string, token?: string) => w.t.client.get(path, token === undefined ? {} : { token }) as Promise<Answer>;

  it('GET /admin/premium/invoices: each state lists exactly its invoices, newest first; no state lists all; limit and after page through', async () => {
    const s = await seed();
    const e = expected(s);
    const token = await adminToken();
    const list = async (query: string) => {
      const res = await get(`${API}/invoices${query}`, token);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    expect(await list('?state=pending')).to.deep.equal({ invoices: [e.b2, e.a3], next_after: null });
    expect(await list('?state=expired')).to.deep.equal({ invoices: [e.a1], next_after: null });
    expect(await list('?state=settled_unactivated')).to.deep.equal({ invoices: [e.b1], next_after: null });
    expect(await list('?state=activated')).to.deep.equal({ invoices: [e.a2], next_after: null });
    // The fields in the order the console shows them as columns.
    expect(Object.keys((await list('?state=activated')).invoices[0])).to.deep.equal(['invoice_id', 'user_id', 'state', 'plan', 'days', 'amount', 'currency', 'created_at', 'expires_at', 'settled_at', 'activated_at']);
    expect(await list('')).to.deep.equal({ invoices: [e.b2, e.a3, e.b1, e.a2, e.a1], next_after: null });

    const first = await list('?limit=2');
    expect(first).to.deep.equal({ invoices: [e.b2, e.a3], next_after: cursorOf(e.a3.created_at, s.a3) });
    const second = await list(`?limit=2&after=${first.next_after}`);
    expect(second).to.deep.equal({ invoices: [e.b1, e.a2], next_after: cursorOf(e.a2.created_at, s.a2) });
    const third = await list(`?limit=2&after=${second.next_after}`);
    expect(third).to.deep.equal({ invoices: [e.a1], next_after: null });
    const pending = await list('?state=pending&limit=1');
    expect(pending.invoices).to.deep.equal([e.b2]);
    expect(await list(`?state=pending&limit=1&after=${pending.next_after}`)).to.deep.equal({ invoices: [e.a3], next_after: null });

    // Time moves the unpaid ones from pending to expired; nothing else changes state by time alone.
    w.t.clock.advance(EXPIRY_MS);
    expect(await list('?state=pending')).to.deep.equal({ invoices: [], next_after: null });
    expect(await list('?state=expired')).to.deep.equal({ invoices: [{ ...e.b2, state: 'expired' }, { ...e.a3, state: 'expired' }, e.a1], next_after: null });
    expect(await list('?state=settled_unactivated')).to.deep.equal({ invoices: [e.b1], next_after: null });
  });

  it('the stuck invoice, redeemed once the fault is gone, moves to activated and keeps when it was first heard Settled; a slot reserved mid-creation is never listed', async () => {
    const s = await seed();
    const e = expected(s);
    const token = await adminToken();
    w.t.clock.advance(MINUTE_MS);
    const redeemedAt = w.t.clock.now().getTime();
    await api(w, w.bob).relogin();
    const redeemed = await api(w, w.bob).activate(s.b1);
    expect(redeemed.status, redeemed.text).to.equal(200);
    expect((await get(`${API}/invoices?state=settled_unactivated`, token)).body).to.deep.equal({ invoices: [], next_after: null });
    const b1 = { ...e.b1, state: 'activated', activated_at: iso(redeemedAt) };
    expect((await get(`${API}/invoices?state=activated`, token)).body).to.deep.equal({ invoices: [b1, e.a2], next_after: null });

    const { time } = w.t.backend.db.dialect;
    const now = w.t.clock.now();
    await knex()(PREMIUM_INVOICES_TABLE).insert({ invoice_id: 'reserved:4c1b2f0e', user_id: w.alice.userId, plan_id: 'month', days: 30, amount: '0.0001', currency: 'BTC', created_at: time(now), expires_at: time(new Date(now.getTime() + EXPIRY_MS)), consumed_at: null });
    expect((await get(`${API}/invoices?state=pending`, token)).body.invoices.map((i: { invoice_id: string }) => i.invoice_id)).to.deep.equal([s.b2, s.a3]);
    expect((await get(`${API}/users/${w.alice.userId}`, token)).body.invoice_counts).to.deep.equal({ pending: 1, expired: 1, settled_unactivated: 0, activated: 1 });
  });

  it('invoices made in the same millisecond: paging with limit=1 shows each exactly once', async () => {
    const ids = [await invoice('alice', 'month'), await invoice('alice', 'month'), await invoice('bob', 'month'), await invoice('bob', 'year')];
    const token = await adminToken();
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 10; page++) {
      const res = await get(`${API}/invoices?state=pending&limit=1${after}`, token);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.invoices).to.have.length(1);
      seen.push(res.body.invoices[0].invoice_id);
      if (res.body.next_after === null) break;
      after = `&after=${res.body.next_after}`;
    }
    expect([...seen].sort()).to.deep.equal([...ids].sort());
  });

  it('GET /admin/premium/users/{user_id}: premium_until, counts by state, activations and every invoice with its state and times', async () => {
    const s = await seed();
    const e = expected(s);
    const token = await adminToken();
    const alice = await get(`${API}/users/${w.alice.userId}`, token);
    expect(alice.status, alice.text).to.equal(200);
    expect(alice.body).to.deep.equal({
      user_id: w.alice.userId,
      premium_until: iso(s.start + 2 * MINUTE_MS + 365 * DAY_MS),
      active: true,
      invoice_counts: { pending: 1, expired: 1, settled_unactivated: 0, activated: 1 },
      days_activated: 365,
      activations: [{ invoice_id: s.a2, plan: 'year', days: 365, activated_at: iso(s.start + 2 * MINUTE_MS) }],
      invoices: [e.a3, e.a2, e.a1],
      next_after: null,
    });
    const bob = await get(`${API}/users/${w.bob.userId}`, token);
    expect(bob.body).to.deep.equal({
      user_id: w.bob.userId,
      premium_until: null,
      active: false,
      invoice_counts: { pending: 1, expired: 0, settled_unactivated: 1, activated: 0 },
      days_activated: 0,
      activations: [],
      invoices: [e.b2, e.b1],
      next_after: null,
    });
    const page = await get(`${API}/users/${w.alice.userId}?limit=2`, token);
    expect(page.body.invoices).to.deep.equal([e.a3, e.a2]);
    const rest = await get(`${API}/users/${w.alice.userId}?limit=2&after=${page.body.next_after}`, token);
    expect(rest.body).to.deep.include({ invoices: [e.a1], next_after: null, days_activated: 365 });

    // Bob's stuck invoice redeemed later, then a second plan: two activations, newest first, days summed.
    w.t.clock.advance(MINUTE_MS);
    const firstAt = w.t.clock.now().getTime();
    await api(w, w.bob).relogin();
    expect((await api(w, w.bob).activate(s.b1)).status).to.equal(200);
    w.t.clock.advance(MINUTE_MS);
    w.btcpay.setStatus(s.b2, 'Settled');
    const secondAt = w.t.clock.now().getTime();
    expect((await api(w, w.bob).activate(s.b2)).status).to.equal(200);
    const after = await get(`${API}/users/${w.bob.userId}`, token);
    expect(after.body).to.deep.include({
      premium_until: iso(firstAt + 60 * DAY_MS),
      active: true,
      invoice_counts: { pending: 0, expired: 0, settled_unactivated: 0, activated: 2 },
      days_activated: 60,
      activations: [
        { invoice_id: s.b2, plan: 'month', days: 30, activated_at: iso(secondAt) },
        { invoice_id: s.b1, plan: 'month', days: 30, activated_at: iso(firstAt) },
      ],
    });

    // Lapsed: premium_until stays, active turns false.
    w.t.clock.advance(61 * DAY_MS);
    expect((await get(`${API}/users/${w.bob.userId}`, await adminLogin(w.t, adminKey))).body).to.deep.include({ premium_until: iso(firstAt + 60 * DAY_MS), active: false });
  });

  it('onUserSummary: the account view’s premium section is premium_until, active and the invoice counts by state', async () => {
    const s = await seed();
    let token = await adminToken();
    const section = async (userId: string) => {
      const res = await get(`${ACCOUNT}/${userId}`, token);
      expect(res.status, res.text).to.equal(200);
      return res.body.sections.premium;
    };
    expect(await section(w.alice.userId)).to.deep.equal({
      premium_until: iso(s.start + 2 * MINUTE_MS + 365 * DAY_MS),
      active: true,
      invoices: { pending: 1, expired: 1, settled_unactivated: 0, activated: 1 },
    });
    expect(await section(w.bob.userId)).to.deep.equal({ premium_until: null, active: false, invoices: { pending: 1, expired: 0, settled_unactivated: 1, activated: 0 } });
    const { id: stranger } = await seedUser(w.t.backend);
    expect(await section(stranger)).to.deep.equal({ premium_until: null, active: false, invoices: { pending: 0, expired: 0, settled_unactivated: 0, activated: 0 } });
    // A year on: alice's premium has lapsed (premium_until stays) and her pending invoice expired.
    w.t.clock.advance(366 * DAY_MS);
    token = await adminLogin(w.t, adminKey);
    expect(await section(w.alice.userId)).to.deep.equal({
      premium_until: iso(s.start + 2 * MINUTE_MS + 365 * DAY_MS),
      active: false,
      invoices: { pending: 0, expired: 2, settled_unactivated: 0, activated: 1 },
    });
  });

  it('access: a read-scope admin reads; no token, a user token, a bad query or id are refused; an unknown user is 404', async () => {
    const { nostr } = await bootstrapAdmin(w.t);
    const token = await adminLogin(w.t, nostr);
    const reader = new NostrKey();
    expect((await w.t.client.post('/api/v1/admin/keys', { pubkey: reader.pubkey, scope: 'read' }, { token })).status).to.equal(201);
    const readerToken = await adminLogin(w.t, reader);
    const id = await invoice('alice', 'month');
    const paths = [`${API}/invoices?state=pending`, `${API}/users/${w.alice.userId}`];
    for (const path of paths) {
      const read = await get(path, readerToken);
      expect(read.status, `${path} ${read.text}`).to.equal(200);
      expect(read.body.invoices.map((i: { invoice_id: string }) => i.invoice_id)).to.deep.equal([id]);
      expect((await get(path)).status, `${path} without a token`).to.equal(401);
      await api(w, w.alice).relogin();
      expect((await get(path, w.alice.token)).status, `${path} with a user token`).to.equal(401);
    }
    const bad = [
      `${API}/invoices?state=paid`,
      `${API}/invoices?state=`,
      `${API}/invoices?limit=0`,
      `${API}/invoices?limit=501`,
      `${API}/invoices?limit=ten`,
      `${API}/invoices?limit=-1`,
      `${API}/invoices?after=not-a-cursor`,
      `${API}/invoices?after=${Buffer.from('1700000000000').toString('base64url')}`,
      `${API}/invoices?after=${Buffer.from('12.abc\u0000').toString('base64url')}`,
      `${API}/invoices?after=${Buffer.from('01.abc').toString('base64url')}`,
      `${API}/invoices?after=${Buffer.from('1700000000000:abc').toString('base64url')}`,
      `${API}/invoices?after=${Buffer.from('99999999999999999.abc').toString('base64url')}`,
      `${API}/invoices?after=`,
      `${API}/users/not-a-uuid`,
      `${API}/users/${w.alice.userId}?limit=0`,
      `${API}/users/${w.alice.userId}?after=%2F%2F`,
    ];
    for (const path of bad) {
      const res = await get(path, readerToken);
      expect([res.status, codeOf(res)], path).to.deep.equal([400, 'invalid_request']);
    }
    const unknown = await get(`${API}/users/00000000-0000-4000-8000-000000000000`, readerToken);
    expect([unknown.status, codeOf(unknown)]).to.deep.equal([404, 'premium_user_not_found']);
    // GET only: no other method is served here.
    const post = await w.t.client.post(`${API}/invoices`, {}, { token });
    expect(post.status).to.be.oneOf([404, 405]);
    // Reads are not audited.
    const actions = ((await knex()('admin_audit').orderBy('seq')) as Array<{ action: string }>).map((entry) => entry.action);
    expect(actions).to.deep.equal(['setup_bootstrap', 'admin_login', 'admin_key_created', 'admin_key_activated', 'admin_login']);
  });

  it('migration 002: an invoice redeemed before it counts as settled at its redemption; others stay unsettled', async () => {
    const s = await seed();
    const k = knex();
    const settledAt = async (id: string) => ((await k(PREMIUM_INVOICES_TABLE).where({ invoice_id: id }).first()) as { settled_at: unknown }).settled_at;
    // Back to the schema of 001 with the rows as they stood: a2 redeemed, b1 (heard Settled since 002) not.
    for (const index of ['premium_invoices_created', 'premium_invoices_user_created', 'premium_invoices_unsettled', 'premium_invoices_stuck']) await k.raw(`DROP INDEX ${index}`);
    await k.schema.alterTable(PREMIUM_INVOICES_TABLE, (t) => t.dropColumn('settled_at'));
    await k.transaction((trx) => premiumMigrations.find((m) => m.id === '002_premium_settled_at')!.up(trx, w.t.backend.db.dialect));
    expect(new Date((await settledAt(s.a2)) as string).toISOString()).to.equal(iso(s.start + 2 * MINUTE_MS));
    for (const id of [s.a1, s.b1, s.a3, s.b2]) expect(await settledAt(id), id).to.equal(null);
  });
});

eachDialect('premium: admin routes while premium is off', (dialect) => {
  const w = usePremiumWorld(dialect, { ...PREMIUM_OPTIONS, enabled: false });

  it('the admin routes are not added: 404 for an admin; the account view has no premium section', async () => {
    const { nostr } = await bootstrapAdmin(w.t);
    const token = await adminLogin(w.t, nostr);
    for (const path of [`${API}/invoices`, `${API}/users/${w.alice.userId}`]) {
      const res = await w.t.client.get(path, { token });
      expect(res.status, path).to.equal(404);
    }
    const account = await w.t.client.get(`${ACCOUNT}/${w.alice.userId}`, { token });
    expect(account.status, account.text).to.equal(200);
    expect(account.body.sections).to.be.an('object').that.does.not.have.property('premium');
  });
});
