import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { BootError, createWalletBackend } from '@wallet/backend-core';
import { captureLogger } from '@wallet/backend-core/testing';
import { tipsPlugin, type TipsOptions } from '@wallet/tips';
import { createTestBackend, eachDialect, freshSqliteUrl, rejectionOf, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../harness/index.js';
import { SHARE_BASE, tipAddress, tipBody, txidOf, useChainFakes, useTipsWorld } from './harness.js';

/** Chain settings that are only ever validated here, never contacted. */
const BTC = { btcEsploraUrl: 'http://127.0.0.1:9/btc' };
const LTC = { ltcElectrumUrl: 'tcp://127.0.0.1:9' };
const XMR = { xmrLwsUrl: 'http://127.0.0.1:9/lws', xmrDaemonUrl: 'http://127.0.0.1:9/monerod' };
const WOW = { wowLwsUrl: 'http://127.0.0.1:9/wlws', wowDaemonUrl: 'http://127.0.0.1:9/wownerod' };
const GRIN = { grinNodeUrl: 'http://127.0.0.1:9/grin' };

// The messages, copied from options.ts as known answers; core prefixes each with the plugin name.
const NO_CHAIN = 'tips: tips (FEATURE_TIPS) need at least one of btc, ltc, xmr or wow chain access configured';
const NO_SHARE_BASE = 'tips: shareBase (TIP_SHARE_BASE) is required when tips are on';
const NOT_A_URL = 'tips: shareBase (TIP_SHARE_BASE) must be an absolute URL';
const HTTPS_IN_PRODUCTION = 'tips: shareBase (TIP_SHARE_BASE) must use https in production';
const HTTPS_OR_HTTP = 'tips: shareBase (TIP_SHARE_BASE) must use https (or http outside production)';
const FRAGMENT = 'tips: shareBase (TIP_SHARE_BASE) must not carry a fragment: the wallet appends the tip secret as the fragment';
const ENABLED_NOT_BOOLEAN = 'tips: enabled (FEATURE_TIPS) must be true or false';
const TARGETED_NOT_BOOLEAN = 'tips: targeted (FEATURE_TARGETED_TIPS) must be true or false';
const TARGETED_NEEDS_TIPS = 'tips: targeted (FEATURE_TARGETED_TIPS) needs tips on (FEATURE_TIPS)';

/** createWalletBackend with the tips plugin: nothing is connected before the configuration is judged. */
async function refusal(options: TipsOptions, settings: Record<string, unknown> = {}): Promise<readonly string[]> {
  const err = await rejectionOf(
    createWalletBackend({
      publicApiUrl: TEST_PUBLIC_API_URL,
      databaseUrl: freshSqliteUrl(),
      nodeEnv: 'test',
      ...TEST_SECRETS,
      logger: captureLogger(),
      plugins: [tipsPlugin(options)],
      ...settings,
    }),
  );
  expect(err).to.be.instanceOf(BootError);
  return (err as BootError).problems;
}

/** The same options boot (and are closed again): the positive control of each refusal. */
async function boots(options: TipsOptions, settings: Record<string, unknown>): Promise<void> {
  const t = await createTestBackend('sqlite', { plugins: [tipsPlugin(options)], settings, listen: false });
  await t.close();
}

describe('tips configuration fails closed (spec › General rule 3)', () => {
  it('tips on with only grin chain access and no shareBase: both problems at once', async () => {
    expect(await refusal({ enabled: true }, GRIN)).to.deep.equal([NO_CHAIN, NO_SHARE_BASE]);
  });

  it('tips on without any chain access and an empty shareBase', async () => {
    expect(await refusal({ enabled: true, shareBase: '' })).to.deep.equal([NO_CHAIN, NO_SHARE_BASE]);
  });

  it('a half-configured xmr (lws without daemon) gives tips no chain, listed together with core’s own problem', async () => {
    const problems = await refusal({ enabled: true, targeted: true, shareBase: 'https://wallet.example/tip/#' }, { ...GRIN, xmrLwsUrl: 'http://127.0.0.1:9/lws' });
    expect(problems).to.deep.equal(['xmrLwsUrl (XMR_LWS_URL) and xmrDaemonUrl (XMR_DAEMON_URL): set both or neither', NO_CHAIN, FRAGMENT]);
  });

  it('a shareBase with a fragment, or that is not an absolute URL, or not http(s)', async () => {
    expect(await refusal({ enabled: true, shareBase: 'https://wallet.example/tip/#' }, BTC)).to.deep.equal([FRAGMENT]);
    expect(await refusal({ enabled: true, shareBase: 'https://wallet.example/tip#s=' }, XMR)).to.deep.equal([FRAGMENT]);
    expect(await refusal({ enabled: true, shareBase: 'wallet.example/tip/' }, BTC)).to.deep.equal([NOT_A_URL]);
    expect(await refusal({ enabled: true, shareBase: 'ftp://wallet.example/tip/' }, BTC)).to.deep.equal([HTTPS_OR_HTTP]);
  });

  it('an http shareBase is refused in production and accepted outside it', async () => {
    expect(await refusal({ enabled: true, shareBase: 'http://wallet.example/tip/' }, { ...BTC, nodeEnv: 'production' })).to.deep.equal([HTTPS_IN_PRODUCTION]);
    expect(await refusal({ enabled: true, shareBase: 'http://wallet.example/tip/' }, { nodeEnv: 'production' })).to.deep.equal([NO_CHAIN, HTTPS_IN_PRODUCTION]);
    await boots({ enabled: true, shareBase: 'http://wallet.example/tip/' }, BTC);
    await boots({ enabled: true, shareBase: 'https://wallet.example/tip/' }, { ...BTC, nodeEnv: 'production' });
  });

  it('targeted tips with tips off, and non-boolean switches', async () => {
    expect(await refusal({ targeted: true })).to.deep.equal([TARGETED_NEEDS_TIPS]);
    expect(await refusal({ enabled: false, targeted: true }, BTC)).to.deep.equal([TARGETED_NEEDS_TIPS]);
    expect(await refusal({ enabled: 'true' as unknown as boolean, targeted: true, shareBase: SHARE_BASE }, BTC)).to.deep.equal([ENABLED_NOT_BOOLEAN, TARGETED_NEEDS_TIPS]);
    expect(await refusal({ enabled: 1 as unknown as boolean })).to.deep.equal([ENABLED_NOT_BOOLEAN]);
    expect(await refusal({ enabled: true, targeted: 'yes' as unknown as boolean, shareBase: SHARE_BASE }, LTC)).to.deep.equal([TARGETED_NOT_BOOLEAN]);
  });

  it('boots with any one of btc, ltc, xmr or wow (grin beside it or not), and with tips off and nothing configured', async () => {
    for (const chain of [BTC, LTC, XMR, WOW]) await boots({ enabled: true, targeted: true, shareBase: SHARE_BASE }, { ...chain, ...GRIN });
    await boots({ enabled: true, shareBase: SHARE_BASE }, WOW);
    await boots({}, {});
    await boots({ enabled: false, targeted: false }, {});
  });
});

eachDialect('tips capabilities', (dialect) => {
  const chains = useChainFakes();

  describe('tips on, targeted on, every chain', () => {
    const w = useTipsWorld(dialect, chains);
    it('says tips: true, targeted_tips: true and every tip asset', async () => {
      const res = await w.t.client.get('/api/v1/capabilities');
      expect(res.status).to.equal(200);
      expect(res.body.tips).to.equal(true);
      expect(res.body.targeted_tips).to.equal(true);
      expect(res.body.tip_assets).to.have.members(['btc', 'ltc', 'xmr', 'wow', 'grin']).and.have.length(5);
    });
  });

  describe('tips on, targeted off, btc and grin only', () => {
    const w = useTipsWorld(dialect, { settings: () => ({ btcEsploraUrl: chains.settings().btcEsploraUrl, grinNodeUrl: chains.settings().grinNodeUrl }) }, { enabled: true, shareBase: SHARE_BASE });
    it('says targeted_tips: false and lists exactly btc and grin', async () => {
      const res = await w.t.client.get('/api/v1/capabilities');
      expect(res.body).to.include({ tips: true, targeted_tips: false });
      expect(res.body.tip_assets).to.have.members(['btc', 'grin']).and.have.length(2);
    });
  });

  describe('tips on, ltc and xmr only', () => {
    const w = useTipsWorld(dialect, { settings: () => ({ ltcEsploraUrl: chains.settings().ltcEsploraUrl, xmrLwsUrl: chains.settings().xmrLwsUrl, xmrDaemonUrl: chains.settings().xmrDaemonUrl }) }, { enabled: true, targeted: true, shareBase: SHARE_BASE });
    it('lists exactly ltc and xmr', async () => {
      const res = await w.t.client.get('/api/v1/capabilities');
      expect(res.body).to.include({ tips: true, targeted_tips: true });
      expect(res.body.tip_assets).to.have.members(['ltc', 'xmr']).and.have.length(2);
    });
  });

  describe('tips off', () => {
    const w = useTipsWorld(dialect, chains, { enabled: false });
    it('says tips: false and has no targeted_tips or tip_assets key', async () => {
      const res = await w.t.client.get('/api/v1/capabilities');
      expect(res.body.tips).to.equal(false);
      expect(res.body).to.not.have.property('targeted_tips');
      expect(res.body).to.not.have.property('tip_assets');
    });
  });
});

eachDialect('tips off: every /tips/social route answers 400 tips_off and writes nothing', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains, { enabled: false });

  it('all ten routes, the public one without a token, even on tips stored while tips were on', async () => {
    const { knex } = w.t.backend.db;
    const { bool, time } = w.t.backend.db.dialect;
    const at = time(new Date('2026-01-01T00:00:00.000Z'));
    const stored = (status: string, fields: Record<string, unknown>) => ({
      id: randomUUID(),
      sender_user_id: w.sender.userId,
      is_public: bool(true),
      asset: 'btc',
      amount: '50000',
      status,
      tip_address: tipAddress('btc'),
      secret_hash: 'ab'.repeat(32),
      created_at: at,
      updated_at: at,
      ...fields,
    });
    const draft = stored('draft', {});
    const pending = stored('pending', { funding_txid: txidOf('btc') });
    const claiming = stored('claiming', { funding_txid: txidOf('btc') });
    const targeted = stored('pending', { is_public: bool(false), recipient_user_id: w.recipient.userId, secret_hash: null, ciphertext: 'Y2lwaGVydGV4dA==', funding_txid: txidOf('btc') });
    await knex('social_tips').insert([draft, pending, claiming, targeted]);
    const table = async () => (await knex('social_tips').orderBy('id')) as unknown[];
    const before = await table();
    expect(before).to.have.length(4);

    const sender = { token: w.sender.token };
    const other = { token: w.other.token };
    const calls: Array<[string, string, unknown, { token?: string }]> = [
      ['POST', '/api/v1/tips/social', tipBody('btc'), sender],
      ['POST', '/api/v1/tips/social', tipBody('grin', { recipient: w.recipient.username }), sender],
      ['GET', '/api/v1/tips/social/sent', undefined, sender],
      ['GET', '/api/v1/tips/social/inbox', undefined, { token: w.recipient.token }],
      ['GET', '/api/v1/tips/social/claimable', undefined, { token: w.recipient.token }],
      ['POST', `/api/v1/tips/social/${draft.id}/attach-funding`, { funding_txid: txidOf('btc') }, sender],
      ['POST', `/api/v1/tips/social/${draft.id}/cancel`, undefined, sender],
      ['POST', `/api/v1/tips/social/${pending.id}/claim`, undefined, other],
      ['POST', `/api/v1/tips/social/${targeted.id}/claim`, undefined, { token: w.recipient.token }],
      ['POST', `/api/v1/tips/social/${pending.id}/clawback`, undefined, sender],
      ['POST', `/api/v1/tips/social/${claiming.id}/confirm-sweep`, { sweep_txid: txidOf('btc') }, other],
      ['GET', `/api/v1/tips/social/${pending.id}/public`, undefined, {}],
    ];
    const seen = new Set<string>();
    for (const [method, path, json, { token }] of calls) {
      const res = await w.t.client.request(method, path, { ...(json === undefined ? {} : { json }), ...(token === undefined ? {} : { token }) });
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(400);
      expect(res.body.error, `${method} ${path}`).to.deep.equal({ code: 'tips_off', message: 'Tips are not enabled on this server.' });
      seen.add(`${method} ${path.replace(/[0-9a-f-]{36}/, '{tip_id}')}`);
    }
    expect([...seen]).to.have.members([
      'POST /api/v1/tips/social',
      'GET /api/v1/tips/social/sent',
      'GET /api/v1/tips/social/inbox',
      'GET /api/v1/tips/social/claimable',
      'POST /api/v1/tips/social/{tip_id}/attach-funding',
      'POST /api/v1/tips/social/{tip_id}/cancel',
      'POST /api/v1/tips/social/{tip_id}/claim',
      'POST /api/v1/tips/social/{tip_id}/clawback',
      'POST /api/v1/tips/social/{tip_id}/confirm-sweep',
      'GET /api/v1/tips/social/{tip_id}/public',
    ]);
    expect(await table()).to.deep.equal(before);
  });

  it('the public route of an unknown id is tips_off too, not 404', async () => {
    const res = await w.t.client.get(`/api/v1/tips/social/${randomUUID()}/public`);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('tips_off');
  });
});
