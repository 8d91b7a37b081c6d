import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { NostrEvent } from '@wallet/relay-admission';
import { eachDialect, seedUser } from '../harness/index.js';
import { accepted, GIFT_WRAP_NOT_FOR_USER, NEEDS_PREMIUM, NO_DATABASE, NOT_A_USER, rejected, request, spawnPlugin, UNAVAILABLE, type Plugin } from './plugin-process.js';
import { giftWrap, nostrKey, signed, useAdmissionWorld, type NostrKey } from './world.js';

eachDialect('relay admission: the strfry write-policy plugin executable', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let plugin: Plugin | undefined;
  // The executable reads the system clock: this premium lasts; the world's premium (30 days from 2026-01-01) has lapsed by now.
  let premium: NostrKey;
  beforeEach(async () => {
    premium = nostrKey();
    await seedUser(w.t.backend, { nostrPubkey: premium.pubkey, premiumUntil: new Date('2100-01-01T00:00:00.000Z') });
  });
  afterEach(async () => {
    if (plugin && plugin.child.exitCode === null && plugin.child.signalCode === null) {
      plugin.child.kill('SIGKILL');
      await plugin.exited;
    }
    plugin = undefined;
  });

  it('answers every row of the admission table, one flushed line per request, from every source strfry names', async function () {
    this.timeout(180_000);
    const p = (plugin = spawnPlugin({ DATABASE_URL: w.t.databaseUrl }, ['strfry']));
    const authed = nostrKey().pubkey;
    const sources: Array<[string, string, string?]> = [
      ['IP4', '1.2.3.4'],
      ['IP6', '2001:db8::1'],
      ['Import', ''],
      ['Stream', 'wss://upstream.example.test'],
      ['Sync', 'wss://peer.example.test'],
      ['Stored', ''],
      ['IP4', '1.2.3.4', authed],
      ['IP6', '2001:db8::2', premium.pubkey],
    ];
    const lapsedNote = signed(w.premium, 1);
    const rows: Array<[string, NostrEvent, (event: NostrEvent) => string]> = [
      ['premium, a note', signed(premium, 1), accepted],
      ['premium, metadata', signed(premium, 0), accepted],
      ['premium, a long-form article', signed(premium, 30_023), accepted],
      ['premium, a gift wrap', signed(premium, 1059, [['p', w.stranger.pubkey]]), accepted],
      ['lapsed premium, a note', lapsedNote, (e) => rejected(e, NEEDS_PREMIUM)],
      ['lapsed premium, a gift wrap', signed(w.premium, 1059, [['p', w.stranger.pubkey]]), accepted],
      ['registered, a gift wrap to anyone', signed(w.registered, 1059, [['p', w.stranger.pubkey]]), accepted],
      ['registered, the DM relay list', signed(w.registered, 10_050, [['relay', 'wss://relay.example.test']]), accepted],
      ['registered, a note', signed(w.registered, 1), (e) => rejected(e, NEEDS_PREMIUM)],
      ['registered, metadata', signed(w.registered, 0), (e) => rejected(e, NEEDS_PREMIUM)],
      ['registered, a reaction', signed(w.registered, 7), (e) => rejected(e, NEEDS_PREMIUM)],
      ['registered, a relay list', signed(w.registered, 10_002), (e) => rejected(e, NEEDS_PREMIUM)],
      ['registered, a kind-14 DM not wrapped', signed(w.registered, 14, [['p', premium.pubkey]]), (e) => rejected(e, NEEDS_PREMIUM)],
      ['stranger, a gift wrap to a registered user', giftWrap(w.registered.pubkey), accepted],
      ['stranger, a gift wrap to a premium user', giftWrap(premium.pubkey), accepted],
      ['stranger, a gift wrap to two users', giftWrap(premium.pubkey, w.registered.pubkey), accepted],
      ['stranger, a gift wrap to a stranger', giftWrap(nostrKey().pubkey), (e) => rejected(e, GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to a user and a stranger', giftWrap(w.registered.pubkey, nostrKey().pubkey), (e) => rejected(e, GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to nobody', giftWrap(), (e) => rejected(e, GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to a malformed key', giftWrap(w.registered.pubkey.toUpperCase()), (e) => rejected(e, GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to 17 copies of a user', giftWrap(...Array<string>(17).fill(w.registered.pubkey)), (e) => rejected(e, GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a note', signed(w.stranger, 1), (e) => rejected(e, NOT_A_USER)],
      ['stranger, the DM relay list', signed(w.stranger, 10_050), (e) => rejected(e, NOT_A_USER)],
      ['stranger, a note tagging a user', signed(w.stranger, 1, [['p', w.registered.pubkey]]), (e) => rejected(e, NOT_A_USER)],
      // strfry verified the signature; the plugin does not check it again (nor does authed change the author).
      ['premium, content changed after signing', { ...signed(premium, 1), content: 'changed' }, accepted],
      ['stranger, authed as premium is still the stranger', signed(w.stranger, 1), (e) => rejected(e, NOT_A_USER)],
    ];
    const answers: string[] = [];
    // The first answer waits for the process to start (tsx compiles on a loaded machine).
    const first = await p.ask(request(rows[0]![1], 'IP4', '1.2.3.4'), 120_000);
    expect(first, rows[0]![0]).to.equal(accepted(rows[0]![1]));
    answers.push(first);
    for (const [source, [sourceType, sourceInfo, auth]] of sources.entries()) {
      for (const [row, event, expected] of rows) {
        const answer = await p.ask(request(event, sourceType, sourceInfo, row.startsWith('stranger, authed') ? premium.pubkey : auth));
        expect(answer, `${row} (source ${source}: ${sourceType} ${sourceInfo}${auth ? ' authed' : ''})`).to.equal(expected(event));
        answers.push(answer);
      }
    }
    expect(answers).to.have.length(1 + sources.length * rows.length);
    // Not JSON, JSON without event.id, a blank line: skipped, and the next request is still answered.
    const after = signed(w.registered, 1059, [['p', w.stranger.pubkey]]);
    const junk = ['this is not JSON', '{"type":"new","event":', '{"type":"new","event":{"kind":1}}', '{"type":"new"}', '{"type":"new","event":null}', '[1,2]', 'null', '', '   '];
    for (const line of junk) {
      p.send(line);
      const answer = await p.ask(request(after, 'IP4', '1.2.3.4'));
      expect(answer, `after ${JSON.stringify(line)}`).to.equal(accepted(after));
      answers.push(answer);
    }
    expect(p.stderr()).to.include('strfry plugin: skipped a line that is not JSON');
    expect(p.stderr()).to.include('strfry plugin: skipped a request without event.id');
    // A request type other than "new" is rejected by id, and the plugin goes on.
    const old = signed(premium, 1);
    const oldAnswer = await p.ask(request(old, 'Stored', '', undefined, 'old'));
    expect(oldAnswer).to.equal(`{"id":"${old.id}","action":"reject","msg":"error: unknown request type \\"old\\""}`);
    answers.push(oldAnswer);
    const last = signed(premium, 1);
    answers.push(await p.ask(request(last, 'IP4', '1.2.3.4')));
    expect(answers.at(-1)).to.equal(accepted(last));
    // stdin EOF: the plugin exits 0; stdout held the answer lines and nothing else.
    p.child.stdin.end();
    expect(await p.exited).to.equal(0);
    expect(p.stdout()).to.equal(answers.map((line) => `${line}\n`).join(''));
  });

  it('a database that does not answer is a reject with error: inside strfry’s 10 s (Postgres: at the hook’s 2 s), and the plugin recovers', async function () {
    this.timeout(180_000);
    const waiting = signed(w.registered, 1059, [['p', w.stranger.pubkey]]);
    if (dialect === 'postgres') {
      const p = (plugin = spawnPlugin({ DATABASE_URL: w.t.databaseUrl }, ['strfry']));
      const warm = signed(premium, 1);
      expect(await p.ask(request(warm, 'IP4', '1.2.3.4'), 120_000)).to.equal(accepted(warm));
      // Every read of users waits behind this transaction's lock.
      const trx = await w.t.backend.db.knex.transaction();
      try {
        await trx.raw('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        const started = Date.now();
        expect(await p.ask(request(waiting, 'IP4', '1.2.3.4'))).to.equal(rejected(waiting, UNAVAILABLE));
        // The hook's 2 s database timeout answers, well inside strfry's 10 s.
        expect(Date.now() - started).to.be.within(1_900, 6_000);
      } finally {
        await trx.rollback();
      }
    } else {
      // SQLite in WAL mode never blocks readers behind a writer: only a connection in exclusive
      // locking mode holding a write transaction does, and it can take that lock only while no
      // other connection has the file open (the world's backend is closed first; the plugin
      // opens its connection after).
      const file = w.t.databaseUrl.slice('sqlite:'.length);
      await w.t.close();
      const holder = new Database(file);
      try {
        holder.pragma('locking_mode = EXCLUSIVE');
        holder.exec('BEGIN EXCLUSIVE');
        holder.exec("UPDATE users SET updated_at = updated_at WHERE nostr_pubkey = 'none'");
        const p = (plugin = spawnPlugin({ DATABASE_URL: w.t.databaseUrl }, ['strfry', '--timeout-ms', '1500']));
        // The process's start is inside this wait; the answer must still come from the plugin, not a crash.
        expect(await p.ask(request(waiting, 'IP4', '1.2.3.4'), 120_000)).to.equal(rejected(waiting, UNAVAILABLE));
        expect(p.child.exitCode).to.equal(null);
        // better-sqlite3 is synchronous, so the hook's own connection waits only 10 ms on a
        // locked file (not the server's 5 s): the refusal comes at once, far inside strfry's 10 s.
        const started = Date.now();
        const second = signed(w.registered, 10_050);
        expect(await p.ask(request(second, 'IP6', '2001:db8::1'))).to.equal(rejected(second, UNAVAILABLE));
        expect(Date.now() - started, 'no busy wait of seconds').to.be.below(1_000);
        holder.exec('ROLLBACK');
      } finally {
        holder.close();
      }
    }
    // The refusal is logged on stderr (never stdout); the lock is gone: the same plugin answers from the database again.
    const p = plugin!;
    expect(p.stderr()).to.include('relay admission failed closed: the event is refused');
    // A stalled database is asked again by one probe at most every 250 ms: an event or two may
    // still be refused right after the lock goes, never more than a second's worth.
    const again = signed(w.registered, 1059, [['p', w.stranger.pubkey]]);
    let answer = '';
    for (let attempt = 0; attempt < 20 && answer !== accepted(again); attempt++) {
      answer = await p.ask(request(again, 'IP4', '1.2.3.4'), 30_000);
      if (answer !== accepted(again)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(answer).to.equal(accepted(again));
    const note = signed(w.stranger, 1);
    expect(await p.ask(request(note, 'IP4', '1.2.3.4'), 30_000)).to.equal(rejected(note, NOT_A_USER));
    p.child.stdin.end();
    expect(await p.exited).to.equal(0);
    expect(p.stdout().split('\n').filter((line) => line !== '').every((line) => line.startsWith('{"id":'))).to.equal(true);
  });

  it('without DATABASE_URL exits 2 with the reason on stderr and nothing on stdout', async function () {
    this.timeout(120_000);
    const p = (plugin = spawnPlugin({}, ['strfry']));
    expect(await p.exited).to.equal(2);
    expect(p.stderr()).to.equal(NO_DATABASE);
    expect(p.stdout()).to.equal('');
    const empty = (plugin = spawnPlugin({ DATABASE_URL: '' }, ['strfry']));
    expect(await empty.exited).to.equal(2);
    expect(empty.stderr()).to.equal(NO_DATABASE);
  });
});
