import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { auditProbe, eachDialect, NostrKey, seedUser } from '../harness/index.js';
import { API, proof, requestSeal, useErasureWorld } from './harness.js';

const HOUR_MS = 3_600_000;

/**
 * What the sweeper will act on: only a confirmed request the server itself sealed (found in a
 * security review: anyone able to write the database could otherwise queue an erasure, and
 * the audit scrub that comes with it). And a request left unconfirmed past its window is not
 * handed out again as if it were live.
 */
eachDialect('erasure: the sweeper acts only on requests this server sealed', (dialect) => {
  const w = useErasureWorld(dialect);

  it('a confirmed row written into the database without the seal, or with the seal of another due time, erases nothing; a sealed one does', async () => {
    const { t } = w;
    const { time } = t.backend.db.dialect;
    const due = '2025-12-31T00:00:00.000Z';
    const victims = [await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey }), await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey }), await seedUser(t.backend, { nostrPubkey: new NostrKey().pubkey })];
    const forged = [
      { integrity: null },
      { integrity: requestSeal(randomUUID(), victims[1]!.id, '2026-06-30T00:00:00.000Z') },
    ];
    const ids: string[] = [];
    for (const [i, { integrity }] of forged.entries()) {
      const id = randomUUID();
      ids.push(id);
      await t.backend.db.knex('erasure_requests').insert({ id, user_id: victims[i]!.id, status: 'confirmed', created_at: time(new Date(due)), confirmed_at: time(new Date(due)), due_at: time(new Date(due)), attempts: 0, integrity });
    }
    const sealedId = randomUUID();
    await t.backend.db.knex('erasure_requests').insert({ id: sealedId, user_id: victims[2]!.id, status: 'confirmed', created_at: time(new Date(due)), confirmed_at: time(new Date(due)), due_at: time(new Date(due)), attempts: 0, integrity: requestSeal(sealedId, victims[2]!.id, due) });
    const auditBefore = await t.backend.db.knex('admin_audit').count({ n: '*' }).first();

    await t.backend.scheduler.runNow('erasure.sweep');

    for (const [i, id] of ids.entries()) {
      expect(await t.backend.db.knex('users').where({ id: victims[i]!.id }).first(), `victim ${i}`).to.not.equal(undefined);
      expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({
        status: 'confirmed',
        attempts: 1,
        last_error: 'Error: the erasure request is not sealed by this server (its integrity check failed); nothing was erased',
      });
    }
    expect(await t.backend.db.knex('users').where({ id: victims[2]!.id }).first()).to.equal(undefined);
    expect(await t.backend.db.knex('erasure_requests').where({ id: sealedId }).first()).to.include({ status: 'completed', user_id: null });
    // Only the sealed erasure was recorded.
    expect(Number((await t.backend.db.knex('admin_audit').count({ n: '*' }).first())!.n)).to.equal(Number(auditBefore!.n) + 1);
  });

  it('confirming through the API seals the row with its id, user and due time', async () => {
    const { t, user } = w;
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    const path = `${API}/account/erasure/${id}/confirm`;
    const confirmed = await t.client.post(path, await proof(t, user.key, 'erasure_confirm', path));
    expect((await t.backend.db.knex('erasure_requests').where({ id }).first()).integrity).to.equal(requestSeal(id, user.id, confirmed.body.due_at as string));
  });

  it('a request past its 24 h confirm window is expired when the user asks again, and a new one is made', async () => {
    const { t, user } = w;
    const ask = async () => (await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`))).body as { erasure_id: string; status: string; confirm_by: string };
    const first = await ask();
    t.clock.advance(24 * HOUR_MS - 1);
    expect((await ask()).erasure_id, 'still live 1 ms before the window ends').to.equal(first.erasure_id);
    t.clock.advance(1);
    const second = await ask();
    expect(second.erasure_id).to.not.equal(first.erasure_id);
    expect(second).to.include({ status: 'requested', confirm_by: new Date(t.clock.now().getTime() + 24 * HOUR_MS).toISOString() });
    expect(await t.backend.db.knex('erasure_requests').where({ id: first.erasure_id }).first()).to.include({ status: 'expired' });
  });
});

eachDialect('erasure: the completion entry names what the scrub re-sealed', (dialect) => {
  const probe = auditProbe();
  const w = useErasureWorld(dialect, { enabled: true }, [probe.plugin]);

  it('lists the first 100 scrubbed entries (seq and former hash) and counts all 101', async () => {
    const { t, user } = w;
    await t.backend.db.knex.transaction(async (trx) => {
      for (let i = 0; i < 101; i++) await probe.append(trx, { action: 'probe_about_user', actorKind: 'system', target: `user:${user.id}`, details: { i } });
    });
    const hashes = ((await t.backend.db.knex('admin_audit').orderBy('seq').select('seq', 'row_hash')) as Array<{ seq: number | string; row_hash: string }>).map((row) => ({ seq: Number(row.seq), row_hash: row.row_hash }));
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const path = `${API}/account/erasure/${requested.body.erasure_id}/confirm`;
    await t.client.post(path, await proof(t, user.key, 'erasure_confirm', path));
    t.clock.advance(72 * HOUR_MS);
    await t.backend.scheduler.runNow('erasure.sweep');
    const last = (await t.backend.db.knex('admin_audit').orderBy('seq', 'desc').first()) as { action: string; details: string | Record<string, unknown> };
    const details = (typeof last.details === 'string' ? JSON.parse(last.details) : last.details) as { audit_entries_scrubbed: number; scrubbed: unknown[] };
    expect(last.action).to.equal('account_erasure_completed');
    expect(details.audit_entries_scrubbed).to.equal(101);
    expect(details.scrubbed).to.deep.equal(hashes.slice(0, 100));
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
  });
});
