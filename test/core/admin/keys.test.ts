import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { AdminKeyStore, type AdminKey } from '../../../packages/core/src/admin/index.js';
import { createIntegrity } from '../../../packages/core/src/crypto/index.js';
import { eachDialect, TEST_SECRETS, useTestBackend, type TestBackend } from '../../harness/index.js';

const PUBKEY = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);

/** The documented seal, computed here with node:crypto: HMAC-SHA256(secret, "admin_key" ␟ id ␟ pubkey ␟ scope ␟ created ␟ activated ␟ revoked), '' for a null date. */
function expectedSeal(fields: { id: string; pubkey: string; scope: string; created: string; activated: string; revoked: string }): string {
  const text = ['admin_key', fields.id, fields.pubkey, fields.scope, fields.created, fields.activated, fields.revoked].join('\u001f');
  return createHmac('sha256', TEST_SECRETS.adminKeyIntegritySecret).update(text, 'utf8').digest('hex');
}

eachDialect('admin: key store', (dialect) => {
  const t = useTestBackend(dialect);
  const store = (backend: TestBackend = t) => new AdminKeyStore(backend.backend.db, createIntegrity(TEST_SECRETS.adminKeyIntegritySecret), backend.clock, backend.logger);
  const row = async (id: string) => (await t.backend.db.knex('admin_keys').where({ id }).first()) as { mac: string; activated_at: unknown; revoked_at: unknown };

  it('seals each row with the documented HMAC (known answer), a null date sealed as the empty string', async () => {
    const created = t.clock.now().toISOString();
    const key = await store().create(PUBKEY.toUpperCase(), 'read', { activated: false });
    expect(key.pubkey).to.equal(PUBKEY);
    expect((await row(key.id)).mac).to.equal(expectedSeal({ id: key.id, pubkey: PUBKEY, scope: 'read', created, activated: '', revoked: '' }));

    t.clock.advance(5_000);
    const activated = t.clock.now().toISOString();
    const live = await store().activate(key, t.backend.db.knex);
    expect(live?.activatedAt?.toISOString()).to.equal(activated);
    expect((await row(key.id)).mac).to.equal(expectedSeal({ id: key.id, pubkey: PUBKEY, scope: 'read', created, activated, revoked: '' }));
  });

  it('a seal made under another domain with the same fields does not verify', async () => {
    const key = await store().create(PUBKEY, 'full', { activated: true });
    const fields = [key.id, PUBKEY, 'full', key.createdAt.toISOString(), key.createdAt.toISOString(), ''];
    const foreign = createIntegrity(TEST_SECRETS.adminKeyIntegritySecret).seal('setup_latch', fields);
    await t.backend.db.knex('admin_keys').where({ id: key.id }).update({ mac: foreign });
    expect(await store().findLive(PUBKEY)).to.equal(null);
    const listed = await store().list();
    expect(listed.map((k) => k.intact)).to.deep.equal([false]);
  });

  it('active() lists live, intact, activated keys only', async () => {
    const s = store();
    const activated = await s.create(PUBKEY, 'full', { activated: true });
    const waiting = await s.create(OTHER, 'full', { activated: false });
    const revoked = await s.create('ef'.repeat(32), 'full', { activated: true });
    await s.revoke(revoked, t.backend.db.knex);
    expect((await s.active()).map((k) => k.id)).to.deep.equal([activated.id]);
    // Once its holder logs in, the waiting key is active too.
    await s.activate(waiting, t.backend.db.knex);
    expect((await s.active()).map((k) => k.id).sort()).to.deep.equal([activated.id, waiting.id].sort());
  });

  it('activation happens once: activating an already activated key (read fresh) changes nothing', async () => {
    const s = store();
    const key = await s.create(PUBKEY, 'full', { activated: false });
    const first = await s.activate(key, t.backend.db.knex);
    expect(first).to.not.equal(null);
    t.clock.advance(60_000);
    const fresh = (await s.findLiveById(key.id)) as AdminKey;
    expect(await s.activate(fresh, t.backend.db.knex)).to.equal(null);
    expect((await s.findLiveById(key.id))?.activatedAt?.toISOString()).to.equal(first!.activatedAt!.toISOString());
  });

  it('revocation happens once: revoking an already revoked key (read fresh) changes nothing', async () => {
    const s = store();
    const key = await s.create(PUBKEY, 'full', { activated: true });
    const first = await s.revoke(key, t.backend.db.knex);
    expect(first?.revokedAt).to.be.instanceOf(Date);
    t.clock.advance(60_000);
    const [fresh] = await s.list();
    expect(fresh!.intact).to.equal(true);
    expect(await s.revoke(fresh!, t.backend.db.knex)).to.equal(null);
    const [after] = await s.list();
    expect(after!.revokedAt!.toISOString()).to.equal(first!.revokedAt!.toISOString());
  });

  it('a transition from a stale copy (its seal no longer on the row) answers null, never throws', async () => {
    const s = store();
    const key = await s.create(PUBKEY, 'full', { activated: false });
    expect(await s.activate(key, t.backend.db.knex)).to.not.equal(null);
    // `key` still carries activatedAt = null: the row's seal is now another one.
    expect(await s.revoke(key, t.backend.db.knex)).to.equal(null);
    expect((await s.findLive(PUBKEY))?.revokedAt).to.equal(null);
  });

  it('a row that fails its seal is refused and logged with its id (never its public key)', async () => {
    const key = await store().create(PUBKEY, 'full', { activated: true });
    await t.backend.db.knex('admin_keys').where({ id: key.id }).update({ scope: 'read' });
    expect(await store().findLiveById(key.id)).to.equal(null);
    const line = t.logger.lines.find((l) => l.msg === 'admin key failed its integrity check; refusing it');
    expect(line).to.include({ level: 'error', admin_key_id: key.id });
    expect(t.logger.text()).to.not.include(PUBKEY);
  });
});
