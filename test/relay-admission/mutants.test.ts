import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import knexFactory from 'knex';
import { ACCEPT, ADMISSION_DEFAULTS, createRelayAdmission, decide, DM_RELAY_LIST_KIND, FREE_KINDS, GIFT_WRAP_KIND, MAX_GIFT_WRAP_RECIPIENTS, REFUSALS, type NostrEvent, type RelayAdmission } from '@wallet/relay-admission';
import { Membership } from '../../packages/relay-admission/src/membership.js';
import { captureLogger } from '@wallet/backend-core/testing';
import { eachDialect, seedUser } from '../harness/index.js';
import { DAY_MS, giftWrap, nostrKey, pubkeysAskedBy, signed, useAdmissionWorld } from './world.js';

// Survivors of `npm run test:mutation` on policy.ts, membership.ts and admission.ts (docs/testing.md).

const ACCEPTED = { accept: true, message: '' };
const refused = (message: string) => ({ accept: false, message });
const hex64 = () => randomBytes(32).toString('hex');
/** A well-formed event (not signed: for decide() and hooks with verifySignatures off). */
const unsigned = (pubkey: string, kind: number, tags: string[][] = []): NostrEvent => ({ id: hex64(), pubkey, created_at: 1_767_225_600, kind, tags, content: '', sig: '0'.repeat(128) });

describe('relay admission: policy constants and decide()', () => {
  it('the constants and refusal messages, literally', () => {
    expect([GIFT_WRAP_KIND, DM_RELAY_LIST_KIND, MAX_GIFT_WRAP_RECIPIENTS]).to.deep.equal([1059, 10_050, 16]);
    expect(FREE_KINDS).to.deep.equal([1059, 10_050]);
    expect(ACCEPT).to.deep.equal({ accept: true, message: '' });
    expect(Object.isFrozen(ACCEPT)).to.equal(true);
    expect(REFUSALS).to.deep.equal({
      needsPremium: 'blocked: this kind of event needs premium on this relay',
      giftWrapNotForUser: 'blocked: gift wraps are accepted here only for the relay’s users',
      notAUser: 'blocked: only the relay’s users may post here; others may send them gift-wrapped DMs',
      unavailable: 'error: the relay cannot check admission right now; try again later',
    });
    expect(ADMISSION_DEFAULTS).to.deep.equal({ writePolicy: 'premium-post', verifySignatures: true, cacheTtlMs: 10_000, timeoutMs: 2_000 });
  });

  it('an unregistered author’s gift wrap: 1 to 16 recipients all registered pass, 0 or 17 or one unregistered do not; the check sees the p tags', () => {
    const author = hex64();
    const asked: string[][] = [];
    const registered = (pubkeys: string[]) => {
      asked.push(pubkeys);
      return pubkeys.every((pubkey) => pubkey !== 'unregistered');
    };
    const wrap = (...recipients: string[]) => unsigned(author, 1059, [['e', 'x'], ...recipients.map((pubkey) => ['p', pubkey])]);
    expect(decide(wrap('a'), 'unregistered', registered)).to.deep.equal(ACCEPTED);
    expect(asked).to.deep.equal([['a']]);
    const sixteen = Array.from({ length: 16 }, (_, i) => `k${i}`);
    expect(decide(wrap(...sixteen), 'unregistered', registered), '16 recipients').to.deep.equal(ACCEPTED);
    expect(asked[1]).to.deep.equal(sixteen);
    expect(decide(wrap(...sixteen, 'k16'), 'unregistered', registered), '17 recipients').to.deep.equal(refused('blocked: gift wraps are accepted here only for the relay’s users'));
    expect(decide(wrap(), 'unregistered', () => true), 'no recipient').to.deep.equal(refused('blocked: gift wraps are accepted here only for the relay’s users'));
    expect(decide(wrap('a', 'unregistered'), 'unregistered', registered)).to.deep.equal(refused('blocked: gift wraps are accepted here only for the relay’s users'));
    expect(decide(unsigned(author, 1, [['p', 'a']]), 'unregistered', () => true)).to.deep.equal(refused('blocked: only the relay’s users may post here; others may send them gift-wrapped DMs'));
    expect(decide(unsigned(author, 1), 'registered', () => true)).to.deep.equal(refused('blocked: this kind of event needs premium on this relay'));
    expect(decide(unsigned(author, 10_050), 'registered', () => false)).to.deep.equal(ACCEPTED);
    expect(decide(unsigned(author, 1), 'premium', () => false)).to.deep.equal(ACCEPTED);
  });
});

eachDialect('relay admission: membership cache', (dialect) => {
  const w = useAdmissionWorld(dialect);
  const reader = (ttlMs: number) => new Membership(w.t.backend.db.knex, () => w.t.clock.now().getTime(), ttlMs);

  it('a reading served entirely from the cache asks the database nothing', async () => {
    const m = reader(10_000);
    const queries: string[] = [];
    const listener = (query: { sql: string }) => queries.push(query.sql);
    w.t.backend.db.knex.on('query', listener);
    try {
      await m.read([w.registered.pubkey, w.stranger.pubkey]);
      expect(queries).to.have.length(1);
      const again = await m.read([w.stranger.pubkey, w.registered.pubkey, w.registered.pubkey]);
      expect(queries, 'no second query').to.have.length(1);
      expect([...again.keys()].sort()).to.deep.equal([w.registered.pubkey, w.stranger.pubkey].sort());
      expect(again.get(w.registered.pubkey)?.registered).to.equal(true);
      expect(again.get(w.stranger.pubkey)?.registered).to.equal(false);
    } finally {
      w.t.backend.db.knex.removeListener('query', listener);
    }
  });

  it('with TTL 0 nothing is kept: a clock set back still reads the database', async () => {
    const m = reader(0);
    expect((await m.read([w.stranger.pubkey])).get(w.stranger.pubkey)?.registered).to.equal(false);
    await seedUser(w.t.backend, { nostrPubkey: w.stranger.pubkey });
    w.t.clock.set(new Date(w.t.clock.now().getTime() - 1_000));
    expect((await m.read([w.stranger.pubkey])).get(w.stranger.pubkey)?.registered).to.equal(true);
  });

  it('a standing falls due once per use in its second half; taken and not re-read (a failed re-read), it falls due again at its next use', async () => {
    let woken = 0;
    const m = new Membership(w.t.backend.db.knex, () => w.t.clock.now().getTime(), 10_000, undefined, () => woken++);
    const start = w.t.clock.now().getTime();
    await m.fetch([w.registered.pubkey, w.stranger.pubkey]);
    w.t.clock.set(new Date(start + 5_000));
    m.cached(w.registered.pubkey);
    expect([m.dueCount, woken], 'at half its life: not due').to.deep.equal([0, 0]);
    w.t.clock.set(new Date(start + 5_001));
    for (let i = 0; i < 3; i++) m.cached(w.registered.pubkey);
    expect([m.dueCount, woken], 'due once, however often used').to.deep.equal([1, 1]);
    m.cached(w.stranger.pubkey);
    expect([m.dueCount, woken], 'a second due standing joins the first without a new wake-up').to.deep.equal([2, 1]);
    expect(m.takeDue(1)).to.deep.equal([w.registered.pubkey]);
    expect(m.takeDue(10)).to.deep.equal([w.stranger.pubkey]);
    expect(m.dueCount).to.equal(0);
    // Neither was re-read: at the next use each is due again.
    m.cached(w.stranger.pubkey);
    m.cached(w.registered.pubkey);
    expect([m.dueCount, woken]).to.deep.equal([2, 2]);
    expect(m.takeDue(10).sort()).to.deep.equal([w.registered.pubkey, w.stranger.pubkey].sort());
    // Re-read: fresh again, not due until the second half of the new reading.
    await m.fetch([w.registered.pubkey]);
    m.cached(w.registered.pubkey);
    expect(m.dueCount).to.equal(0);
  });

  it('refresh re-reads cached standings where they are: premium taken and granted, a new registration, a suspension; a standing gone from the cache is not brought back', async () => {
    const knex = w.t.backend.db.knex;
    const { time } = w.t.backend.db.dialect;
    const m = new Membership(knex, () => w.t.clock.now().getTime(), 10_000);
    const start = w.t.clock.now().getTime();
    const [suspended, ghost] = [nostrKey(), nostrKey()];
    await seedUser(w.t.backend, { nostrPubkey: suspended.pubkey });
    await seedUser(w.t.backend, { nostrPubkey: ghost.pubkey });
    const pubkeys = [w.premium.pubkey, w.registered.pubkey, w.stranger.pubkey, suspended.pubkey];
    const before = await m.fetch(pubkeys);
    expect(pubkeys.map((pubkey) => before.get(pubkey)?.registered)).to.deep.equal([true, true, false, true]);
    const granted = start + DAY_MS + 123;
    await knex('users').where({ nostr_pubkey: w.premium.pubkey }).update({ premium_until: null });
    await knex('users').where({ nostr_pubkey: w.registered.pubkey }).update({ premium_until: time(new Date(granted)) });
    await seedUser(w.t.backend, { nostrPubkey: w.stranger.pubkey });
    await knex('users').where({ nostr_pubkey: suspended.pubkey }).update({ suspended_at: time(new Date(start)) });
    w.t.clock.set(new Date(start + 6_000));
    await m.refresh([...pubkeys, ghost.pubkey]);
    const freshUntil = start + 16_000;
    const standing = (pubkey: string) => {
      const cached = m.cached(pubkey);
      return cached && { registered: cached.registered, premiumUntil: cached.premiumUntil, freshUntil: cached.freshUntil };
    };
    expect(pubkeys.map(standing)).to.deep.equal([
      { registered: true, premiumUntil: null, freshUntil },
      { registered: true, premiumUntil: granted, freshUntil },
      { registered: true, premiumUntil: null, freshUntil },
      { registered: false, premiumUntil: null, freshUntil },
    ]);
    pubkeys.forEach((pubkey) => expect(m.cached(pubkey), 'the same entry, updated').to.equal(before.get(pubkey)));
    expect(m.cached(ghost.pubkey), 'not cached before: not cached now').to.equal(undefined);
    // A second re-read of the same answers: the suspended user is still nobody, the one who lost premium still a user.
    await m.refresh(pubkeys);
    expect(pubkeys.map((pubkey) => m.cached(pubkey)?.registered)).to.deep.equal([true, true, true, false]);
  });

  it('a reading asked for later that lands first is kept: an older reading landing after it (fetch or re-read) does not replace it', async () => {
    const { knex, dialect } = w.t.backend.db;
    const held: Array<() => void> = [];
    let holdNext = false;
    // The standings query run on a real connection, its answer held back when asked: the older read lands last.
    const runOn = async (sql: string, values: readonly unknown[]) => {
      const hold = holdNext;
      holdNext = false;
      const connection: unknown = await knex.client.acquireConnection();
      let rows: unknown[];
      try {
        rows = await dialect.runPrepared(connection, { name: 'membership_test_standings', sql, values: [...values] });
      } finally {
        await knex.client.releaseConnection(connection);
      }
      if (hold) await new Promise<void>((resolve) => held.push(resolve));
      return rows;
    };
    const answered = async (count: number) => {
      while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const m = new Membership(knex, () => w.t.clock.now().getTime(), 10_000, runOn);
    const start = w.t.clock.now().getTime();
    const { pubkey } = w.stranger;
    const entry = () => {
      const cached = m.cached(pubkey);
      return cached && { registered: cached.registered, freshUntil: cached.freshUntil };
    };

    holdNext = true;
    const older = m.fetch([pubkey]);
    await answered(1);
    const { id: userId } = await seedUser(w.t.backend, { nostrPubkey: pubkey });
    w.t.clock.set(new Date(start + 1_000));
    await m.fetch([pubkey]);
    held[0]!();
    expect((await older).get(pubkey)?.registered, 'the older caller gets its own answer').to.equal(false);
    expect(entry(), 'the newer first sight stays').to.deep.equal({ registered: true, freshUntil: start + 11_000 });

    w.t.clock.set(new Date(start + 7_000));
    holdNext = true;
    const reRead = m.refresh([pubkey]);
    await answered(2);
    await knex('users').where({ id: userId }).update({ suspended_at: dialect.time(new Date(start)) });
    w.t.clock.set(new Date(start + 12_000));
    await m.fetch([pubkey]);
    held[1]!();
    await reRead;
    expect(entry(), 'the newer first sight stays, not the re-read asked before it').to.deep.equal({ registered: false, freshUntil: start + 22_000 });
  });

  it('a due standing replaced by a newer reading before it is taken is not re-read', async () => {
    const m = reader(10_000);
    const start = w.t.clock.now().getTime();
    await m.fetch([w.registered.pubkey]);
    w.t.clock.set(new Date(start + 6_000));
    m.cached(w.registered.pubkey);
    expect(m.dueCount).to.equal(1);
    w.t.clock.set(new Date(start + 10_000));
    await m.fetch([w.registered.pubkey]);
    expect(m.takeDue(10), 'the listed entry is no longer the cached one').to.deep.equal([]);
    expect(m.dueCount).to.equal(0);
  });

  it('isPremium: no standing or no premium_until is not premium, whatever the clock', () => {
    const before1970 = new Membership(w.t.backend.db.knex, () => -1_000, 10_000);
    expect(before1970.isPremium(undefined)).to.equal(false);
    expect(before1970.isPremium({ registered: true, premiumUntil: null, freshUntil: 0 })).to.equal(false);
    expect(before1970.isPremium({ registered: true, premiumUntil: 0, freshUntil: 0 })).to.equal(true);
  });

  it('the cache holds 100 000 entries and starts over when a reading would pass that', async function () {
    this.timeout(120_000);
    const m = reader(DAY_MS);
    const late = w.stranger.pubkey;
    expect((await m.read([late])).get(late)?.registered).to.equal(false);
    await seedUser(w.t.backend, { nostrPubkey: late });
    // 99 999 more keys, in readings of at most 5 000: the cache then holds exactly 100 000.
    for (let left = 99_999; left > 0; left -= 5_000) await m.read(Array.from({ length: Math.min(5_000, left) }, hex64));
    expect((await m.read([late])).get(late)?.registered, 'still the cached reading at 100 000 entries').to.equal(false);
    await m.read([hex64()]);
    expect((await m.read([late])).get(late)?.registered, 'read again after the cache started over').to.equal(true);
  });
});

eachDialect('relay admission: the hook, survivors', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let admission: RelayAdmission | undefined;
  let logger = captureLogger();
  beforeEach(() => {
    logger = captureLogger();
  });
  afterEach(async () => {
    await admission?.close();
    admission = undefined;
  });

  it('the defaults: signatures checked, premium-post, standings cached 10 s, the system clock', async () => {
    const farFuture = nostrKey();
    const lapsed = nostrKey();
    await seedUser(w.t.backend, { nostrPubkey: farFuture.pubkey, premiumUntil: new Date('2999-01-01T00:00:00.000Z') });
    await seedUser(w.t.backend, { nostrPubkey: lapsed.pubkey, premiumUntil: new Date('2001-01-01T00:00:00.000Z') });
    // No `now`: the system clock (not the test clock, which sits at 2026-01-01).
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger });
    expect(await admission.admit(signed(farFuture, 1))).to.deep.equal(ACCEPTED);
    expect(await admission.admit(signed(lapsed, 1))).to.deep.equal(refused('blocked: this kind of event needs premium on this relay'));
    expect(await admission.admit(signed(w.stranger, 1))).to.deep.equal(refused('blocked: only the relay’s users may post here; others may send them gift-wrapped DMs'));
    await admission.close();
    // No cacheTtlMs: 10 s.
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, now: () => w.t.clock.now() });
    const newcomer = nostrKey();
    expect(await admission.admit(signed(newcomer, 10_050))).to.deep.equal(refused(REFUSALS.notAUser));
    await seedUser(w.t.backend, { nostrPubkey: newcomer.pubkey });
    w.t.clock.advance(9_999);
    expect(await admission.admit(signed(newcomer, 10_050)), 'cached at 9 999 ms').to.deep.equal(refused(REFUSALS.notAUser));
    w.t.clock.advance(1);
    expect(await admission.admit(signed(newcomer, 10_050)), 'read again at 10 s').to.deep.equal(ACCEPTED);
    expect(logger.lines, 'nothing failed').to.deep.equal([]);
  });

  it('only a gift wrap’s recipients are read: a note’s p tags do not cache a standing', async () => {
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, now: () => w.t.clock.now(), cacheTtlMs: 60_000 });
    const later = nostrKey();
    expect(await admission.admit(signed(w.premium, 1, [['p', later.pubkey]]))).to.deep.equal(ACCEPTED);
    await seedUser(w.t.backend, { nostrPubkey: later.pubkey });
    expect(await admission.admit(giftWrap(later.pubkey)), 'the newcomer is read now, not from the note').to.deep.equal(ACCEPTED);
  });

  it('a gift wrap to a malformed p tag (a NUL byte) is refused as not for users, without asking the database for it', async () => {
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, now: () => w.t.clock.now() });
    const wrap = signed(nostrKey(), 1059, [['p', 'a\u0000b'], ['p', w.registered.pubkey]], 'ciphertext');
    expect(await admission.admit(wrap)).to.deep.equal(refused('blocked: gift wraps are accepted here only for the relay’s users'));
    expect(logger.lines).to.deep.equal([]);
  });

  it('a gift wrap to 16 users is read and passes; one naming 70 000 recipients is refused as not for users without reading them', async function () {
    this.timeout(60_000);
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, now: () => w.t.clock.now(), verifySignatures: false });
    const sixteen = Array.from({ length: 16 }, hex64);
    for (const pubkey of sixteen) await seedUser(w.t.backend, { nostrPubkey: pubkey });
    expect(await admission.admit(unsigned(hex64(), 1059, sixteen.map((pubkey) => ['p', pubkey])))).to.deep.equal(ACCEPTED);
    // More than SQLite's 32 766 and Postgres's 65 535 query parameters: read, they made a failing query.
    const many = Array.from({ length: 70_000 }, () => ['p', hex64()]);
    expect(await admission.admit(unsigned(hex64(), 1059, many))).to.deep.equal(refused('blocked: gift wraps are accepted here only for the relay’s users'));
    expect(logger.lines).to.deep.equal([]);
  });

  it('the 17 recipients of a refused gift wrap are not read (nor cached)', async () => {
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, now: () => w.t.clock.now(), cacheTtlMs: 60_000 });
    const later = nostrKey();
    const others = Array.from({ length: 16 }, () => w.registered.pubkey);
    const wrap = giftWrap(later.pubkey, ...others);
    const read: Array<string[] | null> = [];
    const listener = (query: { sql: string; bindings: unknown[] }) => read.push(pubkeysAskedBy(query));
    w.t.backend.db.knex.on('query', listener);
    try {
      expect(await admission.admit(wrap)).to.deep.equal(refused(REFUSALS.giftWrapNotForUser));
    } finally {
      w.t.backend.db.knex.removeListener('query', listener);
    }
    expect(read, 'only the author is read').to.deep.equal([[wrap.pubkey]]);
    await seedUser(w.t.backend, { nostrPubkey: later.pubkey });
    expect(await admission.admit(giftWrap(later.pubkey)), 'read now, not cached from the refused wrap').to.deep.equal(ACCEPTED);
  });

  it('fails closed to the given logger with the timeout and event id; leaves no timer behind', async () => {
    const held = knexFactory({ ...w.t.backend.db.knex.client.config, pool: { min: 0, max: 1 } });
    const trx = await held.transaction();
    try {
      admission = createRelayAdmission({ knex: held, logger, timeoutMs: 150, cacheTtlMs: 0, now: () => w.t.clock.now() });
      const note = signed(w.premium, 1);
      expect(await admission.admit(note)).to.deep.equal(refused('error: the relay cannot check admission right now; try again later'));
      expect(logger.lines.map(({ level, msg, error, event_id }) => ({ level, msg, error, event_id }))).to.deep.equal([
        { level: 'error', msg: 'relay admission failed closed: the event is refused', error: 'the wallet database did not answer within 150 ms', event_id: note.id },
      ]);
    } finally {
      await trx.rollback();
      await held.destroy();
    }
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, logger, timeoutMs: 600_000, now: () => w.t.clock.now() });
    const before = timers();
    expect(await admission.admit(signed(w.premium, 1))).to.deep.equal(ACCEPTED);
    expect(timers(), 'the timeout was cleared').to.equal(before);
  });

  it('without a logger a failure is written to stderr as a JSON line of component relay-admission', async () => {
    const gone = knexFactory({ ...w.t.backend.db.knex.client.config });
    await gone.destroy();
    admission = createRelayAdmission({ knex: gone, cacheTtlMs: 0, now: () => w.t.clock.now() });
    const note = signed(w.premium, 1);
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    let decision;
    try {
      decision = await admission.admit(note);
    } finally {
      process.stderr.write = write;
    }
    expect(decision).to.deep.equal(refused(REFUSALS.unavailable));
    expect(written).to.have.length(1);
    expect(written[0]!.endsWith('\n')).to.equal(true);
    const line = JSON.parse(written[0]!) as Record<string, unknown>;
    expect([line.level, line.msg, line.component, line.event_id]).to.deep.equal(['error', 'relay admission failed closed: the event is refused', 'relay-admission', note.id]);
  });

  it('close() destroys the connection it opened (later events fail closed) and leaves a given knex open', async () => {
    const own = createRelayAdmission({ databaseUrl: w.t.databaseUrl, now: () => w.t.clock.now(), logger, cacheTtlMs: 0 });
    expect(await own.admit(signed(w.premium, 1))).to.deep.equal(ACCEPTED);
    await own.close();
    expect(await own.admit(signed(w.premium, 1))).to.deep.equal(refused(REFUSALS.unavailable));
    const borrowed = createRelayAdmission({ knex: w.t.backend.db.knex, now: () => w.t.clock.now(), logger });
    await borrowed.close();
    expect((await w.t.backend.db.knex('users').count({ n: '*' }).first())?.n).to.not.equal(undefined);
  });
});
