import { expect } from 'chai';
import { eachDialect, NostrKey, seedUser, TEST_PUBLIC_API_URL, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * POST /auth/nostr (NIP-98 login) beyond the main suite: the `u` tag is PUBLIC_API_URL without
 * its trailing slashes, the refusal names the failed check in its message, each event id is spent
 * once under its own key and stays spent past the ±60 s window, and the login is recorded and
 * started on the nostr platform.
 */

const LOGIN = '/api/v1/auth/nostr';

/** The NIP-98 window of docs/wallet-integration.md: created_at within ±60 s of the server's clock. */
const WINDOW_SEC = 60;

async function loginWith(t: TestBackend, authorization: string) {
  return t.client.request('POST', LOGIN, { headers: { authorization } });
}

/** The event inside an `Authorization: Nostr <base64>` header. */
function eventOf(header: string): { id: string; created_at: number } {
  return JSON.parse(Buffer.from(header.slice('Nostr '.length), 'base64').toString('utf8'));
}

for (const configured of [`${TEST_PUBLIC_API_URL}/`, `${TEST_PUBLIC_API_URL}///`]) {
  eachDialect(`identity: Nostr login with PUBLIC_API_URL=${configured}`, (dialect) => {
    const t = useTestBackend(dialect, { settings: { publicApiUrl: configured } });

    it('verifies a proof made for the canonical URL (trailing slashes dropped) and refuses the slashed forms', async () => {
      const nostr = new NostrKey();
      const user = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
      const at = Math.floor(t.clock.now().getTime() / 1000);
      const header = (u: string) => `Nostr ${nostr.event([['u', u], ['method', 'POST']], at)}`;
      for (const u of [`${configured}${LOGIN}`, `${TEST_PUBLIC_API_URL}/${LOGIN}`, `${TEST_PUBLIC_API_URL}${LOGIN}/`]) {
        const res = await loginWith(t, header(u));
        expect(res.status, u).to.equal(401);
        expect(res.body.error).to.deep.equal({ code: 'proof_invalid', message: 'The Nostr proof is invalid: url does not match.' });
      }
      const res = await loginWith(t, header('https://wallet.example.test/api/v1/auth/nostr'));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.user_id).to.equal(user.id);
    });
  });
}

eachDialect('identity: Nostr login, refusals and the spent event', (dialect) => {
  const t = useTestBackend(dialect);
  const sweep = () => t.backend.scheduler.runNow('core-identity.spent-proof-sweep');
  const spentRows = async (key: string) => (await t.backend.db.knex('spent_proofs').where({ proof_key: key }).select('proof_key')).length;

  it('an invalid header is 401 proof_invalid whose message names the failed check', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const cases: Array<[string, string]> = [
      [nostr.nip98(LOGIN, new Date(t.clock.now().getTime() - 61_000)), 'created_at outside the accepted window'],
      [nostr.nip98(LOGIN, t.clock.now(), { method: 'GET' }), 'method does not match'],
      [nostr.nip98('/api/v1/auth/nostr/link', t.clock.now()), 'url does not match'],
      ['Bearer abc', 'not a Nostr authorization header'],
    ];
    for (const [authorization, reason] of cases) {
      const res = await loginWith(t, authorization);
      expect(res.status, reason).to.equal(401);
      expect(res.body.error, reason).to.deep.equal({ code: 'proof_invalid', message: `The Nostr proof is invalid: ${reason}.` });
    }
    expect(await t.backend.db.knex('spent_proofs').select('proof_key')).to.deep.equal([]);
  });

  it('two different events of one key each log in once; each is spent under nip98:<event id>', async () => {
    const nostr = new NostrKey();
    const user = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const first = nostr.nip98(LOGIN, t.clock.now());
    const second = nostr.nip98(LOGIN, new Date(t.clock.now().getTime() + 1000));
    expect(eventOf(first).id).to.not.equal(eventOf(second).id);
    for (const header of [first, second]) {
      const res = await loginWith(t, header);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.user_id).to.equal(user.id);
    }
    const keys = (await t.backend.db.knex('spent_proofs').select('proof_key')).map((row: { proof_key: string }) => row.proof_key).sort();
    expect(keys).to.deep.equal([`nip98:${eventOf(first).id}`, `nip98:${eventOf(second).id}`].sort());
    for (const header of [first, second]) expect((await loginWith(t, header)).body.error.code).to.equal('proof_replayed');
  });

  it('the spent event outlives its window: a replay at the last accepted second after a sweep is refused; the row expires 120 s after created_at', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const header = nostr.nip98(LOGIN, t.clock.now());
    const { id, created_at: createdAt } = eventOf(header);
    expect((await loginWith(t, header)).status).to.equal(200);
    const key = `nip98:${id}`;
    expect(await spentRows(key)).to.equal(1);

    // The last instant the event is still inside the window: the sweep keeps it, the replay is refused.
    t.clock.set(new Date((createdAt + WINDOW_SEC) * 1000 + 999));
    expect(await sweep()).to.equal(true);
    expect(await spentRows(key)).to.equal(1);
    const replay = await loginWith(t, header);
    expect(replay.status).to.equal(401);
    expect(replay.body.error.code).to.equal('proof_replayed');

    // One second later the event is outside the window anyway.
    t.clock.set(new Date((createdAt + WINDOW_SEC + 1) * 1000));
    expect((await loginWith(t, header)).body.error).to.deep.equal({ code: 'proof_invalid', message: 'The Nostr proof is invalid: created_at outside the accepted window.' });

    // The row lives until created_at + 2 × 60 s, to the millisecond.
    t.clock.set(new Date((createdAt + 2 * WINDOW_SEC) * 1000 - 1));
    await sweep();
    expect(await spentRows(key)).to.equal(1);
    t.clock.set(new Date((createdAt + 2 * WINDOW_SEC) * 1000));
    await sweep();
    expect(await spentRows(key)).to.equal(0);
  });

  it('an event dated at the far edge of the window (+60 s) is still spent when the clock reaches it', async () => {
    const nostr = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const header = nostr.nip98(LOGIN, new Date((now + WINDOW_SEC) * 1000));
    expect((await loginWith(t, header)).status).to.equal(200);
    // At created_at + 60 s the event is still accepted; the guard must still hold it.
    t.clock.set(new Date((now + 2 * WINDOW_SEC) * 1000 + 999));
    await sweep();
    expect((await loginWith(t, header)).body.error.code).to.equal('proof_replayed');
  });

  it('records the login and starts the session on the nostr platform', async () => {
    const nostr = new NostrKey();
    const user = await seedUser(t.backend, { nostrPubkey: nostr.pubkey });
    const res = await loginWith(t, nostr.nip98(LOGIN, t.clock.now()));
    expect(res.status).to.equal(200);
    expect(res.body.platform).to.equal('nostr');
    const events = await t.backend.db.knex('login_events').where({ user_id: user.id }).select('platform');
    expect(events).to.deep.equal([{ platform: 'nostr' }]);
    const sessions = await t.backend.db.knex('sessions').where({ user_id: user.id }).select('platform');
    expect(sessions).to.deep.equal([{ platform: 'nostr' }]);
  });
});
