import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { OPENAPI_VERSION, type PluginContext, type WalletPlugin } from '@wallet/backend-core';
import { erasurePlugin } from '@wallet/erasure';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { createTestBackend, eachDialect, seedSession, seedUser, useFakes, type DialectName, type TestBackend } from '../../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../../fakes/greenfield.js';
import { EsploraFake } from '../../fakes/esplora.js';
import { shareSecret, tipAddress } from '../../tips/harness.js';
import { familiesOf, promtool, requirePromtool, samplesOf, scrape, selectableNames, valueOf } from './exposition.js';

const API = '/api/v1';
const CACHE_MS = 10_000;
const CORE_VERSION = (JSON.parse(readFileSync(new URL('../../../packages/core/package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Holds the plugin context, to append to the audit chain as a plugin would. */
function contextProbe(): { plugin: WalletPlugin; ctx: () => PluginContext } {
  let captured: PluginContext | undefined;
  return { plugin: { name: 'metrics-probe', setup: (ctx) => void (captured = ctx) }, ctx: () => captured! };
}

/** A backend with every feature package on, metrics on, a chain, and a payment processor (fakes). */
function everyPluginOn(dialect: DialectName, fakes: { btcpay: GreenfieldFake; ltc: EsploraFake }, extra: WalletPlugin[] = []): Promise<TestBackend> {
  return createTestBackend(dialect, {
    plugins: [
      grinRelayPlugin({}),
      tipsPlugin({ enabled: true, shareBase: 'https://wallet.example.test/tip/' }),
      premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
      erasurePlugin({ enabled: true, gracePeriodHours: 1 }),
      ...extra,
    ],
    settings: { ltcEsploraUrl: fakes.ltc.url, btcpayUrl: fakes.btcpay.url, btcpayStoreId: FAKE_STORE_ID, btcpayApiKey: FAKE_API_KEY, upstreamTimeoutMs: 2_000, metricsListen: '127.0.0.1:0' },
  });
}

eachDialect('metrics: the whole exposition, every plugin on', (dialect) => {
  const [btcpay, ltc] = useFakes(new GreenfieldFake(), new EsploraFake());
  const probe = contextProbe();
  let t: TestBackend;
  let metricsUrl = '';
  beforeEach(async () => {
    t = await everyPluginOn(dialect, { btcpay, ltc }, [probe.plugin]);
    metricsUrl = (await t.backend.start()).metricsUrl!;
  });
  afterEach(() => t.close());

  it('passes `promtool check metrics` after traffic of every kind', async function () {
    requirePromtool(this);
    const { auth } = await seedSession(t.backend);
    expect((await t.client.get(`${API}/health`)).status).to.equal(200);
    expect((await t.client.get(`${API}/no-such-route`)).status).to.equal(404);
    expect((await t.client.post(`${API}/wallet/utxo/tip`, { asset: 'ltc' }, { token: auth.access_token })).status).to.equal(200);
    expect(await t.backend.scheduler.runNow('core-metrics.audit-verify')).to.equal(true);
    expect(await t.backend.scheduler.runNow('erasure.sweep')).to.equal(true);
    const { status, text, samples } = await scrape(metricsUrl);
    expect(status).to.equal(200);
    // Every kind of family carries samples, so the lint sees histograms, counters and every state gauge.
    for (const name of ['wallet_http_request_duration_seconds_bucket', 'wallet_upstream_call_duration_seconds_bucket', 'wallet_scheduler_task_runs_total', 'wallet_tips', 'wallet_erasure_requests', 'wallet_audit_chain_verified', 'nodejs_active_handles']) {
      expect(samplesOf(samples, name), name).not.to.be.empty;
    }
    const lint = promtool(['check', 'metrics'], text);
    expect(lint.output, 'promtool check metrics found problems').to.equal('');
    expect(lint.status).to.equal(0);
    // prom-client's `_total` gauges are gone; the labelled gauges they summed stay.
    for (const dropped of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) expect(text).not.to.match(new RegExp(`^${dropped}\\b`, 'm'));
  });

  it('reports wallet_build_info 1 with the backend, API and Node.js versions', async () => {
    const { samples } = await scrape(metricsUrl);
    expect(samplesOf(samples, 'wallet_build_info')).to.deep.equal([{ name: 'wallet_build_info', labels: { version: CORE_VERSION, api_version: OPENAPI_VERSION, node_version: process.versions.node }, value: 1 }]);
  });

  it('counts users, tips by status, active premium, and live and stuck erasures, each read again after the cache', async () => {
    const { time } = t.backend.db.dialect;
    const now = t.clock.now();
    const hour = 3_600_000;
    const users = [
      await seedUser(t.backend, { premiumUntil: new Date(now.getTime() + 30 * 24 * hour) }),
      await seedUser(t.backend, { premiumUntil: new Date(now.getTime() - hour) }),
      await seedUser(t.backend),
      await seedUser(t.backend),
      await seedUser(t.backend),
    ];
    const { auth } = await seedSession(t.backend, 'extension', { premiumUntil: new Date(now.getTime() + hour) });
    const tipIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const draft = await t.client.post(`${API}/tips/social`, { asset: 'ltc', amount: '50000', tip_address: tipAddress('ltc'), secret_hash: shareSecret().hash, draft: true }, { token: auth.access_token });
      expect(draft.status, draft.text).to.equal(200);
      tipIds.push((draft.body as { tip_id: string }).tip_id);
    }
    await t.backend.db.knex('social_tips').where({ id: tipIds[0] }).update({ status: 'cancelled' });
    const erasure = (userId: string, status: string, dueAt: Date | null) => ({
      id: randomUUID(),
      user_id: userId,
      status,
      created_at: time(now),
      confirmed_at: status === 'confirmed' ? time(now) : null,
      due_at: dueAt === null ? null : time(dueAt),
      attempts: 0,
    });
    await t.backend.db.knex('erasure_requests').insert([
      erasure(users[0]!.id, 'requested', null),
      erasure(users[1]!.id, 'confirmed', new Date(now.getTime() + hour)),
      erasure(users[2]!.id, 'confirmed', new Date(now.getTime() - hour)),
      erasure(users[3]!.id, 'cancelled', null),
      // Due this very moment: overdue, as /admin/erasure/stuck counts it.
      erasure(users[4]!.id, 'confirmed', now),
    ]);

    let { samples } = await scrape(metricsUrl);
    expect(valueOf(samples, 'wallet_users')).to.equal(6);
    expect(valueOf(samples, 'wallet_premium_active_users')).to.equal(2);
    const tips: Record<string, number> = Object.fromEntries(samplesOf(samples, 'wallet_tips').map((sample) => [sample.labels.status, sample.value]));
    expect(tips).to.include({ draft: 2, cancelled: 1, pending: 0, claimed: 0 });
    expect(Object.values(tips).reduce((sum, value) => sum + value, 0)).to.equal(3);
    expect(valueOf(samples, 'wallet_erasure_requests', { status: 'requested' })).to.equal(1);
    expect(valueOf(samples, 'wallet_erasure_requests', { status: 'confirmed' })).to.equal(3);
    expect(samplesOf(samples, 'wallet_erasure_requests')).to.have.length(2);
    expect(valueOf(samples, 'wallet_erasure_requests_stuck')).to.equal(2);

    // Within the cache a scrape reuses the reads; after it, they are made again.
    await seedUser(t.backend);
    await t.backend.db.knex('social_tips').where({ id: tipIds[1] }).update({ status: 'cancelled' });
    expect(valueOf((await scrape(metricsUrl)).samples, 'wallet_users')).to.equal(6);
    t.clock.advance(CACHE_MS);
    ({ samples } = await scrape(metricsUrl));
    expect(valueOf(samples, 'wallet_users')).to.equal(7);
    expect(valueOf(samples, 'wallet_tips', { status: 'cancelled' })).to.equal(2);
    // An hour later the confirmed request in its grace period is due too, and the shorter premium has ended.
    t.clock.advance(hour);
    ({ samples } = await scrape(metricsUrl));
    expect(valueOf(samples, 'wallet_erasure_requests_stuck')).to.equal(3);
    expect(valueOf(samples, 'wallet_premium_active_users')).to.equal(1);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_users' })).to.equal(undefined);
  });

  it('reports when this process last verified the audit chain and whether it verified', async () => {
    let { samples } = await scrape(metricsUrl);
    expect(valueOf(samples, 'wallet_audit_chain_last_verified_timestamp_seconds')).to.equal(0);
    expect(valueOf(samples, 'wallet_audit_chain_verified')).to.equal(undefined);

    await t.backend.db.knex.transaction((trx) => probe.ctx().audit.append(trx, { action: 'metrics.probe', actorKind: 'system' }));
    expect(await t.backend.scheduler.runNow('core-metrics.audit-verify')).to.equal(true);
    const verifiedAt = t.clock.now().getTime() / 1000;
    ({ samples } = await scrape(metricsUrl));
    expect(valueOf(samples, 'wallet_audit_chain_last_verified_timestamp_seconds')).to.equal(verifiedAt);
    expect(valueOf(samples, 'wallet_audit_chain_verified')).to.equal(1);

    // An edited entry: the next verification (here a plugin's, as the erasure sweep makes) reports the break at once.
    await t.backend.db.knex('admin_audit').where({ seq: 1 }).update({ action: 'metrics.edited' });
    t.clock.advance(60_000);
    expect((await probe.ctx().audit.verify()).ok).to.equal(false);
    ({ samples } = await scrape(metricsUrl));
    expect(valueOf(samples, 'wallet_audit_chain_last_verified_timestamp_seconds')).to.equal(verifiedAt + 60);
    expect(valueOf(samples, 'wallet_audit_chain_verified')).to.equal(0);
    expect(await t.backend.scheduler.runNow('core-metrics.audit-verify')).to.equal(true);
    expect(t.logger.lines.some((line) => line.msg === 'the operator audit chain does not verify' && line.broken_at === 1)).to.equal(true);
  });

  it('the dashboard and the alert rules select only series this backend exposes', async () => {
    const { text } = await scrape(metricsUrl);
    const exposed = selectableNames(text);
    // `up` and `ALERTS` are Prometheus' own.
    exposed.add('up');
    const { dashboardExprs, ruleExprs } = await import('./deploy-files.js');
    const { seriesNamesIn: namesIn } = await import('./exposition.js');
    const missing = [...dashboardExprs(), ...ruleExprs()].flatMap((expr) => [...namesIn(expr)].filter((name) => !exposed.has(name)).map((name) => `${name} (in ${expr})`));
    expect(missing).to.deep.equal([]);
  });

  it("operators.md's Metrics table lists exactly the wallet_ families a scrape declares", async () => {
    const { text } = await scrape(metricsUrl);
    const exposed = [...familiesOf(text).keys()].filter((name) => name.startsWith('wallet_')).sort();
    const docs = readFileSync(new URL('../../../docs/operators.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('\n## Metrics\n'), docs.indexOf('\n## ', docs.indexOf('\n## Metrics\n') + 5));
    const documented = [...section.matchAll(/^\| `(wallet_[a-z0-9_]+)` \|/gm)].map((match) => match[1]!).sort();
    expect(documented).to.deep.equal(exposed);
  });
});

eachDialect('metrics: a state gauge that fails', (dialect) => {
  /** A plugin gauge that throws while `failing.now` is set; the others read normally. */
  function failingPlugin(failing: { now: boolean }): WalletPlugin {
    return {
      name: 'metrics-failing',
      setup(ctx) {
        ctx.metrics.gauge({
          name: 'wallet_probe_things',
          help: 'A probe.',
          
          read: () => (failing.now ? Promise.reject(new Error('relation "probe" does not exist')) : Promise.resolve([{ value: 7 }])),
        });
      },
    };
  }

  it('is left out of the scrape, which still answers with every other series, and the failure is counted and logged', async () => {
    const failing = { now: true };
    const t = await createTestBackend(dialect, { plugins: [failingPlugin(failing)], settings: { metricsListen: '127.0.0.1:0' } });
    try {
      const { metricsUrl } = await t.backend.start();
      let page = await scrape(metricsUrl!);
      expect(page.status).to.equal(200);
      expect(samplesOf(page.samples, 'wallet_probe_things')).to.deep.equal([]);
      expect(valueOf(page.samples, 'wallet_state_read_failures_total', { gauge: 'wallet_probe_things' })).to.equal(1);
      expect(valueOf(page.samples, 'wallet_users')).to.equal(0);
      expect(valueOf(page.samples, 'wallet_build_info')).to.equal(1);
      expect(t.logger.lines.filter((line) => line.msg === 'a metrics gauge could not be read; it is left out of this scrape' && line.gauge === 'wallet_probe_things')).to.have.length(1);
      failing.now = false;
      page = await scrape(metricsUrl!);
      expect(valueOf(page.samples, 'wallet_probe_things')).to.equal(7);
      expect(valueOf(page.samples, 'wallet_state_read_failures_total', { gauge: 'wallet_probe_things' })).to.equal(1);
    } finally {
      await t.close();
    }
  });

  it('a bad name, a core family or a name registered twice refuses the boot, with metrics off too', async () => {
    let plugins = 0;
    const gauge = (name: string): WalletPlugin => ({ name: `gauge-probe-${(plugins += 1)}`, setup: (ctx) => ctx.metrics.gauge({ name, help: 'x', read: () => Promise.resolve([]) }) });
    for (const [plugins, problem] of [
      [[gauge('tips_by_status')], /the name must be wallet_ and lower snake case/],
      [[gauge('wallet_Tips')], /the name must be wallet_ and lower snake case/],
      [[gauge('wallet_things_total')], /must not end in _total/],
      [[gauge('wallet_http_requests_now')], /a family of core's own series/],
      [[gauge('wallet_users')], /"wallet_users" is registered twice/],
      [[gauge('wallet_things'), gauge('wallet_things')], /"wallet_things" is registered twice/],
    ] as Array<[WalletPlugin[], RegExp]>) {
      const attempt = createTestBackend(dialect, { plugins });
      await attempt.then(
        async (t) => {
          await t.close();
          expect.fail(`booted with ${problem}`);
        },
        (err: Error) => expect(err.message).to.match(problem),
      );
    }
  });
});
