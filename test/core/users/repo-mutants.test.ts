import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { UserRepository } from '../../../packages/core/src/users/index.js';
import { eachDialect, seedUser, statementsOf, useTestBackend, type TestBackend } from '../../harness/index.js';

const PUBKEY = '0a1b2c3d4e5f6789'.repeat(4);
const UNKNOWN = '7e57e57e-0000-4000-8000-00000000beef';

eachDialect('core: the users repository (erasure, export, premium and lookups)', (dialect) => {
  const t = useTestBackend(dialect);
  const repo = () => new UserRepository(t.backend.db, t.clock);
  const knex = () => t.backend.db.knex;
  const at = (iso: string) => t.backend.db.dialect.time(new Date(iso));

  async function loginEvent(t: TestBackend, userId: string | null, platform: string, createdAt: string, fingerprint: string | null = 'f'.repeat(64)): Promise<string> {
    const id = randomUUID();
    await t.backend.db.knex('login_events').insert({ id, user_id: userId, platform, ip_hash: 'e'.repeat(64), fingerprint, created_at: at(createdAt) });
    return id;
  }

  describe('lookups', () => {
    it('exists: a user by its id in any case; unknown and malformed ids are false', async () => {
      const { id } = await seedUser(t.backend);
      expect(await repo().exists(id)).to.equal(true);
      expect(await repo().exists(id.toUpperCase())).to.equal(true);
      expect(await repo().exists(UNKNOWN)).to.equal(false);
      expect(await repo().exists('not-a-uuid')).to.equal(false);
    });

    it('lock: one locking read per row and transaction, another for another row or transaction; an unknown user is false and remembered as nothing', async () => {
      const { id } = await seedUser(t.backend);
      const other = (await seedUser(t.backend)).id;
      const locks = (work: () => Promise<unknown>) => statementsOf(knex(), /^select .* from [`"]users[`"]/i, work);
      const repoA = repo();
      const repoB = repo();
      const first = await locks(() =>
        t.backend.db.transaction(async (trx) => {
          expect(await repoA.lock(trx, id)).to.equal(true);
          expect(await repoB.lock(trx, id.toUpperCase()), 'another instance, the same transaction').to.equal(true);
          expect(await repoA.lockedSuspension(trx, id)).to.equal(null);
          expect(await repoA.lock(trx, other)).to.equal(true);
          expect(await repoA.lock(trx, UNKNOWN)).to.equal(false);
          expect(await repoA.lock(trx, UNKNOWN)).to.equal(false);
        }),
      );
      // id once (then its suspension read again, which must see the row as it is now), other once, the unknown user twice.
      expect(first.map((s) => s.bindings[0])).to.deep.equal([id, id, other, UNKNOWN, UNKNOWN]);
      expect(first.every((s) => dialect === 'sqlite' || /for no key update/i.test(s.sql))).to.equal(true);
      const second = await locks(() => t.backend.db.transaction(async (trx) => repoA.lock(trx, id)));
      expect(second, 'a new transaction locks again').to.have.length(1);
    });

    it('exists sees the caller’s transaction', async () => {
      await t.backend.db.transaction(async (trx) => {
        const id = randomUUID();
        const now = at('2026-01-01T00:00:00.000Z');
        await trx('users').insert({ id, created_at: now, updated_at: now });
        expect(await repo().exists(id, trx)).to.equal(true);
      });
    });

    it('idByUsername: any case; unknown is null; a malformed handle is null, never a throw', async () => {
      const { id } = await seedUser(t.backend, { username: 'erin42' });
      // A user without a username: a malformed handle must not find it (no lookup by null).
      await seedUser(t.backend);
      expect(await repo().idByUsername('ERIN42')).to.equal(id);
      expect(await repo().idByUsername('erin43')).to.equal(null);
      expect(await repo().idByUsername('x')).to.equal(null);
      expect(await repo().idByUsername('')).to.equal(null);
    });

    it('idByNostrPubkey: exactly 64 lower-case hex digits, else null even when a row holds that text', async () => {
      const { id } = await seedUser(t.backend, { nostrPubkey: PUBKEY });
      expect(await repo().idByNostrPubkey(PUBKEY)).to.equal(id);
      expect(await repo().idByNostrPubkey('1'.repeat(64))).to.equal(null);
      // Malformed values stored behind the repository's back: the format check, not the lookup, refuses them.
      const stored = ['AB'.repeat(32), 'a'.repeat(63), 'a', 'g'.repeat(64), '0a'.repeat(31) + 'z9'];
      // SQLite does not enforce varchar(64): longer values can be stored there.
      if (dialect === 'sqlite') stored.push(`x${'b'.repeat(64)}`, `${'c'.repeat(64)}x`, 'd'.repeat(65));
      for (const pubkey of stored) {
        await seedUser(t.backend, { nostrPubkey: pubkey });
        expect(await repo().idByNostrPubkey(pubkey), pubkey).to.equal(null);
      }
    });
  });

  describe('premium', () => {
    it('premiumUntil: the stored end; null when never premium, unknown or malformed', async () => {
      const { id } = await seedUser(t.backend, { premiumUntil: new Date('2026-02-03T04:05:06.000Z') });
      const never = await seedUser(t.backend);
      expect((await repo().premiumUntil(id.toUpperCase()))?.toISOString()).to.equal('2026-02-03T04:05:06.000Z');
      expect(await repo().premiumUntil(never.id)).to.equal(null);
      expect(await repo().premiumUntil(UNKNOWN)).to.equal(null);
      expect(await repo().premiumUntil('not-a-uuid')).to.equal(null);
    });

    it('lock: true for a user by its id in any case (the row is held until the transaction ends); false for unknown and malformed ids', async () => {
      const { id } = await seedUser(t.backend);
      const answers = await t.backend.db.transaction(async (trx) => [await repo().lock(trx, id.toUpperCase()), await repo().lock(trx, UNKNOWN), await repo().lock(trx, 'not-a-uuid')]);
      expect(answers).to.deep.equal([true, false, false]);
    });

    it('extendPremium: from now when never premium or lapsed, from the end when it is still running; stored', async () => {
      t.clock.set('2026-03-01T00:00:00.000Z');
      const never = await seedUser(t.backend);
      const lapsed = await seedUser(t.backend, { premiumUntil: new Date('2026-02-01T00:00:00.000Z') });
      const running = await seedUser(t.backend, { premiumUntil: new Date('2026-03-11T12:00:00.000Z') });
      const extend = (id: string, days: number) => t.backend.db.transaction((trx) => repo().extendPremium(trx, id, days));
      expect((await extend(never.id, 30))?.toISOString()).to.equal('2026-03-31T00:00:00.000Z');
      expect((await extend(lapsed.id.toUpperCase(), 2))?.toISOString()).to.equal('2026-03-03T00:00:00.000Z');
      expect((await extend(running.id, 1))?.toISOString()).to.equal('2026-03-12T12:00:00.000Z');
      expect((await extend(running.id, 1))?.toISOString()).to.equal('2026-03-13T12:00:00.000Z');
      expect((await repo().premiumUntil(never.id))?.toISOString()).to.equal('2026-03-31T00:00:00.000Z');
      expect((await repo().premiumUntil(lapsed.id))?.toISOString()).to.equal('2026-03-03T00:00:00.000Z');
      expect((await repo().premiumUntil(running.id))?.toISOString()).to.equal('2026-03-13T12:00:00.000Z');
      expect(await extend(UNKNOWN, 30)).to.equal(null);
      expect(await extend('not-a-uuid', 30)).to.equal(null);
    });

    it('findInfo: premium is active only while its end is after now', async () => {
      t.clock.set('2026-03-01T00:00:00.000Z');
      const ends = ['2026-03-01T00:00:00.001Z', '2026-03-01T00:00:00.000Z', '2026-02-28T23:59:59.999Z'];
      const users = await Promise.all(ends.map((end) => seedUser(t.backend, { premiumUntil: new Date(end) })));
      const never = await seedUser(t.backend, { username: 'erin42', nostrPubkey: PUBKEY });
      const infos = await Promise.all(users.map((user) => repo().findInfo(user.id)));
      expect(infos.map((info) => [info?.premium_until, info?.premium_active])).to.deep.equal([
        ['2026-03-01T00:00:00.001Z', true],
        ['2026-03-01T00:00:00.000Z', false],
        ['2026-02-28T23:59:59.999Z', false],
      ]);
      expect(await repo().findInfo(never.id)).to.deep.equal({ id: never.id, username: 'erin42', nostr_pubkey: PUBKEY, premium_until: null, premium_active: false, created_at: '2026-01-01T00:00:00.000Z' });
      expect(await repo().findInfo(UNKNOWN)).to.equal(null);
    });
  });

  describe('erasure', () => {
    it('erase with purge: the user, its keys and sessions and its login events are gone; another user’s are untouched', async () => {
      const { id } = await seedUser(t.backend, { nostrPubkey: PUBKEY });
      const other = await seedUser(t.backend);
      await t.backend.sessions.start(id, 'extension');
      await t.backend.sessions.start(other.id, 'extension');
      await loginEvent(t, id, 'extension', '2026-01-02T00:00:00.000Z');
      const kept = await loginEvent(t, other.id, 'ios', '2026-01-03T00:00:00.000Z');
      expect(await t.backend.db.transaction((trx) => repo().erase(trx, id.toUpperCase(), { loginEvents: 'purge' }))).to.equal(true);
      expect(await knex()('users').pluck('id')).to.deep.equal([other.id]);
      expect(await knex()('sessions').pluck('user_id')).to.deep.equal([other.id]);
      expect(await knex()('login_events').select('id', 'user_id', 'fingerprint')).to.deep.equal([{ id: kept, user_id: other.id, fingerprint: 'f'.repeat(64) }]);
    });

    it('erase with anonymize: the user’s login events stay without user and fingerprint; another user’s keep both', async () => {
      const { id } = await seedUser(t.backend);
      const other = await seedUser(t.backend);
      const mine = await loginEvent(t, id, 'extension', '2026-01-02T00:00:00.000Z');
      const theirs = await loginEvent(t, other.id, 'ios', '2026-01-03T00:00:00.000Z');
      expect(await t.backend.db.transaction((trx) => repo().erase(trx, id, { loginEvents: 'anonymize' }))).to.equal(true);
      expect(await knex()('login_events').select('id', 'user_id', 'fingerprint', 'platform').orderBy('created_at')).to.deep.equal([
        { id: mine, user_id: null, fingerprint: null, platform: 'extension' },
        { id: theirs, user_id: other.id, fingerprint: 'f'.repeat(64), platform: 'ios' },
      ]);
      expect(await knex()('users').pluck('id')).to.deep.equal([other.id]);
    });

    it('erase of an unknown or malformed id is false and changes nothing', async () => {
      const { id } = await seedUser(t.backend);
      await loginEvent(t, id, 'extension', '2026-01-02T00:00:00.000Z');
      for (const loginEvents of ['purge', 'anonymize'] as const) {
        expect(await t.backend.db.transaction((trx) => repo().erase(trx, UNKNOWN, { loginEvents }))).to.equal(false);
        expect(await t.backend.db.transaction((trx) => repo().erase(trx, 'not-a-uuid', { loginEvents }))).to.equal(false);
      }
      expect(await knex()('users').pluck('id')).to.deep.equal([id]);
      expect(await knex()('login_events').pluck('user_id')).to.deep.equal([id]);
    });
  });

  describe('export', () => {
    it('exportAccount: the account, keys (by asset, then type), sessions and login events (oldest first), no hashes', async () => {
      const { id } = await seedUser(t.backend, { username: 'erin42', nostrPubkey: PUBKEY, premiumUntil: new Date('2026-06-01T00:00:00.000Z') });
      const other = await seedUser(t.backend);
      const key = (asset: string, keyType: string, publicKey: string, fields: Record<string, unknown> = {}) =>
        knex()('user_keys').insert({ id: randomUUID(), user_id: id, asset, key_type: keyType, public_key: publicKey, created_at: at('2026-01-05T00:00:00.000Z'), updated_at: at('2026-01-05T00:00:00.000Z'), ...fields });
      await key('xmr', 'primary', 'xmr-view', { public_spend_key: 'ab'.repeat(32) });
      await key('grin', 'slatepack_address', 'grin1slate');
      await key('grin', 'primary', 'grin-pub', { proven_at: at('2026-01-06T00:00:00.000Z') });
      await knex()('user_keys').insert({ id: randomUUID(), user_id: other.id, asset: 'btc', key_type: 'primary', public_key: 'not-mine', created_at: at('2026-01-05T00:00:00.000Z'), updated_at: at('2026-01-05T00:00:00.000Z') });
      t.clock.set('2026-01-10T00:00:00.000Z');
      await t.backend.sessions.start(id, 'web');
      t.clock.set('2026-01-09T00:00:00.000Z');
      await t.backend.sessions.start(id, 'extension');
      await t.backend.sessions.start(other.id, 'nostr');
      await loginEvent(t, id, 'ios', '2026-01-08T00:00:00.000Z');
      await loginEvent(t, id, 'extension', '2026-01-07T00:00:00.000Z');
      await loginEvent(t, other.id, 'android', '2026-01-07T00:00:00.000Z');
      await knex()('sessions').where({ user_id: id, platform: 'web' }).update({ revoked_at: at('2026-01-11T00:00:00.000Z') });
      const sessions = (await knex()('sessions').where({ user_id: id }).orderBy('created_at').select('expires_at')).map((row) => new Date(row.expires_at as string).toISOString());
      await knex()('users').where({ id }).update({ suspended_at: at('2026-01-12T00:00:00.000Z'), suspension_reason: 'spam reports' });
      const exported = await repo().exportAccount(id.toUpperCase());
      expect(exported).to.deep.equal({
        account: { id, username: 'erin42', nostr_pubkey: PUBKEY, premium_until: '2026-06-01T00:00:00.000Z', created_at: '2026-01-01T00:00:00.000Z' },
        suspension: { suspended_at: '2026-01-12T00:00:00.000Z', reason: 'spam reports' },
        keys: [
          { asset: 'grin', key_type: 'primary', public_key: 'grin-pub', public_spend_key: null, proven: true, created_at: '2026-01-05T00:00:00.000Z' },
          { asset: 'grin', key_type: 'slatepack_address', public_key: 'grin1slate', public_spend_key: null, proven: false, created_at: '2026-01-05T00:00:00.000Z' },
          { asset: 'xmr', key_type: 'primary', public_key: 'xmr-view', public_spend_key: 'ab'.repeat(32), proven: false, created_at: '2026-01-05T00:00:00.000Z' },
        ],
        sessions: [
          { platform: 'extension', created_at: '2026-01-09T00:00:00.000Z', expires_at: sessions[0], revoked_at: null },
          { platform: 'web', created_at: '2026-01-10T00:00:00.000Z', expires_at: sessions[1], revoked_at: '2026-01-11T00:00:00.000Z' },
        ],
        login_events: [
          { platform: 'extension', created_at: '2026-01-07T00:00:00.000Z' },
          { platform: 'ios', created_at: '2026-01-08T00:00:00.000Z' },
        ],
      });
    });

    it('exportAccount: a user without anything else exports empty lists and nulls; unknown and malformed ids export nothing', async () => {
      const { id } = await seedUser(t.backend);
      expect(await repo().exportAccount(id)).to.deep.equal({
        account: { id, username: null, nostr_pubkey: null, premium_until: null, created_at: '2026-01-01T00:00:00.000Z' },
        suspension: null,
        keys: [],
        sessions: [],
        login_events: [],
      });
      expect(await repo().exportAccount(UNKNOWN)).to.deep.equal({});
      expect(await repo().exportAccount('not-a-uuid')).to.deep.equal({});
    });
  });
});
