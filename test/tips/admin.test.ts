import { expect } from 'chai';
import { tipsPlugin, type TipsOptions } from '@wallet/tips';
import { adminLogin, bootstrapAdmin, createTestBackend, eachDialect, NostrKey, seedSession, seedUser, type TestBackend } from '../harness/index.js';
import { hex, SHARE_BASE, tipAddress, tipBody, useChainFakes, type Asset } from './harness.js';

const ADMIN_TIPS = '/api/v1/admin/tips';
/** Core's account view, whose `sections.tips` is the tips plugin's `onUserSummary` answer. */
const ACCOUNT = '/api/v1/admin/users';
const MIN = 60_000;
/** The clock when the tests read: two hours after the test clock's start. */
const NOW = new Date('2026-01-01T02:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const isoAgo = (ms: number) => ago(ms).toISOString();
/** An admin list's cursor, computed here (core's paging convention): base64url of `<epoch ms>.<id>`. */
const cursorOf = (at: Date, id: string) => Buffer.from(`${at.getTime()}.${id}`, 'utf8').toString('base64url');
/** Ids in a known order (the stuck list breaks ties on the id). */
const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const EVERY_STATUS = ['draft', 'pending_confirmation', 'pending', 'claiming', 'claimed', 'funding_mismatch', 'cancelled', 'clawed_back'] as const;
type Status = (typeof EVERY_STATUS)[number];
const zeroCounts = (): Record<Status, number> => Object.fromEntries(EVERY_STATUS.map((status) => [status, 0])) as Record<Status, number>;

interface Seed {
  id: string;
  status: Status;
  asset: Asset;
  amount: string;
  sender: string | null;
  recipient?: string | null;
  created: Date;
  updated: Date;
  funded?: Date | null;
  settled?: Date | null;
  checked?: Date | null;
  sweep?: string | null;
  claims?: Array<{ user: string; at: Date }>;
}

/** Everything a seeded tip was stored with, secrets included, to check none of them is answered. */
interface Stored extends Seed {
  tip_address: string | null;
  grin_commitment: string | null;
  funding_txid: string | null;
  funding_tx_key: string | null;
  ciphertext: string | null;
  secret_hash: string | null;
}

/** Writes a tip row (and its claimer rows) as the service would have left it, with known times. */
async function seedTip(t: TestBackend, seed: Seed): Promise<Stored> {
  const { time, bool } = t.backend.db.dialect;
  const targeted = seed.recipient !== undefined && seed.recipient !== null;
  const funded = seed.status !== 'draft';
  const stored: Stored = {
    ...seed,
    tip_address: seed.asset === 'grin' ? null : tipAddress(seed.asset),
    grin_commitment: seed.asset === 'grin' ? `09${hex(32)}` : null,
    funding_txid: funded ? (seed.asset === 'grin' ? `08${hex(32)}` : hex(32)) : null,
    funding_tx_key: funded && (seed.asset === 'xmr' || seed.asset === 'wow') ? hex(32) : null,
    ciphertext: targeted ? Buffer.from(hex(48), 'hex').toString('base64') : null,
    secret_hash: targeted ? null : hex(32),
  };
  await t.backend.db.knex('social_tips').insert({
    id: seed.id,
    sender_user_id: seed.sender,
    recipient_user_id: seed.recipient ?? null,
    is_public: bool(!targeted),
    asset: seed.asset,
    amount: seed.amount,
    status: seed.status,
    tip_address: stored.tip_address,
    ciphertext: stored.ciphertext,
    secret_hash: stored.secret_hash,
    grin_commitment: stored.grin_commitment,
    funding_txid: stored.funding_txid,
    funding_tx_key: stored.funding_tx_key,
    sweep_txid: seed.sweep ?? null,
    created_at: time(seed.created),
    updated_at: time(seed.updated),
    funded_at: seed.funded ? time(seed.funded) : null,
    settled_at: seed.settled ? time(seed.settled) : null,
    checked_at: seed.checked ? time(seed.checked) : null,
  });
  for (const claim of seed.claims ?? []) await t.backend.db.knex('social_tip_claimers').insert({ tip_id: seed.id, user_id: claim.user, claimed_at: time(claim.at) });
  return stored;
}

interface World {
  t: TestBackend;
  /** The tips section of the user's account view, as a `read` admin gets it. */
  summary: (userId: string) => Promise<unknown>;
  sender: { id: string; token: string };
  recipient: { id: string; token: string; username: string };
  other: { id: string; token: string };
  /** A full admin's and a `read` admin's session tokens (logged in at NOW). */
  full: string;
  read: string;
}

function useWorld(dialect: Parameters<typeof createTestBackend>[0], chains: ReturnType<typeof useChainFakes>, options: TipsOptions = { enabled: true, targeted: true, shareBase: SHARE_BASE }) {
  const w = {} as World;
  beforeEach(async () => {
    const t = await createTestBackend(dialect, { plugins: [tipsPlugin(options)], settings: chains.settings() });
    const session = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { id: userId, token: auth.access_token };
    };
    const username = `alice${hex(3)}`;
    const recipient = await seedUser(t.backend, { username });
    t.clock.set(NOW);
    const admin = await bootstrapAdmin(t);
    const full = await adminLogin(t, admin.nostr);
    const reader = new NostrKey();
    const created = await t.client.post('/api/v1/admin/keys', { pubkey: reader.pubkey, scope: 'read' }, { token: full });
    if (created.status !== 201) throw new Error(`read key: ${created.status} ${created.text}`);
    Object.assign(w, {
      t,
      summary: async (userId: string) => {
        const res = await t.client.get(`${ACCOUNT}/${userId}`, { token: w.read });
        if (res.status !== 200) throw new Error(`account view: ${res.status} ${res.text}`);
        return res.body.sections.tips as unknown;
      },
      sender: await session(),
      recipient: { id: recipient.id, token: (await t.backend.sessions.start(recipient.id, 'extension')).access_token, username },
      other: await session(),
      full,
      read: await adminLogin(t, reader),
    });
  });
  afterEach(async () => {
    await w.t?.close();
  });
  return w;
}

const auditCount = async (t: TestBackend) => Number(((await t.backend.db.knex('admin_audit').count({ n: '*' }).first()) as { n: number | string }).n);

eachDialect('tips: the admin routes', (dialect) => {
  const chains = useChainFakes();
  const w = useWorld(dialect, chains);

  /**
   * One tip in every status but funding_mismatch (none: its count must still be 0), and six in
   * claiming around the 15-minute threshold: A and D 60 minutes (same time: the id decides),
   * B 30 minutes, G 15 minutes and a second, E exactly 15 minutes (not past it), C 10 minutes.
   */
  async function seedAll() {
    const { t, sender, recipient, other } = w;
    const S = sender.id;
    const R = recipient.id;
    const O = other.id;
    const tips = {
      draft: await seedTip(t, { id: idOf(0x20), status: 'draft', asset: 'btc', amount: '1000', sender: S, created: ago(300 * MIN), updated: ago(300 * MIN), checked: ago(300 * MIN) }),
      unconfirmed: await seedTip(t, { id: idOf(0x21), status: 'pending_confirmation', asset: 'ltc', amount: '2000', sender: S, created: ago(250 * MIN), updated: ago(250 * MIN) }),
      pending: await seedTip(t, { id: idOf(0x22), status: 'pending', asset: 'xmr', amount: '3000', sender: S, recipient: R, created: ago(240 * MIN), updated: ago(200 * MIN), funded: ago(200 * MIN) }),
      A: await seedTip(t, {
        id: idOf(0x0a),
        status: 'claiming',
        asset: 'btc',
        amount: '50000',
        sender: S,
        created: ago(100 * MIN),
        updated: ago(60 * MIN),
        funded: ago(90 * MIN),
        checked: ago(2 * MIN),
        claims: [
          { user: O, at: ago(65 * MIN) },
          { user: R, at: ago(60 * MIN) },
        ],
      }),
      D: await seedTip(t, { id: idOf(0x0d), status: 'claiming', asset: 'ltc', amount: '7000', sender: S, created: ago(100 * MIN), updated: ago(60 * MIN), funded: ago(80 * MIN) }),
      B: await seedTip(t, {
        id: idOf(0x0b),
        status: 'claiming',
        asset: 'grin',
        amount: '1000000000',
        sender: S,
        recipient: R,
        created: ago(50 * MIN),
        updated: ago(30 * MIN),
        funded: ago(45 * MIN),
        sweep: `08${hex(32)}`,
        claims: [{ user: R, at: ago(40 * MIN) }],
      }),
      G: await seedTip(t, { id: idOf(0x01), status: 'claiming', asset: 'wow', amount: '9', sender: S, created: ago(20 * MIN), updated: ago(15 * MIN + 1000), funded: ago(18 * MIN) }),
      E: await seedTip(t, { id: idOf(0x0e), status: 'claiming', asset: 'btc', amount: '4000', sender: S, created: ago(20 * MIN), updated: ago(15 * MIN), funded: ago(17 * MIN) }),
      C: await seedTip(t, { id: idOf(0x0c), status: 'claiming', asset: 'xmr', amount: '5', sender: S, created: ago(20 * MIN), updated: ago(10 * MIN), funded: ago(12 * MIN) }),
      claimed: await seedTip(t, {
        id: idOf(0x30),
        status: 'claimed',
        asset: 'btc',
        amount: '60000',
        sender: S,
        created: ago(110 * MIN),
        updated: ago(70 * MIN),
        funded: ago(100 * MIN),
        settled: ago(70 * MIN),
        sweep: hex(32),
        claims: [{ user: O, at: ago(90 * MIN) }],
      }),
      cancelled: await seedTip(t, { id: idOf(0x31), status: 'cancelled', asset: 'ltc', amount: '1500', sender: O, created: ago(119 * MIN), updated: ago(100 * MIN) }),
      clawedBack: await seedTip(t, { id: idOf(0x32), status: 'clawed_back', asset: 'btc', amount: '2500', sender: O, recipient: R, created: ago(119 * MIN), updated: ago(100 * MIN), settled: ago(100 * MIN) }),
    };
    return tips;
  }

  const stuckRow = (tip: Stored, ageMs: number) => ({
    tip_id: tip.id,
    status: 'claiming',
    asset: tip.asset,
    amount: tip.amount,
    since: isoAgo(ageMs),
    age_sec: Math.floor(ageMs / 1000),
    sweep_recorded: tip.sweep !== undefined && tip.sweep !== null,
  });

  it('stats: a count for every status (0 for one with none) and the total; a read admin may read it; reads are not audited', async () => {
    expect((await w.t.client.get(`${ADMIN_TIPS}/stats`, { token: w.full })).body, 'no tips yet').to.deep.equal({ total: 0, by_status: zeroCounts() });
    await seedAll();
    const expected = { total: 12, by_status: { ...zeroCounts(), draft: 1, pending_confirmation: 1, pending: 1, claiming: 6, claimed: 1, cancelled: 1, clawed_back: 1 } };
    const before = await auditCount(w.t);
    for (const token of [w.full, w.read]) {
      const res = await w.t.client.get(`${ADMIN_TIPS}/stats`, { token });
      expect([res.status, res.body], res.text).to.deep.equal([200, expected]);
      expect(Object.keys(res.body.by_status)).to.deep.equal([...EVERY_STATUS]);
    }
    expect(await auditCount(w.t)).to.equal(before);
  });

  it('stuck: tips in claiming more than 15 minutes, oldest first (ties by id), with since and age; paged with after ← next_after', async () => {
    const { A, D, B, G } = await seedAll();
    const all = [stuckRow(A, 60 * MIN), stuckRow(D, 60 * MIN), stuckRow(B, 30 * MIN), stuckRow(G, 15 * MIN + 1000)];
    expect(all.map((row) => row.age_sec)).to.deep.equal([3600, 3600, 1800, 901]);
    const whole = await w.t.client.get(`${ADMIN_TIPS}/stuck`, { token: w.read });
    expect([whole.status, whole.body], whole.text).to.deep.equal([200, { threshold_sec: 900, tips: all, next_after: null }]);
    expect((await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=4`, { token: w.full })).body, 'a page exactly as long as the list has no next').to.deep.equal({ threshold_sec: 900, tips: all, next_after: null });

    const first = await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=2`, { token: w.full });
    expect(first.body).to.deep.equal({ threshold_sec: 900, tips: all.slice(0, 2), next_after: cursorOf(ago(60 * MIN), D.id) });
    const second = await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=2&after=${encodeURIComponent(first.body.next_after)}`, { token: w.full });
    expect(second.body).to.deep.equal({ threshold_sec: 900, tips: all.slice(2), next_after: null });
    // The cursor between the two tips of one time: only the later id follows.
    const tie = await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=1&after=${cursorOf(ago(60 * MIN), A.id)}`, { token: w.full });
    expect(tie.body).to.deep.equal({ threshold_sec: 900, tips: [all[1]], next_after: cursorOf(ago(60 * MIN), D.id) });
    // A position no row has is still a position: after A's time and an id above every tip's, B follows.
    const between = await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=1&after=${cursorOf(ago(60 * MIN), 'ffffffff-ffff-4fff-bfff-ffffffffffff')}`, { token: w.full });
    expect(between.body).to.deep.equal({ threshold_sec: 900, tips: [all[2]], next_after: cursorOf(ago(30 * MIN), B.id) });

    // A minute later, E (exactly 15 minutes then) is past the threshold too, and every age grew by 60 s.
    w.t.clock.advance(MIN);
    const later = await w.t.client.get(`${ADMIN_TIPS}/stuck`, { token: w.full });
    expect(later.body.tips.map((row: { tip_id: string; age_sec: number }) => [row.tip_id, row.age_sec])).to.deep.equal([
      [A.id, 3660],
      [D.id, 3660],
      [B.id, 1860],
      [G.id, 961],
      [idOf(0x0e), 960],
    ]);
  });

  it('tip: the operator’s record and its history from the stored times; nothing that could claim or spend it', async () => {
    const tips = await seedAll();
    const { A, claimed, clawedBack, draft } = tips;
    const res = await w.t.client.get(`${ADMIN_TIPS}/${A.id}`, { token: w.read });
    expect([res.status, res.body], res.text).to.deep.equal([
      200,
      {
        tip_id: A.id,
        status: 'claiming',
        asset: 'btc',
        amount: '50000',
        is_public: true,
        sender_user_id: w.sender.id,
        recipient_user_id: null,
        recipient_erased: false,
        tip_address: A.tip_address,
        grin_commitment: null,
        funding_txid: A.funding_txid,
        funding_duplicate: false,
        sweep_txid: null,
        created_at: isoAgo(100 * MIN),
        updated_at: isoAgo(60 * MIN),
        funded_at: isoAgo(90 * MIN),
        settled_at: null,
        checked_at: isoAgo(2 * MIN),
        claims: [
          { user_id: w.other.id, claimed_at: isoAgo(65 * MIN) },
          { user_id: w.recipient.id, claimed_at: isoAgo(60 * MIN) },
        ],
        history: [
          { event: 'created', at: isoAgo(100 * MIN) },
          { event: 'funded', at: isoAgo(90 * MIN) },
          { event: 'claimed', at: isoAgo(65 * MIN), user_id: w.other.id },
          { event: 'claimed', at: isoAgo(60 * MIN), user_id: w.recipient.id },
        ],
      },
    ]);

    const settled = await w.t.client.get(`${ADMIN_TIPS}/${claimed.id}`, { token: w.full });
    expect(settled.body).to.deep.include({
      tip_id: claimed.id,
      status: 'claimed',
      sweep_txid: claimed.sweep,
      settled_at: isoAgo(70 * MIN),
      history: [
        { event: 'created', at: isoAgo(110 * MIN) },
        { event: 'funded', at: isoAgo(100 * MIN) },
        { event: 'claimed', at: isoAgo(90 * MIN), user_id: w.other.id },
        { event: 'settled', at: isoAgo(70 * MIN), status: 'claimed' },
      ],
    });
    const back = await w.t.client.get(`${ADMIN_TIPS}/${clawedBack.id}`, { token: w.full });
    expect(back.body).to.deep.include({
      is_public: false,
      sender_user_id: w.other.id,
      recipient_user_id: w.recipient.id,
      funded_at: null,
      checked_at: null,
      claims: [],
      history: [
        { event: 'created', at: isoAgo(119 * MIN) },
        { event: 'settled', at: isoAgo(100 * MIN), status: 'clawed_back' },
      ],
    });
    const unfunded = await w.t.client.get(`${ADMIN_TIPS}/${draft.id}`, { token: w.full });
    expect(unfunded.body).to.deep.include({ status: 'draft', funding_txid: null, history: [{ event: 'created', at: isoAgo(300 * MIN) }] });

    // No claim key, share-secret hash or funding transaction key, for any tip.
    for (const tip of Object.values(tips)) {
      const text = (await w.t.client.get(`${ADMIN_TIPS}/${tip.id}`, { token: w.full })).text;
      for (const secret of [tip.ciphertext, tip.secret_hash, tip.funding_tx_key].filter((value) => value !== null)) expect(text).to.not.include(secret!);
      expect(text).to.not.match(/ciphertext|secret_hash|funding_tx_key/);
    }
  });

  it('tip: an id in capitals is the same tip; an unknown id is 404 tip_not_found, a malformed one 400 invalid_request', async () => {
    const { A } = await seedAll();
    const capitals = await w.t.client.get(`${ADMIN_TIPS}/${A.id.toUpperCase()}`, { token: w.full });
    expect(A.id.toUpperCase()).to.not.equal(A.id);
    expect([capitals.status, capitals.body.tip_id, capitals.body.claims.length], capitals.text).to.deep.equal([200, A.id, 2]);
    const unknown = await w.t.client.get(`${ADMIN_TIPS}/${idOf(0x99)}`, { token: w.full });
    expect([unknown.status, unknown.body.error?.code]).to.deep.equal([404, 'tip_not_found']);
    for (const bad of ['not-a-uuid', '00000000-0000-4000-8000-00000000000', `${idOf(0x0a)}0`]) {
      const res = await w.t.client.get(`${ADMIN_TIPS}/${bad}`, { token: w.full });
      expect([res.status, res.body.error?.code], bad).to.deep.equal([400, 'invalid_request']);
    }
  });

  it('stuck: a bad limit or cursor is 400 invalid_request', async () => {
    await seedAll();
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const ms = ago(60 * MIN).getTime();
    // Not a cursor: free text, the old `<ISO>_<id>` form, a body without its id or time, a leading zero, padding.
    const cursors = ['', 'x', `${isoAgo(60 * MIN)}_${idOf(1)}`, `${ms}.${idOf(1)}`, b64(`${ms}`), b64(`${ms}.`), b64(`.${idOf(1)}`), b64(`0${ms}.${idOf(1)}`), b64(`${ms}.a\u0000b`), `${cursorOf(ago(60 * MIN), idOf(1))}=`];
    const queries = ['limit=0', 'limit=501', 'limit=-1', 'limit=abc', 'limit=01', 'limit=1.5', ...cursors.map((cursor) => `after=${encodeURIComponent(cursor)}`)];
    for (const query of queries) {
      const res = await w.t.client.get(`${ADMIN_TIPS}/stuck?${query}`, { token: w.full });
      expect([res.status, res.body.error?.code], query).to.deep.equal([400, 'invalid_request']);
    }
    expect((await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=500`, { token: w.full })).status).to.equal(200);
    expect((await w.t.client.get(`${ADMIN_TIPS}/stuck?limit=1`, { token: w.full })).body.tips).to.have.length(1);
  });

  it('every route: no token or a user’s token is 401; a write method is not served', async () => {
    const { A } = await seedAll();
    for (const path of ['stats', 'stuck', A.id]) {
      expect((await w.t.client.get(`${ADMIN_TIPS}/${path}`)).status, `${path} without a token`).to.equal(401);
      expect((await w.t.client.get(`${ADMIN_TIPS}/${path}`, { token: w.sender.token })).status, `${path} with a user token`).to.equal(401);
      const post = await w.t.client.post(`${ADMIN_TIPS}/${path}`, {}, { token: w.full });
      expect(post.status, `POST ${path}`).to.equal(405);
    }
  });

  it('onUserSummary, as the account view shows it: a user’s sent and received tips by status, and how many they made a claim call on', async () => {
    await seedAll();
    const { summary } = w;
    expect(await summary(w.sender.id)).to.deep.equal({
      sent: { ...zeroCounts(), draft: 1, pending_confirmation: 1, pending: 1, claiming: 6, claimed: 1 },
      received: zeroCounts(),
      claims: 0,
    });
    expect(await summary(w.recipient.id)).to.deep.equal({ sent: zeroCounts(), received: { ...zeroCounts(), pending: 1, claiming: 1, clawed_back: 1 }, claims: 2 });
    expect(await summary(w.other.id)).to.deep.equal({ sent: { ...zeroCounts(), cancelled: 1, clawed_back: 1 }, received: zeroCounts(), claims: 2 });
    const stranger = await seedUser(w.t.backend);
    expect(await summary(stranger.id)).to.deep.equal({ sent: zeroCounts(), received: zeroCounts(), claims: 0 });
  });

  it('follows the service: a tip created, funded and claimed through the API shows up with the times those calls wrote', async () => {
    const { t, sender, other } = w;
    const created = await t.client.post('/api/v1/tips/social', tipBody('btc'), { token: sender.token });
    expect(created.status, created.text).to.equal(200);
    const id = created.body.tip_id as string;
    const createdAt = t.clock.now().toISOString();
    // The funding worker's step, done by hand: the chain is not what this test is about.
    t.clock.advance(5 * MIN);
    const fundedAt = t.clock.now();
    await t.backend.db.knex('social_tips').where({ id }).update({ status: 'pending', funded_at: t.backend.db.dialect.time(fundedAt), updated_at: t.backend.db.dialect.time(fundedAt) });
    t.clock.advance(MIN);
    const claimedAt = t.clock.now().toISOString();
    expect((await t.client.post(`/api/v1/tips/social/${id}/claim`, undefined, { token: other.token })).status).to.equal(200);
    t.clock.advance(15 * MIN);
    expect((await t.client.get(`${ADMIN_TIPS}/stuck`, { token: w.full })).body.tips, 'exactly 15 minutes: not yet').to.deep.equal([]);
    t.clock.advance(1000);
    const stuck = await t.client.get(`${ADMIN_TIPS}/stuck`, { token: w.full });
    expect(stuck.body).to.deep.equal({
      threshold_sec: 900,
      tips: [{ tip_id: id, status: 'claiming', asset: 'btc', amount: '50000', since: claimedAt, age_sec: 901, sweep_recorded: false }],
      next_after: null,
    });
    const tip = await t.client.get(`${ADMIN_TIPS}/${id}`, { token: w.full });
    expect(tip.body).to.deep.include({
      status: 'claiming',
      created_at: createdAt,
      funded_at: fundedAt.toISOString(),
      claims: [{ user_id: other.id, claimed_at: claimedAt }],
      history: [
        { event: 'created', at: createdAt },
        { event: 'funded', at: fundedAt.toISOString() },
        { event: 'claimed', at: claimedAt, user_id: other.id },
      ],
    });
    expect((await t.client.get(`${ADMIN_TIPS}/stats`, { token: w.full })).body).to.deep.equal({ total: 1, by_status: { ...zeroCounts(), claiming: 1 } });
  });
});

eachDialect('tips: the admin routes while tips are off', (dialect) => {
  const chains = useChainFakes();
  const w = useWorld(dialect, chains, { enabled: false });

  it('are not served (404), though the account view still counts the tips kept', async () => {
    const tip = await seedTip(w.t, { id: idOf(0x40), status: 'claiming', asset: 'btc', amount: '1000', sender: w.sender.id, created: ago(100 * MIN), updated: ago(60 * MIN), funded: ago(90 * MIN) });
    for (const path of ['stats', 'stuck', tip.id]) {
      const res = await w.t.client.get(`${ADMIN_TIPS}/${path}`, { token: w.full });
      expect([res.status, res.body.error?.code], path).to.deep.equal([404, 'not_found']);
    }
    expect(await w.summary(w.sender.id)).to.deep.equal({ sent: { ...zeroCounts(), claiming: 1 }, received: zeroCounts(), claims: 0 });
  });
});
