import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '@wallet/backend-core';
import { erasurePlugin, ERASURE_DEFAULTS, type ErasureOptions } from '@wallet/erasure';
import { startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freshDatabaseUrl, TestClient } from '../harness/index.js';
import { erasureOptionProblems } from '../../packages/erasure/src/options.js';

const SETTINGS = { publicApiUrl: 'https://wallet.example.test', configuredSecrets: ['adminKeyIntegritySecret'] };
const GRACE = 'gracePeriodHours (ERASURE_GRACE_PERIOD_HOURS) must be a whole number of hours from 1 to 720';
const LOGIN_EVENTS = 'loginEvents (ERASURE_LOGIN_EVENTS) must be purge or anonymize';
const ENABLED = 'enabled (FEATURE_ERASURE) must be true or false';
const NEEDS_SECRET = 'erasure (FEATURE_ERASURE) needs ADMIN_KEY_INTEGRITY_SECRET (the audit chain it appends to and scrubs)';
const NEEDS_URL = 'erasure (FEATURE_ERASURE) needs PUBLIC_API_URL (the signed proofs are bound to it)';

const problems = (options: Record<string, unknown>, settings: { publicApiUrl?: string; configuredSecrets?: string[] } = SETTINGS) => erasureOptionProblems(options as ErasureOptions, settings);

describe('erasure options', () => {
  it('defaults: off, 72 h, purge; no options have no problems', () => {
    expect(ERASURE_DEFAULTS).to.deep.equal({ enabled: false, gracePeriodHours: 72, loginEvents: 'purge' });
    expect(problems({})).to.deep.equal([]);
    expect(problems({}, {})).to.deep.equal([]);
    expect(problems({ enabled: false }, {})).to.deep.equal([]);
  });

  it('gracePeriodHours: 1 and 720 pass; 0, 721, fractions, strings, NaN are refused with the literal message', () => {
    for (const ok of [1, 2, 72, 719, 720]) expect(problems({ gracePeriodHours: ok }), String(ok)).to.deep.equal([]);
    for (const bad of [0, -1, 721, 1.5, 72.000001, '72', Number.NaN, Number.POSITIVE_INFINITY, null]) expect(problems({ gracePeriodHours: bad }), String(bad)).to.deep.equal([GRACE]);
  });

  it('loginEvents: purge and anonymize pass; anything else is refused', () => {
    expect(problems({ loginEvents: 'purge' })).to.deep.equal([]);
    expect(problems({ loginEvents: 'anonymize' })).to.deep.equal([]);
    for (const bad of ['PURGE', 'anonymise', 'delete', '', 1, null]) expect(problems({ loginEvents: bad }), String(bad)).to.deep.equal([LOGIN_EVENTS]);
  });

  it('enabled must be a boolean', () => {
    for (const bad of ['true', 1, 0, null, 'yes']) expect(problems({ enabled: bad }), String(bad)).to.deep.equal([ENABLED]);
    expect(problems({ enabled: true })).to.deep.equal([]);
  });

  it('on: needs the integrity secret and PUBLIC_API_URL; every problem is listed at once, in order', () => {
    expect(problems({ enabled: true }, { publicApiUrl: 'https://x.test' })).to.deep.equal([NEEDS_SECRET]);
    expect(problems({ enabled: true }, { configuredSecrets: ['adminKeyIntegritySecret'] })).to.deep.equal([NEEDS_URL]);
    expect(problems({ enabled: true, gracePeriodHours: 0, loginEvents: 'x' }, {})).to.deep.equal([GRACE, LOGIN_EVENTS, NEEDS_SECRET, NEEDS_URL]);
    // off, the missing settings are no problem
    expect(problems({ enabled: false, gracePeriodHours: 721 }, {})).to.deep.equal([GRACE]);
  });

  it("the plugin's validateConfig is the same list", () => {
    const plugin = erasurePlugin({ enabled: true, gracePeriodHours: 721 });
    expect(plugin.validateConfig!(SETTINGS as never)).to.deep.equal([GRACE]);
    expect(erasurePlugin().validateConfig!({} as never)).to.deep.equal([]);
  });
});

eachDialect('erasure in the reference server', (dialect) => {
  let dataDir: string;
  let running: RunningServer | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-erasure-server-'));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    running = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect), ...env }, { write: () => undefined });
    return new TestClient(running.url);
  };

  it('off by default (capabilities erasure:false, 400 erasure_off); FEATURE_ERASURE=true boots with erasure:true and a working challenge', async () => {
    let client = await start({});
    expect((await client.get('/api/v1/capabilities')).body.erasure).to.equal(false);
    const off = await client.post('/api/v1/account/erasure/challenge', { purpose: 'erasure_request' });
    expect([off.status, off.body.error.code]).to.deep.equal([400, 'erasure_off']);
    await running!.close();
    running = undefined;
    client = await start({ FEATURE_ERASURE: 'true', ERASURE_GRACE_PERIOD_HOURS: '24', ERASURE_LOGIN_EVENTS: 'anonymize' });
    expect((await client.get('/api/v1/capabilities')).body.erasure).to.equal(true);
    const challenge = await client.post('/api/v1/account/erasure/challenge', { purpose: 'erasure_export' });
    expect([challenge.status, challenge.body.purpose]).to.deep.equal([200, 'erasure_export']);
  });

  it('ERASURE_GRACE_PERIOD_HOURS=0 (and other bad values) refuses the boot with the literal problems', async () => {
    const refused = await start({ FEATURE_ERASURE: 'true', ERASURE_GRACE_PERIOD_HOURS: '0' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(refused).to.be.instanceOf(BootError);
    expect(refused.problems).to.deep.equal([`erasure: ${GRACE}`]);
    const many = await start({ FEATURE_ERASURE: 'maybe', ERASURE_GRACE_PERIOD_HOURS: '721', ERASURE_LOGIN_EVENTS: 'shred' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as BootError,
    );
    expect(many.problems).to.include.members([`erasure: ${GRACE}`, `erasure: ${LOGIN_EVENTS}`]);
  });
});
