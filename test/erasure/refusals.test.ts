import { expect } from 'chai';
import { eachDialect, NostrKey, seedUser, type TestBackend } from '../harness/index.js';
import { API, proof, useErasureWorld } from './harness.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const REQUEST_PATH = `${API}/account/erasure`;
const confirmPath = (id: string) => `${API}/account/erasure/${id}/confirm`;
const cancelPath = (id: string) => `${API}/account/erasure/${id}`;

/** A nonce for `purpose`, fetched over HTTP. */
async function nonceFor(t: TestBackend, purpose: string): Promise<string> {
  const res = await t.client.post(`${API}/account/erasure/challenge`, { purpose });
  expect(res.status, res.text).to.equal(200);
  return res.body.nonce as string;
}

/** Everything a refusal must leave as it was: requests, nonces, sessions, users, audit entries. */
async function state(t: TestBackend) {
  const knex = t.backend.db.knex;
  return {
    requests: await knex('erasure_requests').orderBy('id'),
    challenges: ((await knex('challenges').orderBy('nonce')) as Array<{ nonce: string; purpose: string }>).map((row) => `${row.nonce}:${row.purpose}`),
    sessions: await knex('sessions').select('id', 'revoked_at').orderBy('id'),
    users: await knex('users').select('id', 'nostr_pubkey').orderBy('id'),
    audit: await knex('admin_audit').count({ n: '*' }),
  };
}

function expectError(res: { status: number; body: any; text: string }, status: number, code: string): void {
  expect([res.status, res.body?.error?.code], res.text).to.deep.equal([status, code]);
}

eachDialect('erasure: refusals consume nothing and change nothing', (dialect) => {
  const w = useErasureWorld(dialect);

  async function requestNow(): Promise<string> {
    const { t, user } = w;
    const res = await t.client.post(REQUEST_PATH, await proof(t, user.key, 'erasure_request', REQUEST_PATH));
    expect(res.status, res.text).to.equal(200);
    return res.body.erasure_id as string;
  }

  async function confirmNow(id: string) {
    const { t, user } = w;
    const res = await t.client.post(confirmPath(id), await proof(t, user.key, 'erasure_confirm', confirmPath(id)));
    expect(res.status, res.text).to.equal(200);
    return res.body as Record<string, unknown>;
  }

  it('wrong purpose: a confirm proof signed with purpose erasure_request is 401 and the same nonce then confirms', async () => {
    const { t, user } = w;
    const id = await requestNow();
    const nonce = await nonceFor(t, 'erasure_confirm');
    const before = await state(t);
    const wrong = await t.client.post(confirmPath(id), { nostr_token: user.key.signedAction(confirmPath(id), nonce, 'erasure_request', t.clock.now()), nonce });
    expectError(wrong, 401, 'signed_action_invalid');
    expect(wrong.body.error.message).to.equal('The signed proof is for another purpose.');
    expect(await state(t)).to.deep.equal(before);
    const right = await t.client.post(confirmPath(id), { nostr_token: user.key.signedAction(confirmPath(id), nonce, 'erasure_confirm', t.clock.now()), nonce });
    expect(right.status, right.text).to.equal(200);
    expect(right.body.status).to.equal('confirmed');
  });

  it('a replayed nonce is 401 nonce_invalid and changes nothing', async () => {
    const { t, user } = w;
    const body = await proof(t, user.key, 'erasure_request', REQUEST_PATH);
    const first = await t.client.post(REQUEST_PATH, body);
    expect(first.status, first.text).to.equal(200);
    const id = first.body.erasure_id as string;
    const cancelBody = await proof(t, user.key, 'erasure_cancel', cancelPath(id), 'DELETE');
    expect((await t.client.delete(cancelPath(id), cancelBody)).status).to.equal(200);
    const before = await state(t);
    const replay = await t.client.post(REQUEST_PATH, body);
    expectError(replay, 401, 'nonce_invalid');
    const replayCancel = await t.client.delete(cancelPath(id), cancelBody);
    expectError(replayCancel, 401, 'nonce_invalid');
    expect(await state(t)).to.deep.equal(before);
    expect(before.requests).to.have.length(1);
    expect(before.requests[0]).to.include({ id, status: 'cancelled' });
  });

  it('a nonce issued for another purpose is 401 nonce_invalid, is not consumed, and still works for its own purpose', async () => {
    const { t, user } = w;
    const nonce = await nonceFor(t, 'erasure_export');
    const before = await state(t);
    const res = await t.client.post(REQUEST_PATH, { nostr_token: user.key.signedAction(REQUEST_PATH, nonce, 'erasure_request', t.clock.now()), nonce });
    expectError(res, 401, 'nonce_invalid');
    expect(await state(t)).to.deep.equal(before);
    expect(before.challenges).to.deep.equal([`${nonce}:erasure_export`]);
    const exported = await t.client.post(`${API}/account/export`, { nostr_token: user.key.signedAction(`${API}/account/export`, nonce, 'erasure_export', t.clock.now()), nonce });
    expect(exported.status, exported.text).to.equal(200);
    expect((await state(t)).challenges).to.deep.equal([]);
  });

  it("another user's key acts only on its own account: confirming or cancelling someone else's erasure id is 404 erasure_not_found", async () => {
    const { t } = w;
    const id = await requestNow();
    const mallory = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: mallory.pubkey, username: 'mallory' });
    const before = await state(t);
    const confirm = await t.client.post(confirmPath(id), await proof(t, mallory, 'erasure_confirm', confirmPath(id)));
    expectError(confirm, 404, 'erasure_not_found');
    expect(confirm.body.error.message).to.equal('No such erasure request for this account.');
    const cancel = await t.client.delete(cancelPath(id), await proof(t, mallory, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expectError(cancel, 404, 'erasure_not_found');
    const after = await state(t);
    expect(after.requests).to.deep.equal(before.requests);
    expect(after.sessions).to.deep.equal(before.sessions);
    expect(after.users).to.deep.equal(before.users);
    expect(after.audit).to.deep.equal(before.audit);
    expect(after.requests[0]).to.include({ id, status: 'requested' });
    // mallory's own request is a different one
    const own = await t.client.post(REQUEST_PATH, await proof(t, mallory, 'erasure_request', REQUEST_PATH));
    expect(own.status).to.equal(200);
    expect(own.body.erasure_id).to.not.equal(id);
  });

  it('a proof for one erasure id does not act on another: u tag or descriptor bound to another path is 401, the nonce then works', async () => {
    const { t, user } = w;
    const id = await requestNow();
    const other = '3f0b5c1e-8a4d-4e6b-9c2a-7d1e0f9a8b6c';
    const nonce = await nonceFor(t, 'erasure_confirm');
    const before = await state(t);
    const wrongU = await t.client.post(confirmPath(id), { nostr_token: user.key.signedAction(confirmPath(other), nonce, 'erasure_confirm', t.clock.now()), nonce });
    expectError(wrongU, 401, 'signed_action_invalid');
    expect(wrongU.body.error.message).to.equal('The signed proof is invalid: url does not match.');
    const wrongDescriptor = await t.client.post(confirmPath(id), {
      nostr_token: user.key.signedAction(confirmPath(id), nonce, 'erasure_confirm', t.clock.now(), { descriptorPath: confirmPath(other) }),
      nonce,
    });
    expectError(wrongDescriptor, 401, 'signed_action_invalid');
    expect(wrongDescriptor.body.error.message).to.equal('The signed proof is bound to another request.');
    // the proof made for `id` sent to the other id's path
    const moved = await t.client.post(confirmPath(other), { nostr_token: user.key.signedAction(confirmPath(id), nonce, 'erasure_confirm', t.clock.now()), nonce });
    expectError(moved, 401, 'signed_action_invalid');
    expect(await state(t)).to.deep.equal(before);
    const right = await t.client.post(confirmPath(id), { nostr_token: user.key.signedAction(confirmPath(id), nonce, 'erasure_confirm', t.clock.now()), nonce });
    expect([right.status, right.body.status]).to.deep.equal([200, 'confirmed']);
  });

  it('method mismatch: a POST proof sent on DELETE (cancel) is 401, the nonce then cancels', async () => {
    const { t, user } = w;
    const id = await requestNow();
    const nonce = await nonceFor(t, 'erasure_cancel');
    const before = await state(t);
    const res = await t.client.delete(cancelPath(id), { nostr_token: user.key.signedAction(cancelPath(id), nonce, 'erasure_cancel', t.clock.now()), nonce });
    expectError(res, 401, 'signed_action_invalid');
    expect(res.body.error.message).to.equal('The signed proof is invalid: method does not match.');
    expect(await state(t)).to.deep.equal(before);
    const right = await t.client.delete(cancelPath(id), { nostr_token: user.key.signedAction(cancelPath(id), nonce, 'erasure_cancel', t.clock.now(), { method: 'DELETE' }), nonce });
    expect([right.status, right.body]).to.deep.equal([200, { erasure_id: id, status: 'cancelled', confirm_by: null, due_at: null }]);
  });

  it('an expired nonce (5 min + 1 ms) is 401 nonce_invalid; at 5 min − 1 ms it still works', async () => {
    const { t, user } = w;
    const challenge = await t.client.post(`${API}/account/erasure/challenge`, { purpose: 'erasure_request' });
    expect(challenge.body).to.deep.equal({ nonce: challenge.body.nonce, purpose: 'erasure_request', expires_at: '2026-01-01T00:05:00.000Z' });
    const late = challenge.body.nonce as string;
    const inTime = await nonceFor(t, 'erasure_request');
    t.clock.advance(5 * MINUTE_MS - 1);
    const ok = await t.client.post(REQUEST_PATH, { nostr_token: user.key.signedAction(REQUEST_PATH, inTime, 'erasure_request', t.clock.now()), nonce: inTime });
    expect(ok.status, ok.text).to.equal(200);
    const id = ok.body.erasure_id as string;
    t.clock.advance(2);
    const before = await state(t);
    const res = await t.client.post(REQUEST_PATH, { nostr_token: user.key.signedAction(REQUEST_PATH, late, 'erasure_request', t.clock.now()), nonce: late });
    expectError(res, 401, 'nonce_invalid');
    expect(await state(t)).to.deep.equal(before);
    expect(before.requests.map((row: { id: string }) => row.id)).to.deep.equal([id]);
  });

  it('created_at outside 60 s (±61 s) is 401; the same nonce then works at −60 s', async () => {
    const { t, user } = w;
    const nonce = await nonceFor(t, 'erasure_request');
    const before = await state(t);
    for (const offset of [-61_000, 61_000]) {
      const res = await t.client.post(REQUEST_PATH, { nostr_token: user.key.signedAction(REQUEST_PATH, nonce, 'erasure_request', new Date(t.clock.now().getTime() + offset)), nonce });
      expectError(res, 401, 'signed_action_invalid');
      expect(res.body.error.message).to.equal('The signed proof is invalid: created_at outside the accepted window.');
    }
    expect(await state(t)).to.deep.equal(before);
    const right = await t.client.post(REQUEST_PATH, { nostr_token: user.key.signedAction(REQUEST_PATH, nonce, 'erasure_request', new Date(t.clock.now().getTime() - 60_000)), nonce });
    expect([right.status, right.body.status]).to.deep.equal([200, 'requested']);
  });

  it('invalid bodies and ids are 400 invalid_request and store nothing', async () => {
    const { t, user } = w;
    const id = await requestNow();
    const good = await proof(t, user.key, 'erasure_confirm', confirmPath(id));
    const before = await state(t);
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${API}/account/erasure/challenge`, { purpose: 'erasure_everything' }],
      ['POST', `${API}/account/erasure/challenge`, {}],
      ['POST', `${API}/account/erasure/challenge`, { purpose: 'erasure_request', extra: 1 }],
      ['POST', REQUEST_PATH, {}],
      ['POST', REQUEST_PATH, { nostr_token: '', nonce: good.nonce }],
      ['POST', REQUEST_PATH, { nostr_token: good.nostr_token, nonce: 'ABC' }],
      ['POST', REQUEST_PATH, { nostr_token: good.nostr_token, nonce: good.nonce.toUpperCase() }],
      ['POST', REQUEST_PATH, { nostr_token: 5, nonce: good.nonce }],
      ['POST', REQUEST_PATH, { ...good, extra: true }],
      ['POST', REQUEST_PATH, { nostr_token: 'x'.repeat(16_385), nonce: good.nonce }],
      ['POST', confirmPath(id.toUpperCase()), good],
      ['POST', confirmPath('not-a-uuid'), good],
      ['DELETE', cancelPath('not-a-uuid'), good],
      ['POST', `${API}/account/export`, { nonce: good.nonce }],
    ];
    for (const [method, path, body] of cases) {
      const res = await t.client.request(method, path, { json: body });
      expect([method, path, res.status, res.body?.error?.code], res.text).to.deep.equal([method, path, 400, 'invalid_request']);
    }
    expect(await state(t)).to.deep.equal(before);
    const right = await t.client.post(confirmPath(id), good);
    expect([right.status, right.body.status]).to.deep.equal([200, 'confirmed']);
  });

  it('confirm of a request: confirmable at 24 h − 1 ms', async () => {
    const { t } = w;
    const id = await requestNow();
    t.clock.advance(24 * HOUR_MS - 1);
    expect(await confirmNow(id)).to.deep.equal({ erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-01-04T23:59:59.999Z' });
  });

  it('confirm at 24 h is erasure_not_confirmable and the sweeper marks the request expired', async () => {
    const { t, user } = w;
    const id = await requestNow();
    t.clock.advance(24 * HOUR_MS);
    const res = await t.client.post(confirmPath(id), await proof(t, user.key, 'erasure_confirm', confirmPath(id)));
    expectError(res, 400, 'erasure_not_confirmable');
    expect(res.body.error.message).to.equal('The erasure request can no longer be confirmed.');
    const row = await t.backend.db.knex('erasure_requests').where({ id }).first();
    expect(row).to.include({ status: 'requested', confirmed_at: null, due_at: null });
    expect((await t.backend.db.knex('sessions').where({ user_id: user.id })).map((s: { revoked_at: unknown }) => s.revoked_at), 'sessions untouched').to.deep.equal([null]);
    await t.backend.scheduler.runNow('erasure.sweep');
    const swept = await t.backend.db.knex('erasure_requests').where({ id }).first();
    expect(swept).to.include({ status: 'expired', user_id: user.id });
    expect(new Date(swept.ended_at).toISOString()).to.equal('2026-01-02T00:00:00.000Z');
    // an expired request is not live: a new request gets a new id
    const again = await requestNow();
    expect(again).to.not.equal(id);
  });

  it('cancel of a confirmed request: allowed at due_at − 1 ms', async () => {
    const { t, user } = w;
    const id = await requestNow();
    await confirmNow(id);
    t.clock.advance(72 * HOUR_MS - 1);
    const res = await t.client.delete(cancelPath(id), await proof(t, user.key, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expect([res.status, res.body]).to.deep.equal([200, { erasure_id: id, status: 'cancelled', confirm_by: null, due_at: null }]);
    // a repeated cancel answers the cancelled request
    const again = await t.client.delete(cancelPath(id), await proof(t, user.key, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expect([again.status, again.body]).to.deep.equal([200, res.body]);
    t.clock.advance(HOUR_MS);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.not.equal(undefined);
  });

  it('cancel at due_at is erasure_not_cancellable and changes nothing', async () => {
    const { t, user } = w;
    const id = await requestNow();
    await confirmNow(id);
    t.clock.advance(72 * HOUR_MS);
    const before = await state(t);
    const res = await t.client.delete(cancelPath(id), await proof(t, user.key, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expectError(res, 400, 'erasure_not_cancellable');
    expect(res.body.error.message).to.equal('The erasure request can no longer be cancelled.');
    const after = await state(t);
    expect(after.requests).to.deep.equal(before.requests);
    expect(after.requests[0]).to.include({ status: 'confirmed' });
  });

  it('confirm twice answers the same confirmed request (due_at from the first confirmation)', async () => {
    const { t } = w;
    const id = await requestNow();
    const first = await confirmNow(id);
    t.clock.advance(HOUR_MS);
    const second = await confirmNow(id);
    expect(second).to.deep.equal(first);
    expect(first).to.deep.equal({ erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-01-04T00:00:00.000Z' });
  });

  it('a second request while one is live answers the same erasure_id (requested, then confirmed)', async () => {
    const { t } = w;
    const id = await requestNow();
    t.clock.advance(MINUTE_MS);
    const { t: tt, user } = w;
    const again = await tt.client.post(REQUEST_PATH, await proof(tt, user.key, 'erasure_request', REQUEST_PATH));
    expect(again.body).to.deep.equal({ erasure_id: id, status: 'requested', confirm_by: '2026-01-02T00:00:00.000Z', due_at: null });
    await confirmNow(id);
    const third = await t.client.post(REQUEST_PATH, await proof(t, user.key, 'erasure_request', REQUEST_PATH));
    expect(third.body).to.deep.equal({ erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-01-04T00:01:00.000Z' });
    expect(await t.backend.db.knex('erasure_requests').count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 1 : '1' }]);
  });

  it('one live request per user is a database constraint: a direct second live insert fails with a unique violation', async () => {
    const { t, user } = w;
    const id = await requestNow();
    const { time } = t.backend.db.dialect;
    const row = (status: string) => ({ id: crypto.randomUUID(), user_id: user.id, status, created_at: time(t.clock.now()), attempts: 0, due_at: status === 'confirmed' ? time(t.clock.now()) : null });
    for (const status of ['requested', 'confirmed']) {
      const err = (await t.backend.db.knex('erasure_requests').insert(row(status)).then(
        () => null,
        (e: unknown) => e as Error,
      )) as Error | null;
      expect(err, status).to.not.equal(null);
      expect(err!.message).to.include(dialect === 'sqlite' ? 'UNIQUE constraint failed: erasure_requests.user_id' : 'duplicate key value violates unique constraint "erasure_requests_one_live"');
    }
    // ended requests are not live: any number of them may sit beside the live one
    await t.backend.db.knex('erasure_requests').insert([row('cancelled'), row('expired'), row('cancelled')]);
    const live = await t.backend.db.knex('erasure_requests').whereIn('status', ['requested', 'confirmed']);
    expect(live.map((r: { id: string }) => r.id)).to.deep.equal([id]);
  });

  it('10 concurrent requests for one user all answer the same erasure_id with exactly one row stored', async () => {
    const { t, user } = w;
    const bodies = await Promise.all(Array.from({ length: 10 }, () => proof(t, user.key, 'erasure_request', REQUEST_PATH)));
    const answers = await Promise.all(bodies.map((body) => t.client.post(REQUEST_PATH, body)));
    expect(answers.map((res) => res.status)).to.deep.equal(Array(10).fill(200));
    const ids = new Set(answers.map((res) => res.body.erasure_id as string));
    expect(ids.size).to.equal(1);
    const rows = await t.backend.db.knex('erasure_requests');
    expect(rows.map((r: { id: string; status: string }) => [r.id, r.status])).to.deep.equal([[[...ids][0], 'requested']]);
    expect((await state(t)).challenges).to.deep.equal([]);
  });
});

eachDialect('erasure: off', (dialect) => {
  const w = useErasureWorld(dialect, { enabled: false });

  it('every public route answers 400 erasure_off and nothing is stored', async () => {
    const { t, user } = w;
    const nonce = 'ab'.repeat(32);
    const id = '3f0b5c1e-8a4d-4e6b-9c2a-7d1e0f9a8b6c';
    const sign = (path: string, purpose: string, method = 'POST') => ({ nostr_token: user.key.signedAction(path, nonce, purpose, t.clock.now(), { method }), nonce });
    const answers = [
      await t.client.post(`${API}/account/erasure/challenge`, { purpose: 'erasure_request' }),
      await t.client.post(REQUEST_PATH, sign(REQUEST_PATH, 'erasure_request')),
      await t.client.post(confirmPath(id), sign(confirmPath(id), 'erasure_confirm')),
      await t.client.delete(cancelPath(id), sign(cancelPath(id), 'erasure_cancel', 'DELETE')),
      await t.client.post(`${API}/account/export`, sign(`${API}/account/export`, 'erasure_export')),
    ];
    expect(answers.map((res) => [res.status, res.body?.error?.code, res.body?.error?.message])).to.deep.equal(
      Array(5).fill([400, 'erasure_off', 'Account erasure is not enabled on this server.']),
    );
    const knex = t.backend.db.knex;
    expect(await knex('erasure_requests').count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 0 : '0' }]);
    expect(await knex('challenges').count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 0 : '0' }]);
    expect(await knex('admin_audit').count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 0 : '0' }]);
    expect((await t.client.get(`${API}/auth/me`, { token: user.token })).status).to.equal(200);
    expect(t.backend.scheduler.taskNames).to.not.include('erasure.sweep');
  });
});
