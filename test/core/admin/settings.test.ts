import { expect } from 'chai';
import { adminLogin, bootstrapAdmin, BtcKey, eachDialect, extensionBody, useTestBackend, type TestBackend } from '../../harness/index.js';

const CONFIG = '/api/v1/admin/config';

async function admin(t: TestBackend): Promise<string> {
  return adminLogin(t, (await bootstrapAdmin(t)).nostr);
}

const put = (t: TestBackend, section: string, json: unknown, token: string) => t.client.request('PUT', `${CONFIG}/${section}`, { json, token });

eachDialect('admin: the operator settings overlay', (dialect) => {
  const t = useTestBackend(dialect, { settings: { restoreIpThreshold: 50, restoreFailThreshold: 50, loginEventRetentionDays: 90 } });

  it('GET reports effective values, the overlay, the configured defaults and the apply mode', async () => {
    const token = await admin(t);
    const res = await t.client.get(`${CONFIG}/restore`, { token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ section: 'restore', overlay: null, updated_at: null, tampered: false, apply: 'immediate' });
    expect(res.body.effective).to.deep.equal(res.body.defaults);
    expect(res.body.defaults).to.include({ ip_threshold: 50, fail_threshold: 50 });
    const unknown = await t.client.get(`${CONFIG}/secrets`, { token });
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([404, 'setting_section_unknown']);
  });

  it('PUT writes the section with its audit entry in one step, and the governor obeys it at once', async () => {
    const token = await admin(t);
    const res = await put(t, 'restore', { ip_threshold: 2 }, token);
    expect(res.status).to.equal(200);
    expect(res.body.overlay).to.deep.equal({ ip_threshold: 2 });
    expect(res.body.effective).to.include({ ip_threshold: 2, fail_threshold: 50 });
    const entry = await t.backend.db.knex('admin_audit').where({ action: 'operator_settings_updated' }).first();
    expect(entry.target).to.equal('settings:restore');
    expect(JSON.parse(entry.details)).to.deep.equal({ values: { ip_threshold: 2 } });
    expect(await t.backend.setup.verifyAudit()).to.deep.include({ ok: true });
    const check = () => t.client.post('/api/v1/auth/check-restore', { seed_fingerprint: '00112233' });
    expect((await check()).status).to.equal(200);
    expect((await check()).status).to.equal(200);
    expect((await check()).status).to.equal(429);
  });

  it('the retention section feeds the login-event sweep', async () => {
    const btc = new BtcKey();
    expect((await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()))).status).to.equal(200);
    const events = async () => Number((await t.backend.db.knex('login_events').count({ n: '*' }).first())!.n);
    expect(await events()).to.equal(1);
    t.clock.advance(3 * 86_400_000);
    await t.backend.scheduler.runNow('core-identity.login-event-retention');
    expect(await events(), 'kept under the 90-day default').to.equal(1);
    // Logged in after the clock moved, so the admin session is current.
    const token = await admin(t);
    expect((await put(t, 'retention', { login_event_retention_days: 2 }, token)).status).to.equal(200);
    await t.backend.scheduler.runNow('core-identity.login-event-retention');
    expect(await events(), 'swept under the 2-day overlay').to.equal(0);
  });

  it('a body with a field the section does not have (a secret, say) is 400 and writes nothing', async () => {
    const token = await admin(t);
    for (const [section, body] of [
      ['landing', { title: 'Hi', jwt_secret: 'x'.repeat(40) }],
      ['restore', { ip_threshold: 0 }],
      ['restore', { ip_threshold: '5' }],
      ['retention', { login_event_retention_days: 1.5 }],
      ['landing', { contact_url: 'http://insecure.example' }],
    ] as const) {
      const res = await put(t, section, body, token);
      expect([res.status, res.body.error.code], JSON.stringify(body)).to.deep.equal([400, 'invalid_request']);
    }
    expect(await t.backend.db.knex('operator_settings').select('section')).to.deep.equal([]);
    expect(await t.backend.db.knex('admin_audit').where({ action: 'operator_settings_updated' }).select('seq')).to.deep.equal([]);
  });

  it('the landing section is served publicly at /landing', async () => {
    const token = await admin(t);
    expect((await t.client.get('/api/v1/landing')).body).to.deep.equal({});
    await put(t, 'landing', { title: 'Satoshi’s wallet', announcement: 'Maintenance on Sunday.' }, token);
    expect((await t.client.get('/api/v1/landing')).body).to.deep.equal({ title: 'Satoshi’s wallet', announcement: 'Maintenance on Sunday.' });
  });

  it('a section edited in the database is ignored: defaults apply and GET says tampered', async () => {
    const token = await admin(t);
    await put(t, 'restore', { ip_threshold: 2 }, token);
    await t.backend.db.knex('operator_settings').where({ section: 'restore' }).update({ body: JSON.stringify({ ip_threshold: 100_000 }) });
    const res = await t.client.get(`${CONFIG}/restore`, { token });
    expect(res.body).to.deep.include({ tampered: true, overlay: null });
    expect(res.body.effective).to.deep.equal(res.body.defaults);
    expect(t.logger.lines.some((line) => line.msg === 'operator settings section failed its integrity check; using the configured defaults')).to.equal(true);
    // Writing the section again re-seals it.
    expect((await put(t, 'restore', { ip_threshold: 3 }, token)).body).to.deep.include({ tampered: false, overlay: { ip_threshold: 3 } });
  });
});
