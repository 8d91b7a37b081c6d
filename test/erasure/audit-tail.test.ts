import { expect } from 'chai';
import type { AuditEntry, AuditInput, Knex, WalletPlugin } from '@wallet/backend-core';
import { eachDialect, NostrKey, seedUser, type TestBackend } from '../harness/index.js';
import { proof, API, useErasureWorld } from './harness.js';

const GRACE_MS = 72 * 3_600_000;
const confirmPath = (id: string) => `${API}/account/erasure/${id}/confirm`;

type Append = (trx: Knex.Transaction, entry: AuditInput, options?: { onlyOntoIntact?: boolean }) => Promise<AuditEntry>;

/** The audit chain exactly as plugins get it, and (optionally) an erasure hook that runs `onErase` inside the erasure's transaction. */
function chainProbe(onErase?: (trx: Knex.Transaction) => Promise<void>) {
  const probe = { append: undefined as unknown as Append };
  const plugin: WalletPlugin = {
    name: 'chain-probe',
    setup(ctx) {
      probe.append = (trx, entry, options) => ctx.audit.append(trx, entry, options);
      if (onErase) ctx.hooks.onUserErasure((trx) => onErase(trx));
    },
  };
  return { plugin, probe };
}

async function appendThree(t: TestBackend, append: Append): Promise<void> {
  await t.backend.db.knex.transaction(async (trx) => {
    for (const action of ['probe_one', 'probe_two', 'probe_three']) await append(trx, { action, actorKind: 'system', target: 'setting:x' });
  });
}

const refusal = (reason: string) => `the audit chain does not verify at its newest entry (${reason}); nothing was appended`;

eachDialect('erasure: the completion entry is never linked onto a tampered newest entry', (dialect) => {
  const state = { tamper: false };
  const { plugin, probe } = chainProbe(async (trx) => {
    // stands in for a write by someone else after the sweep checked the whole chain
    if (state.tamper) await trx('admin_audit').where({ seq: 3 }).update({ action: 'probe_forged' });
  });
  const w = useErasureWorld(dialect, { enabled: true }, [plugin]);

  it('the newest entry edited after the sweep verified the chain: that erasure rolls back, nothing appended; untouched, the next sweep completes it', async () => {
    const { t, user } = w;
    await appendThree(t, probe.append);
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, user.key, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    expect((await t.client.post(confirmPath(id), await proof(t, user.key, 'erasure_confirm', confirmPath(id)))).status).to.equal(200);
    t.clock.advance(GRACE_MS);
    state.tamper = true;
    const audit = await t.backend.db.knex('admin_audit').orderBy('seq');
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.not.equal(undefined);
    expect(await t.backend.db.knex('admin_audit').orderBy('seq')).to.deep.equal(audit);
    expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'confirmed', attempts: 1, last_error: `Error: ${refusal('entry 3 was altered after it was written')}` });

    state.tamper = false;
    t.clock.advance(60_000);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('users').where({ id: user.id }).first()).to.equal(undefined);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 4 });
  });
});

eachDialect('audit append onlyOntoIntact', (dialect) => {
  const { plugin, probe } = chainProbe();
  const w = useErasureWorld(dialect, { enabled: true }, [plugin]);

  const guarded = (t: TestBackend) => t.backend.db.knex.transaction((trx) => probe.append(trx, { action: 'guarded', actorKind: 'system' }, { onlyOntoIntact: true }));
  const failure = async (t: TestBackend) => {
    const before = { audit: await t.backend.db.knex('admin_audit').orderBy('seq'), head: await t.backend.db.knex('admin_audit_head') };
    const err = await guarded(t).then(
      () => null,
      (e: Error) => e.message,
    );
    expect({ audit: await t.backend.db.knex('admin_audit').orderBy('seq'), head: await t.backend.db.knex('admin_audit_head') }, 'nothing appended').to.deep.equal(before);
    return err;
  };

  it('an empty chain and an intact chain take the entry', async () => {
    const { t } = w;
    expect((await guarded(t)).seq).to.equal(1);
    await appendThree(t, probe.append);
    expect((await guarded(t)).seq).to.equal(5);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 5 });
  });

  it('refused: the newest entry edited', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    await t.backend.db.knex('admin_audit').where({ seq: 3 }).update({ target: 'setting:y' });
    expect(await failure(t)).to.equal(refusal('entry 3 was altered after it was written'));
  });

  it('refused: the sealed head deleted, or altered', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    const head = await t.backend.db.knex('admin_audit_head').first();
    await t.backend.db.knex('admin_audit_head').delete();
    expect(await failure(t)).to.equal(refusal('the sealed chain head is missing or altered'));
    await t.backend.db.knex('admin_audit_head').insert(head);
    await t.backend.db.knex('admin_audit_head').update({ mac: '0'.repeat(64) });
    expect(await failure(t)).to.equal(refusal('the sealed chain head is missing or altered'));
  });

  it('refused: the newest entry deleted (the intact one before it is not the one the head names)', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    await t.backend.db.knex('admin_audit').where({ seq: 3 }).delete();
    expect(await failure(t)).to.equal(refusal('entry 2 is not the one the sealed head names (the head says the chain ends at 3)'));
  });

  it('refused: the newest entry replaced by another the server sealed, under the head sealed for the first', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    const head = await t.backend.db.knex('admin_audit_head').first();
    await t.backend.db.knex('admin_audit').where({ seq: 3 }).delete();
    await t.backend.db.knex.transaction((trx) => probe.append(trx, { action: 'probe_replacement', actorKind: 'system' }));
    // the head of the chain as it was before the replacement: a valid seal, for seq 3, of the other entry's hash
    await t.backend.db.knex('admin_audit_head').update(head);
    expect(await failure(t)).to.equal(refusal('entry 3 is not the one the sealed head names (the head says the chain ends at 3)'));
  });

  it('refused: every entry deleted while the head remains', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    await t.backend.db.knex('admin_audit').delete();
    expect(await failure(t)).to.equal(refusal('the entries the sealed head names are gone'));
  });

  it('without the option an entry is still appended onto a tampered chain (the operator\'s actions stay recorded) and verify still reports the break', async () => {
    const { t } = w;
    await appendThree(t, probe.append);
    await t.backend.db.knex('admin_audit').where({ seq: 3 }).update({ target: 'setting:y' });
    const entry = await t.backend.db.knex.transaction((trx) => probe.append(trx, { action: 'recorded', actorKind: 'cli' }));
    expect(entry.seq).to.equal(4);
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: false, entries: 2, brokenAt: 3, reason: 'the entry was altered after it was written' });
  });

  it('a user with no entry erased onto an intact chain: the completion is appended', async () => {
    const { t } = w;
    const key = new NostrKey();
    await seedUser(t.backend, { nostrPubkey: key.pubkey, username: 'plain' });
    await appendThree(t, probe.append);
    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, key, 'erasure_request', `${API}/account/erasure`));
    const id = requested.body.erasure_id as string;
    await t.client.post(confirmPath(id), await proof(t, key, 'erasure_confirm', confirmPath(id)));
    t.clock.advance(GRACE_MS);
    await t.backend.scheduler.runNow('erasure.sweep');
    expect(await t.backend.db.knex('erasure_requests').where({ id }).first()).to.include({ status: 'completed' });
    expect(await t.backend.setup.verifyAudit()).to.deep.equal({ ok: true, entries: 4 });
  });
});
