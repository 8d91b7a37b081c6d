import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { BtcKey, eachDialect, NostrKey, provenKeyBody, seedUser, type TestBackend } from '../harness/index.js';
import { API, proof, useErasureWorld } from './harness.js';

const EXPORT_PATH = `${API}/account/export`;
const btcSigning = (key: BtcKey) => ({ asset: 'btc' as const, publicKey: key.publicKeyHex, sign: (m: string) => key.signMessage(m) });

async function exportOf(t: TestBackend, key: NostrKey) {
  const res = await t.client.post(EXPORT_PATH, await proof(t, key, 'erasure_export', EXPORT_PATH));
  expect(res.status, res.text).to.equal(200);
  return res;
}

eachDialect('erasure: the export', (dialect) => {
  const w = useErasureWorld(dialect);

  it('core and erasure sections with literal values, no stored secret or hash anywhere in the text, audited as account_exported; erased afterwards with others untouched', async () => {
    const { t, user } = w;
    const knex = t.backend.db.knex;
    const { time } = t.backend.db.dialect;
    const username = ((await knex('users').where({ id: user.id }).first()) as { username: string }).username;
    const other = await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey, username: 'otto' });
    await t.backend.sessions.start(other.id, 'web');
    // keys: a proven btc key and an unproven ltc key, through the API
    const btc = new BtcKey();
    expect((await t.client.post(`${API}/keys`, provenKeyBody(btcSigning(btc), user.id), { token: user.token })).status).to.equal(200);
    const ltc = new BtcKey();
    const ltcRes = await t.client.post(`${API}/keys`, { asset: 'ltc', public_key: ltc.publicKeyHex }, { token: user.token });
    expect(ltcRes.status, ltcRes.text).to.equal(200);
    // a second session, a minute later
    t.clock.advance(60_000);
    await t.backend.sessions.start(user.id, 'web');
    // login events with hashes that must never be exported
    const ipHash = 'a1'.repeat(32);
    const fingerprint = 'f1'.repeat(32);
    await knex('login_events').insert([
      { id: randomUUID(), user_id: user.id, platform: 'extension', ip_hash: ipHash, fingerprint, created_at: time(new Date('2026-01-01T00:00:10.000Z')) },
      { id: randomUUID(), user_id: user.id, platform: 'web', ip_hash: 'b2'.repeat(32), fingerprint: null, created_at: time(new Date('2026-01-01T00:00:20.000Z')) },
      { id: randomUUID(), user_id: other.id, platform: 'web', ip_hash: 'c3'.repeat(32), fingerprint: 'c4'.repeat(32), created_at: time(new Date('2026-01-01T00:00:30.000Z')) },
    ]);
    // an earlier, cancelled erasure request
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const oldId = requested.body.erasure_id as string;
    const cancelled = await t.client.delete(`${API}/account/erasure/${oldId}`, await proof(t, user.key, 'erasure_cancel', `${API}/account/erasure/${oldId}`, 'DELETE'));
    expect(cancelled.status).to.equal(200);

    const res = await exportOf(t, user.key);
    const keys = await knex('user_keys').where({ user_id: user.id }).orderBy(['asset', 'key_type']);
    expect(res.body).to.deep.equal({
      format: 'wallet-backend-export/1',
      exported_at: '2026-01-01T00:01:00.000Z',
      sections: {
        core: {
          account: { id: user.id, username, nostr_pubkey: user.key.pubkey, premium_until: null, created_at: '2026-01-01T00:00:00.000Z' },
          suspension: null,
          keys: keys.map((k: { asset: string; key_type: string; public_key: string }) => ({
            asset: k.asset,
            key_type: k.key_type,
            public_key: k.public_key,
            public_spend_key: null,
            proven: k.asset === 'btc',
            created_at: '2026-01-01T00:00:00.000Z',
          })),
          sessions: [
            { platform: 'extension', created_at: '2026-01-01T00:00:00.000Z', expires_at: res.body.sections.core.sessions[0].expires_at, revoked_at: null },
            { platform: 'web', created_at: '2026-01-01T00:01:00.000Z', expires_at: res.body.sections.core.sessions[1].expires_at, revoked_at: null },
          ],
          login_events: [
            { platform: 'extension', created_at: '2026-01-01T00:00:10.000Z' },
            { platform: 'web', created_at: '2026-01-01T00:00:20.000Z' },
          ],
        },
        erasure: { requests: [{ erasure_id: oldId, status: 'cancelled', confirm_by: null, due_at: null }] },
      },
    });
    expect(keys.map((k: { asset: string; public_key: string }) => [k.asset, k.public_key])).to.deep.equal([
      ['btc', btc.publicKeyHex],
      ['ltc', ltc.publicKeyHex],
    ]);
    // session expiry: a fixed lifetime after creation
    const [s0, s1] = res.body.sections.core.sessions as Array<{ created_at: string; expires_at: string }>;
    expect(Date.parse(s0!.expires_at) - Date.parse(s0!.created_at)).to.equal(Date.parse(s1!.expires_at) - Date.parse(s1!.created_at));

    // nothing stored as a hash or secret appears in the text
    const text = res.text;
    const sessions = (await knex('sessions').where({ user_id: user.id })) as Array<{ refresh_token_hash: string }>;
    const forbidden = [ipHash, fingerprint, 'b2'.repeat(32), ...sessions.map((s) => s.refresh_token_hash), other.id, 'otto'];
    for (const value of forbidden) expect(text, value).to.not.include(value);
    for (const name of ['ciphertext', 'secret_hash', 'funding_tx_key', 'refresh_token_hash', 'pubkey_hash', 'seed_fingerprint', 'ip_hash', 'fingerprint']) expect(text, name).to.not.include(`"${name}"`);

    // audited, naming the user
    const audit = (await knex('admin_audit').orderBy('seq')) as Array<{ action: string; actor_kind: string; target: string }>;
    expect(audit.map((e) => [e.action, e.actor_kind, e.target])).to.deep.equal([['account_exported', 'user', `user:${user.id}`]]);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);

    // erase: every row of the user gone, the other user's kept
    const otherBefore = {
      user: await knex('users').where({ id: other.id }).first(),
      sessions: await knex('sessions').where({ user_id: other.id }),
      logins: await knex('login_events').where({ user_id: other.id }),
    };
    const again = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const id = again.body.erasure_id as string;
    const confirmPath = `${API}/account/erasure/${id}/confirm`;
    expect((await t.client.post(confirmPath, await proof(t, user.key, 'erasure_confirm', confirmPath))).status).to.equal(200);
    t.clock.advance(72 * 3_600_000);
    await t.backend.scheduler.runNow('erasure.sweep');
    for (const table of ['user_keys', 'sessions', 'login_events', 'erasure_requests']) expect(await knex(table).where({ user_id: user.id }), table).to.deep.equal([]);
    expect(await knex('users').where({ id: user.id })).to.deep.equal([]);
    expect(await knex('login_events').whereIn('ip_hash', [ipHash, 'b2'.repeat(32)])).to.deep.equal([]);
    expect((await knex('erasure_requests').orderBy('status')).map((r: { id: string; status: string; user_id: string | null }) => [r.id, r.status, r.user_id])).to.deep.equal([
      [oldId, 'cancelled', null],
      [id, 'completed', null],
    ]);
    expect({
      user: await knex('users').where({ id: other.id }).first(),
      sessions: await knex('sessions').where({ user_id: other.id }),
      logins: await knex('login_events').where({ user_id: other.id }),
    }).to.deep.equal(otherBefore);
    expect(JSON.stringify(await knex('admin_audit'))).to.not.include(user.id);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
    // the erased key now exports as a stranger
    expect((await exportOf(t, user.key)).body.sections).to.deep.equal({});
  });
});
