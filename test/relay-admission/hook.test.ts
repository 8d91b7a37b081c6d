import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { expect } from 'chai';
import knexFactory from 'knex';
import { createRelayAdmission, REFUSALS, type NostrEvent, type RelayAdmission } from '@wallet/relay-admission';
import { eachDialect, seedUser } from '../harness/index.js';
import { DAY_MS, giftWrap, nostrKey, pubkeysAskedBy, signed, useAdmissionWorld } from './world.js';

const ACCEPTED = { accept: true, message: '' };
const refused = (message: string) => ({ accept: false, message });

eachDialect('relay admission: the library hook (premium-post)', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let admission: RelayAdmission;
  const hook = (options: Parameters<typeof createRelayAdmission>[0] = {}) => {
    admission = createRelayAdmission({ knex: w.t.backend.db.knex, now: () => w.t.clock.now(), logger: w.t.logger, ...options });
    return admission;
  };
  afterEach(async () => {
    await admission?.close();
  });

  const tableRows = (): Array<[string, NostrEvent, { accept: boolean; message: string }]> => [
      ['premium, a note', signed(w.premium, 1), ACCEPTED],
      ['premium, metadata', signed(w.premium, 0), ACCEPTED],
      ['premium, a long-form article', signed(w.premium, 30_023), ACCEPTED],
      ['premium, a gift wrap', signed(w.premium, 1059, [['p', w.stranger.pubkey]]), ACCEPTED],
      ['registered, a gift wrap to anyone', signed(w.registered, 1059, [['p', w.stranger.pubkey]]), ACCEPTED],
      ['registered, the DM relay list', signed(w.registered, 10_050, [['relay', 'wss://relay.example.test']]), ACCEPTED],
      ['registered, a note', signed(w.registered, 1), refused(REFUSALS.needsPremium)],
      ['registered, metadata', signed(w.registered, 0), refused(REFUSALS.needsPremium)],
      ['registered, a reaction', signed(w.registered, 7), refused(REFUSALS.needsPremium)],
      ['registered, a relay list', signed(w.registered, 10_002), refused(REFUSALS.needsPremium)],
      ['registered, a kind-14 DM not wrapped', signed(w.registered, 14, [['p', w.premium.pubkey]]), refused(REFUSALS.needsPremium)],
      ['stranger, a gift wrap to a registered user', giftWrap(w.registered.pubkey), ACCEPTED],
      ['stranger, a gift wrap to a premium user', giftWrap(w.premium.pubkey), ACCEPTED],
      ['stranger, a gift wrap to two users', giftWrap(w.premium.pubkey, w.registered.pubkey), ACCEPTED],
      ['stranger, a gift wrap to a stranger', giftWrap(nostrKey().pubkey), refused(REFUSALS.giftWrapNotForUser)],
      ['stranger, a gift wrap to a user and a stranger', giftWrap(w.registered.pubkey, nostrKey().pubkey), refused(REFUSALS.giftWrapNotForUser)],
      ['stranger, a gift wrap to nobody', giftWrap(), refused(REFUSALS.giftWrapNotForUser)],
      ['stranger, a gift wrap to a malformed key', giftWrap(w.registered.pubkey.toUpperCase()), refused(REFUSALS.giftWrapNotForUser)],
      ['stranger, a gift wrap to 17 copies of a user', giftWrap(...Array<string>(17).fill(w.registered.pubkey)), refused(REFUSALS.giftWrapNotForUser)],
      ['stranger, a note', signed(w.stranger, 1), refused(REFUSALS.notAUser)],
      ['stranger, the DM relay list', signed(w.stranger, 10_050), refused(REFUSALS.notAUser)],
      ['stranger, a note tagging a user', signed(w.stranger, 1, [['p', w.registered.pubkey]]), refused(REFUSALS.notAUser)],
    ];

  it('the spec’s table, row by row', async () => {
    const a = hook();
    for (const [row, event, expected] of tableRows()) expect(await a.admit(event), row).to.deep.equal(expected);
  });

  it('admitNow gives admit’s answers: at once once every standing is cached, through a promise when it must read, and again after the TTL', async () => {
    const a = hook({ cacheTtlMs: 10_000 });
    const rows = tableRows();
    expect(a.admitNow(rows[0]![1]), 'nothing cached yet: a read is owed').to.be.instanceOf(Promise);
    for (const [row, event, expected] of rows) {
      expect(await a.admitNow(event), row).to.deep.equal(expected);
      const again = a.admitNow(event);
      expect(again, `${row}, asked again`).not.to.be.instanceOf(Promise);
      expect(again, `${row}, asked again`).to.deep.equal(expected);
    }
    // A gift wrap to a cached user is answered at once whoever wraps it: its one-time author is never read.
    expect(a.admitNow(giftWrap(w.registered.pubkey))).to.deep.equal(ACCEPTED);
    expect(a.admitNow(giftWrap(w.registered.pubkey, w.premium.pubkey))).to.deep.equal(ACCEPTED);
    w.t.clock.set(new Date(w.t.clock.now().getTime() + 9_999));
    expect(a.admitNow(signed(w.registered, 10_050)), 'still cached at 9.999 s').to.deep.equal(ACCEPTED);
    w.t.clock.set(new Date(w.t.clock.now().getTime() + 1));
    const stale = a.admitNow(signed(w.registered, 10_050));
    expect(stale, 'the TTL has passed: read again').to.be.instanceOf(Promise);
    expect(await stale).to.deep.equal(ACCEPTED);
  });

  it('a standing used in the second half of its life is re-read in the background: past the first reading’s life it is answered at once, as the database now says', async () => {
    const a = hook({ cacheTtlMs: 10_000 });
    const knex = w.t.backend.db.knex;
    const user = nostrKey();
    const start = w.t.clock.now().getTime();
    await seedUser(w.t.backend, { nostrPubkey: user.pubkey, premiumUntil: new Date(start + DAY_MS) });
    const note = signed(user, 1);
    expect(await a.admit(note)).to.deep.equal(ACCEPTED);
    // The operator takes premium away; the cached reading still says premium.
    await knex('users').where({ nostr_pubkey: user.pubkey }).update({ premium_until: null });
    let reads = 0;
    const counted = () => reads++;
    knex.on('query', counted);
    try {
      w.t.clock.set(new Date(start + 5_000));
      expect(a.admitNow(note), 'at half its life: cached, not yet due').to.deep.equal(ACCEPTED);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(reads, 'nothing re-read at half its life').to.equal(0);
      w.t.clock.set(new Date(start + 5_001));
      const reread = once(knex, 'query-response');
      expect(a.admitNow(note), 'due: still answered from the cache').to.deep.equal(ACCEPTED);
      expect(reads, 'the re-read is not on the decision’s path').to.equal(0);
      await Promise.race([reread, new Promise((_, reject) => setTimeout(() => reject(new Error('no background re-read within 2 s')), 2_000))]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reads).to.equal(1);
      w.t.clock.set(new Date(start + 10_001));
      const after = a.admitNow(note);
      expect(after, 'the re-read reading is fresh: no wait').not.to.be.instanceOf(Promise);
      expect(after).to.deep.equal(refused(REFUSALS.needsPremium));
      expect(reads).to.equal(1);
    } finally {
      knex.off('query', counted);
    }
  });

  it('standings falling due one after another share one background re-read, not one each', async () => {
    const a = hook({ cacheTtlMs: 10_000 });
    const knex = w.t.backend.db.knex;
    const start = w.t.clock.now().getTime();
    const users = Array.from({ length: 5 }, () => nostrKey());
    for (const user of users) await seedUser(w.t.backend, { nostrPubkey: user.pubkey, premiumUntil: new Date(start + DAY_MS) });
    for (const user of users) expect(await a.admit(signed(user, 1))).to.deep.equal(ACCEPTED);
    const reads: Array<string[] | null> = [];
    const counted = (query: { sql: string; bindings?: unknown[] }) => reads.push(pubkeysAskedBy(query));
    knex.on('query', counted);
    try {
      w.t.clock.set(new Date(start + 6_000));
      // Each falls due 30 ms after the one before: a re-read started at the first would see one.
      for (const user of users) {
        expect(a.admitNow(signed(user, 1))).to.deep.equal(ACCEPTED);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      const deadline = Date.now() + 3_000;
      while (reads.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads.map((pubkeys) => (pubkeys === null ? null : [...pubkeys].sort())), 'one query for all five').to.deep.equal([users.map((user) => user.pubkey).sort()]);
    } finally {
      knex.off('query', counted);
    }
  });

  it('more standings fall due together than one query takes (500): every one is re-read, none is left to expire and wait on the database', async function () {
    this.timeout(60_000);
    const a = hook({ cacheTtlMs: 10_000, verifySignatures: false });
    const knex = w.t.backend.db.knex;
    const { time } = w.t.backend.db.dialect;
    const start = w.t.clock.now().getTime();
    const users = Array.from({ length: 1_100 }, () => nostrKey());
    await knex.batchInsert(
      'users',
      users.map((user) => ({ id: randomUUID(), nostr_pubkey: user.pubkey, premium_until: time(new Date(start + DAY_MS)), created_at: time(new Date(start)), updated_at: time(new Date(start)) })),
      200,
    );
    const notes = users.map((user) => signed(user, 1));
    for (const note of notes) expect(await a.admit(note)).to.deep.equal(ACCEPTED);
    // The operator takes premium from all of them: only a re-read can know.
    await knex('users').whereIn('nostr_pubkey', users.map((user) => user.pubkey)).update({ premium_until: null });
    const asked: string[][] = [];
    const counted = (query: { sql: string; bindings?: unknown[] }) => {
      const pubkeys = pubkeysAskedBy(query);
      if (pubkeys !== null) asked.push(pubkeys);
    };
    knex.on('query', counted);
    try {
      w.t.clock.set(new Date(start + 6_000));
      for (const note of notes) expect(a.admitNow(note), 'due: answered from the cache').to.deep.equal(ACCEPTED);
      const deadline = Date.now() + 10_000;
      while (new Set(asked.flat()).size < users.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(new Set(asked.flat()).size, 'every due standing re-read').to.equal(users.length);
      expect(asked.map((pubkeys) => pubkeys.length), 'in queries of at most 500').to.deep.equal([500, 500, 100]);
      w.t.clock.set(new Date(start + 10_001));
      const answers = notes.map((note) => a.admitNow(note));
      expect(answers.filter((answer) => answer instanceof Promise).length, 'decisions that wait on the database past the first reading’s life').to.equal(0);
      expect(new Set(answers.map((answer) => JSON.stringify(answer))), 'as the database now says').to.deep.equal(new Set([JSON.stringify(refused(REFUSALS.needsPremium))]));
    } finally {
      knex.off('query', counted);
    }
  });

  it('a standing that falls due while a re-read is running gets a re-read of its own before it expires', async () => {
    const a = hook({ cacheTtlMs: 10_000, verifySignatures: false });
    const knex = w.t.backend.db.knex;
    const start = w.t.clock.now().getTime();
    const [early, late] = [nostrKey(), nostrKey()];
    for (const user of [early, late]) await seedUser(w.t.backend, { nostrPubkey: user.pubkey, premiumUntil: new Date(start + DAY_MS) });
    expect(await a.admit(signed(early, 1))).to.deep.equal(ACCEPTED);
    w.t.clock.set(new Date(start + 2_500));
    expect(await a.admit(signed(late, 1))).to.deep.equal(ACCEPTED);
    const asked: string[][] = [];
    let whileReading: unknown = null;
    const counted = (query: { sql: string; bindings?: unknown[] }) => {
      const pubkeys = pubkeysAskedBy(query);
      if (pubkeys === null) return;
      asked.push(pubkeys);
      // While the first re-read is on its way, the later standing falls due.
      if (asked.length === 1) {
        w.t.clock.set(new Date(start + 7_600));
        whileReading = a.admitNow(signed(late, 1));
      }
    };
    knex.on('query', counted);
    try {
      w.t.clock.set(new Date(start + 5_100));
      expect(a.admitNow(signed(early, 1))).to.deep.equal(ACCEPTED);
      const deadline = Date.now() + 5_000;
      while (asked.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(whileReading, 'answered from the cache while the first re-read ran').to.deep.equal(ACCEPTED);
      expect(asked, 'the early standing, then the late one').to.deep.equal([[early.pubkey], [late.pubkey]]);
      w.t.clock.set(new Date(start + 12_600));
      expect(a.admitNow(signed(late, 1)), 'past its first reading’s life: answered at once').to.deep.equal(ACCEPTED);
    } finally {
      knex.off('query', counted);
    }
  });

  it('a gift wrap whose recipient is not a well-formed pubkey is decided by its author, and the recipient is never read nor cached', async () => {
    const a = hook({ verifySignatures: false });
    const knex = w.t.backend.db.knex;
    const malformed = [w.registered.pubkey.toUpperCase(), `${w.registered.pubkey}00`, w.registered.pubkey.slice(1), 'npub1x'];
    const asked: string[] = [];
    const counted = (query: { sql: string; bindings?: unknown[] }) => asked.push(...(pubkeysAskedBy(query) ?? []));
    knex.on('query', counted);
    try {
      for (const recipient of malformed) {
        // Twice: a recipient cached by the first would skip the check the second time.
        for (let i = 0; i < 2; i++) {
          expect(await a.admit(giftWrap(recipient)), recipient).to.deep.equal(refused(REFUSALS.giftWrapNotForUser));
          expect(await a.admit(signed(w.registered, 1059, [['p', recipient]])), `a registered author to ${recipient}`).to.deep.equal(ACCEPTED);
        }
      }
    } finally {
      knex.off('query', counted);
    }
    expect(asked.filter((pubkey) => malformed.includes(pubkey)), 'malformed recipients read').to.deep.equal([]);
  });

  it('premium is by npub only and ends exactly at premium_until, even while cached', async () => {
    const a = hook({ cacheTtlMs: 60_000 });
    const note = signed(w.premium, 1);
    expect(await a.admit(note)).to.deep.equal(ACCEPTED);
    w.t.clock.set(new Date(w.premiumUntil.getTime() - 1));
    expect(await a.admit(note)).to.deep.equal(ACCEPTED);
    w.t.clock.set(w.premiumUntil);
    expect(await a.admit(note)).to.deep.equal(refused(REFUSALS.needsPremium));
    // A lapsed premium is a registered user: DMs still pass.
    expect(await a.admit(signed(w.premium, 1059, [['p', w.stranger.pubkey]]))).to.deep.equal(ACCEPTED);
  });

  it('a new member is seen within the cache TTL and not before; with TTL 0 at once', async () => {
    const newcomer = nostrKey();
    const cached = hook({ cacheTtlMs: 10_000 });
    const note = signed(newcomer, 10_050);
    expect(await cached.admit(note)).to.deep.equal(refused(REFUSALS.notAUser));
    const start = w.t.clock.now().getTime();
    await seedUser(w.t.backend, { nostrPubkey: newcomer.pubkey, premiumUntil: new Date(start + DAY_MS) });
    w.t.clock.set(new Date(start + 9_999));
    expect(await cached.admit(note), 'cached for 10 s').to.deep.equal(refused(REFUSALS.notAUser));
    w.t.clock.set(new Date(start + 10_000));
    expect(await cached.admit(signed(newcomer, 1)), 'read again at 10 s').to.deep.equal(ACCEPTED);
    await cached.close();
    const uncached = hook({ cacheTtlMs: 0 });
    const other = nostrKey();
    expect(await uncached.admit(signed(other, 1))).to.deep.equal(refused(REFUSALS.notAUser));
    await seedUser(w.t.backend, { nostrPubkey: other.pubkey });
    expect(await uncached.admit(signed(other, 1059, [['p', w.stranger.pubkey]]))).to.deep.equal(ACCEPTED);
  });

  it('checks ids and signatures unless told the relay did; refuses malformed events with invalid:', async () => {
    const a = hook();
    const note = signed(w.premium, 1);
    expect(await a.admit({ ...note, content: 'changed after signing' })).to.deep.equal(refused('invalid: bad event id or signature'));
    expect(await a.admit({ ...note, sig: note.sig.replace(/^./, note.sig[0] === '0' ? '1' : '0') })).to.deep.equal(refused('invalid: bad event id or signature'));
    await a.close();
    const trusting = hook({ verifySignatures: false });
    expect(await trusting.admit({ ...note, content: 'changed after signing' })).to.deep.equal(ACCEPTED);
    const shapes: Array<[unknown, string]> = [
      [null, 'not an event object'],
      [[note], 'not an event object'],
      [{ ...note, id: note.id.toUpperCase() }, 'id must be 64 lower-case hex characters'],
      [{ ...note, id: `${note.id.slice(0, 63)}g` }, 'id must be 64 lower-case hex characters'],
      [{ ...note, id: `/${note.id.slice(1)}` }, 'id must be 64 lower-case hex characters'],
      [{ ...note, pubkey: 'npub1' }, 'pubkey must be 64 lower-case hex characters'],
      [{ ...note, pubkey: `${note.pubkey.slice(0, 63)}:` }, 'pubkey must be 64 lower-case hex characters'],
      [{ ...note, pubkey: `${note.pubkey}0` }, 'pubkey must be 64 lower-case hex characters'],
      [{ ...note, sig: `\`${note.sig.slice(1)}` }, 'sig must be 128 lower-case hex characters'],
      [{ ...note, sig: `${note.sig.slice(0, 127)}\u00e9` }, 'sig must be 128 lower-case hex characters'],
      [{ ...note, sig: note.sig.slice(2) }, 'sig must be 128 lower-case hex characters'],
      [{ ...note, kind: 1.5 }, 'kind must be a whole number from 0 to 65535'],
      [{ ...note, kind: 65_536 }, 'kind must be a whole number from 0 to 65535'],
      [{ ...note, kind: '1' }, 'kind must be a whole number from 0 to 65535'],
      [{ ...note, created_at: -1 }, 'created_at must be a whole number of seconds'],
      [{ ...note, created_at: '1' }, 'created_at must be a whole number of seconds'],
      [{ ...note, content: 1 }, 'content must be a string'],
      [{ ...note, tags: [['p', 1]] }, 'tags must be arrays of strings'],
      [{ ...note, tags: 'p' }, 'tags must be arrays of strings'],
    ];
    for (const [event, problem] of shapes) expect(await trusting.admit(event), problem).to.deep.equal(refused(`invalid: ${problem}`));
  });

  it('fails closed: a database that does not answer within timeoutMs, or is gone, refuses with error:', async () => {
    // A pool of one whose only connection is held by an open transaction: every read waits.
    const held = knexFactory({ ...w.t.backend.db.knex.client.config, pool: { min: 0, max: 1 } });
    const trx = await held.transaction();
    try {
      const slow = hook({ knex: held, timeoutMs: 150, cacheTtlMs: 0 });
      const started = Date.now();
      expect(await slow.admit(signed(w.premium, 1))).to.deep.equal(refused(REFUSALS.unavailable));
      expect(Date.now() - started).to.be.within(140, 2_000);
    } finally {
      await trx.rollback();
      await held.destroy();
    }
    const gone = knexFactory({ ...w.t.backend.db.knex.client.config });
    await gone.destroy();
    const broken = hook({ knex: gone, cacheTtlMs: 0 });
    expect(await broken.admit(signed(w.premium, 1))).to.deep.equal(refused(REFUSALS.unavailable));
  });

  it('the open policy accepts every well-formed, correctly signed event', async () => {
    const a = hook({ writePolicy: 'open' });
    expect(await a.admit(signed(w.stranger, 1))).to.deep.equal(ACCEPTED);
    expect(await a.admit({ ...signed(w.stranger, 1), content: 'x' })).to.deep.equal(refused('invalid: bad event id or signature'));
  });

  it('opens and closes its own connection from a database URL; needs exactly one of knex or databaseUrl', async () => {
    const own = createRelayAdmission({ databaseUrl: w.t.databaseUrl, now: () => w.t.clock.now() });
    expect(await own.admit(signed(w.premium, 1))).to.deep.equal(ACCEPTED);
    await own.close();
    expect(() => createRelayAdmission({})).to.throw('createRelayAdmission needs exactly one of knex or databaseUrl');
    expect(() => createRelayAdmission({ knex: w.t.backend.db.knex, databaseUrl: w.t.databaseUrl })).to.throw('createRelayAdmission needs exactly one of knex or databaseUrl');
  });
});
