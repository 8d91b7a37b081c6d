import { expect } from 'chai';
import { eachDialect } from '../harness/index.js';
import { API, proof, useErasureWorld } from './harness.js';

const HOUR_MS = 3_600_000;

eachDialect('erasure: the whole flow', (dialect) => {
  const w = useErasureWorld(dialect);

  it('request → confirm (sessions end) → cancel refused after the grace period → sweep: user gone, tombstone kept, audit chain verifies', async () => {
    const { t, user } = w;
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    expect(requested.status, requested.text).to.equal(200);
    const id = requested.body.erasure_id as string;
    expect(requested.body).to.deep.equal({ erasure_id: id, status: 'requested', confirm_by: new Date(t.clock.now().getTime() + 24 * HOUR_MS).toISOString(), due_at: null });
    expect((await t.client.get(`${API}/auth/me`, { token: user.token })).status).to.equal(200);

    const confirmPath = `${API}/account/erasure/${id}/confirm`;
    const confirmed = await t.client.post(confirmPath, await proof(t, user.key, 'erasure_confirm', confirmPath));
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(confirmed.body).to.deep.equal({ erasure_id: id, status: 'confirmed', confirm_by: null, due_at: new Date(t.clock.now().getTime() + 72 * HOUR_MS).toISOString() });
    expect((await t.client.get(`${API}/auth/me`, { token: user.token })).status, 'sessions revoked at confirmation').to.equal(401);

    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first(), 'not before the grace period').to.not.equal(undefined);

    t.clock.advance(72 * HOUR_MS);
    const cancelPath = `${API}/account/erasure/${id}`;
    const late = await t.client.delete(cancelPath, await proof(t, user.key, 'erasure_cancel', cancelPath, 'DELETE'));
    expect([late.status, late.body.error?.code]).to.deep.equal([400, 'erasure_not_cancellable']);

    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.equal(undefined);
    const tombstone = await t.backend.db.knex('erasure_requests').where({ id }).first();
    expect(tombstone).to.include({ status: 'completed', user_id: null });
    const verdict = await t.backend.setup.verifyAudit();
    expect(verdict.ok, JSON.stringify(verdict)).to.equal(true);
    const last = (await t.backend.db.knex('admin_audit').orderBy('seq', 'desc').first()) as { action: string; target: string };
    expect([last.action, last.target]).to.deep.equal(['account_erasure_completed', `erasure:${id}`]);
  });

  it('an export names the account; erasure scrubs that audit entry and the chain still verifies', async () => {
    const { t, user } = w;
    const exported = await t.client.post(`${API}/account/export`, await proof(t, user.key, 'erasure_export', `${API}/account/export`));
    expect(exported.status, exported.text).to.equal(200);
    expect(exported.body.format).to.equal('wallet-backend-export/1');
    expect(exported.body.sections.core.account).to.include({ id: user.id, nostr_pubkey: user.key.pubkey });
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    const confirmPath = `${API}/account/erasure/${id}/confirm`;
    await t.client.post(confirmPath, await proof(t, user.key, 'erasure_confirm', confirmPath));
    t.clock.advance(72 * HOUR_MS);
    await t.backend.scheduler.runNow('erasure.sweep');
    const rows = (await t.backend.db.knex('admin_audit').orderBy('seq')) as Array<{ action: string; target: string | null; details: string | null }>;
    expect(rows.map((row) => row.action)).to.deep.equal(['account_exported', 'account_erasure_completed']);
    expect(rows[0]).to.include({ target: '[erased]' });
    expect(JSON.stringify(rows)).to.not.include(user.id);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
  });
});
