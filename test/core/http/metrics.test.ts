import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { payments, Transaction } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { WalletPlugin } from '@wallet/backend-core';
import { parseListenAddress } from '../../../packages/core/src/metrics/index.js';
import { createTestBackend, eachDialect, freshDatabaseUrl, seedSession, TEST_PUBLIC_API_URL, TEST_SECRETS, useFakes, useTestBackend } from '../../harness/index.js';
import { EsploraFake } from '../../fakes/esplora.js';
import { parseExposition, type Sample } from '../metrics/exposition.js';
import { createWalletBackend } from '@wallet/backend-core';

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

async function scrape(url: string): Promise<{ status: number; contentType: string | null; text: string; samples: Sample[] }> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text, samples: response.status === 200 ? parseExposition(text) : [] };
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
};

describe('metrics: METRICS_LISTEN', () => {
  it('is a port (loopback), host:port or [ipv6]:port; anything else is refused', () => {
    expect(parseListenAddress('9464')).to.deep.equal({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('0.0.0.0:9464')).to.deep.equal({ host: '0.0.0.0', port: 9464 });
    expect(parseListenAddress('[::1]:9100')).to.deep.equal({ host: '::1', port: 9100 });
    expect(parseListenAddress('metrics.internal:65535')).to.deep.equal({ host: 'metrics.internal', port: 65535 });
    for (const bad of ['', 'abc', '65536', '127.0.0.1:', ':9464', 'http://127.0.0.1:9464', '127.0.0.1:9464/metrics', '1.2.3.4 9464', '::1:9464']) {
      expect(parseListenAddress(bad), bad).to.equal(null);
    }
  });

  it('a bad value refuses to boot, naming the variable', async () => {
    const attempt = createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: 'sqlite::memory:', ...TEST_SECRETS, metricsListen: 'everywhere' });
    await attempt.then(
      () => expect.fail('booted'),
      (err: Error) => expect(err.message).to.match(/metricsListen \(METRICS_LISTEN\): must be a port or host:port/),
    );
  });
});

eachDialect('metrics', (dialect) => {
  describe('off by default', () => {
    const t = useTestBackend(dialect);
    it('collects nothing and opens no listener', async () => {
      expect(t.backend.metrics).to.equal(null);
      expect(await t.backend.start()).to.deep.equal({});
      // The API has no /metrics route of its own, on or off.
      expect((await t.client.get('/metrics')).status).to.equal(404);
      expect((await t.client.get('/api/v1/metrics')).status).to.equal(404);
    });
  });

  describe('on a listener of its own', () => {
    let metricsUrl = '';
    const t = useTestBackend(dialect, { settings: { metricsListen: '127.0.0.1:0' } });
    beforeEach(async () => {
      metricsUrl = (await t.backend.start()).metricsUrl!;
    });

    it('serves GET /metrics in the text format on 127.0.0.1 and nothing else there', async () => {
      expect(metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const page = await scrape(metricsUrl);
      expect(page.status).to.equal(200);
      expect(page.contentType).to.equal('text/plain; version=0.0.4; charset=utf-8');
      expect(page.text).to.include('# TYPE wallet_http_requests_total counter');
      expect(page.text).to.include('# TYPE process_resident_memory_bytes gauge');
      const base = metricsUrl.replace(/\/metrics$/, '');
      expect((await fetch(`${base}/`)).status).to.equal(404);
      expect((await fetch(`${base}/api/v1/health`)).status).to.equal(404);
      expect((await fetch(metricsUrl, { method: 'POST' })).status).to.equal(405);
      const head = await fetch(metricsUrl, { method: 'HEAD' });
      expect([head.status, await head.text()]).to.deep.equal([200, '']);
      // The API port still has no /metrics.
      expect((await t.client.get('/metrics')).status).to.equal(404);
      // start() twice keeps the one listener.
      expect((await t.backend.start()).metricsUrl).to.equal(metricsUrl);
    });

    it('counts requests by method, route template and status, with their latency', async () => {
      for (let i = 0; i < 3; i++) expect((await t.client.get('/api/v1/health')).status).to.equal(200);
      const userId = randomUUID();
      expect((await t.client.get(`/api/v1/users/${userId}/keys`)).status).to.equal(200);
      expect((await t.client.get('/api/v1/users/not-a-uuid/keys')).status).to.equal(400);
      const secretPath = `/api/v1/no-such-route/${randomUUID()}`;
      expect((await t.client.get(secretPath)).status).to.equal(404);
      expect((await t.client.request('PUT', '/api/v1/health')).status).to.equal(405);
      const { samples, text } = await scrape(metricsUrl);
      expect(valueOf(samples, 'wallet_http_requests_total', { method: 'GET', route: '/api/v1/health', status: '200' })).to.equal(3);
      expect(valueOf(samples, 'wallet_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/health', status: '200' })).to.equal(3);
      expect(valueOf(samples, 'wallet_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/health', status: '200', le: '+Inf' })).to.equal(3);
      expect(valueOf(samples, 'wallet_http_request_duration_seconds_sum', { method: 'GET', route: '/api/v1/health', status: '200' })).to.be.greaterThan(0);
      expect(valueOf(samples, 'wallet_http_requests_total', { method: 'GET', route: '/api/v1/users/{user_id}/keys', status: '200' })).to.equal(1);
      expect(valueOf(samples, 'wallet_http_requests_total', { method: 'GET', route: '/api/v1/users/{user_id}/keys', status: '400' })).to.equal(1);
      expect(valueOf(samples, 'wallet_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
      expect(valueOf(samples, 'wallet_http_requests_total', { method: 'PUT', route: 'unmatched', status: '405' })).to.equal(1);
      // Only templates: no id and no raw path reaches a label.
      expect(text).not.to.include(userId);
      expect(text).not.to.include('not-a-uuid');
      expect(text).not.to.include('no-such-route');
    });

    it('never puts a user id, a token, a key or a client address in a label', async () => {
      const { userId, auth } = await seedSession(t.backend);
      expect((await t.client.get('/api/v1/auth/me', { token: auth.access_token })).status).to.equal(200);
      expect((await t.client.get(`/api/v1/users/${userId}/keys`)).status).to.equal(200);
      expect((await t.client.post('/api/v1/auth/refresh', { refresh_token: auth.refresh_token })).status).to.equal(200);
      const { text, samples } = await scrape(metricsUrl);
      expect(valueOf(samples, 'wallet_http_requests_total', { route: '/api/v1/auth/me', status: '200' })).to.equal(1);
      for (const secret of [userId, auth.access_token, auth.refresh_token, '127.0.0.1', '::1', 'ffff']) expect(text, secret).not.to.include(secret);
      const labelNames = new Set(samples.flatMap((sample) => Object.keys(sample.labels)));
      for (const name of labelNames) expect(['method', 'route', 'status', 'le', 'chain', 'upstream', 'operation', 'outcome', 'task', 'state', 'quantile', 'version', 'api_version', 'node_version', 'gauge', 'major', 'minor', 'patch', 'space', 'kind', 'type'], name).to.include(name);
    });

    it('reports the pool bound: DATABASE_POOL_MAX on Postgres, the one connection of SQLite', async () => {
      const { samples } = await scrape(metricsUrl);
      expect(valueOf(samples, 'wallet_db_pool_connections', { state: 'max' })).to.equal(dialect === 'sqlite' ? 1 : 10);
      expect(valueOf(samples, 'wallet_db_pool_connections', { state: 'used' })).to.equal(0);
      expect(valueOf(samples, 'wallet_db_pool_pending_acquires')).to.equal(0);
    });

    it('counts scheduler runs by task and outcome', async () => {
      expect(await t.backend.scheduler.runNow('core-challenges.expiry-sweep')).to.equal(true);
      expect(await t.backend.scheduler.runNow('core-challenges.expiry-sweep')).to.equal(true);
      const { samples } = await scrape(metricsUrl);
      expect(valueOf(samples, 'wallet_scheduler_task_runs_total', { task: 'core-challenges.expiry-sweep', outcome: 'ok' })).to.equal(2);
      expect(valueOf(samples, 'wallet_scheduler_task_runs_total', { task: 'core-challenges.expiry-sweep', outcome: 'failed' })).to.equal(0);
      expect(valueOf(samples, 'wallet_scheduler_task_duration_seconds_count', { task: 'core-challenges.expiry-sweep' })).to.equal(2);
    });
  });

  describe('the pool in use', () => {
    const t = useTestBackend(dialect, { settings: { metricsListen: '127.0.0.1:0', databasePoolMax: 1 } });

    it('counts the connection a transaction holds and the query that waits for it', async () => {
      const { metricsUrl } = await t.backend.start();
      const release = deferred();
      const holding = deferred();
      const held = t.backend.db.transaction(async (trx) => {
        await trx.raw('select 1');
        holding.resolve();
        await release.promise;
      });
      await holding.promise;
      // knex runs a query only once it is awaited: then() starts it, and it queues for the connection.
      const waiting = t.backend.db.knex.raw('select 1').then(() => undefined);
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const during = (await scrape(metricsUrl!)).samples;
        expect(valueOf(during, 'wallet_db_pool_connections', { state: 'max' })).to.equal(1);
        expect(valueOf(during, 'wallet_db_pool_connections', { state: 'used' })).to.equal(1);
        expect(valueOf(during, 'wallet_db_pool_connections', { state: 'free' })).to.equal(0);
        expect(valueOf(during, 'wallet_db_pool_pending_acquires')).to.equal(1);
      } finally {
        release.resolve();
      }
      await held;
      await waiting;
      const after = (await scrape(metricsUrl!)).samples;
      expect(valueOf(after, 'wallet_db_pool_connections', { state: 'used' })).to.equal(0);
      expect(valueOf(after, 'wallet_db_pool_pending_acquires')).to.equal(0);
    });
  });

  describe('scheduler failures and held leases', () => {
    /** A plugin whose task fails on demand or waits for a gate, registered in two backends on one database. */
    function taskPlugin(behaviour: { fail: boolean; gate?: Promise<void>; entered?: () => void }): WalletPlugin {
      return {
        name: 'metrics-probe',
        setup(ctx) {
          ctx.scheduler.every('probe', 60_000, async () => {
            behaviour.entered?.();
            if (behaviour.gate) await behaviour.gate;
            if (behaviour.fail) throw new Error('probe failed on purpose');
          });
        },
      };
    }

    it('a throwing task counts as failed; a lease held by another process as lease_held', async () => {
      const databaseUrl = await freshDatabaseUrl(dialect);
      const gate = deferred();
      const entered = deferred();
      const first = await createTestBackend(dialect, { databaseUrl, listen: false, plugins: [taskPlugin({ fail: false, gate: gate.promise, entered: entered.resolve })] });
      const behaviour = { fail: true };
      const second = await createTestBackend(dialect, { databaseUrl, listen: false, plugins: [taskPlugin(behaviour)], settings: { metricsListen: '127.0.0.1:0' } });
      try {
        const { metricsUrl } = await second.backend.start();
        expect(await second.backend.scheduler.runNow('metrics-probe.probe')).to.equal(true);
        const running = first.backend.scheduler.runNow('metrics-probe.probe');
        await entered.promise;
        expect(await second.backend.scheduler.runNow('metrics-probe.probe')).to.equal(false);
        gate.resolve();
        expect(await running).to.equal(true);
        const { samples } = await scrape(metricsUrl!);
        expect(valueOf(samples, 'wallet_scheduler_task_runs_total', { task: 'metrics-probe.probe', outcome: 'failed' })).to.equal(1);
        expect(valueOf(samples, 'wallet_scheduler_task_runs_total', { task: 'metrics-probe.probe', outcome: 'lease_held' })).to.equal(1);
        expect(valueOf(samples, 'wallet_scheduler_task_runs_total', { task: 'metrics-probe.probe', outcome: 'ok' })).to.equal(0);
        // Only runs that took the lease have a duration.
        expect(valueOf(samples, 'wallet_scheduler_task_duration_seconds_count', { task: 'metrics-probe.probe' })).to.equal(1);
      } finally {
        gate.resolve();
        await second.close();
        await first.close();
      }
    });
  });

  describe('upstream calls', () => {
    const btc = new EsploraFake();
    useFakes(btc);
    let metricsUrl = '';
    const t = useTestBackend(dialect, () => ({ settings: { btcEsploraUrl: btc.url, upstreamTimeoutMs: 300, metricsListen: '127.0.0.1:0' } }));
    beforeEach(async () => {
      btc.mode = 'normal';
      btc.rejectBroadcast = null;
      metricsUrl = (await t.backend.start()).metricsUrl!;
    });

    it('are timed and counted per chain, upstream, operation and outcome', async () => {
      const { auth } = await seedSession(t.backend);
      const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/utxo/${path}`, body, { token: auth.access_token });
      const address = payments.p2wpkh({ pubkey: Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)) }).address!;
      expect((await post('tip', { asset: 'btc' })).status).to.equal(200);
      expect((await post('balance', { asset: 'btc', address })).status).to.equal(200);
      const tx = new Transaction();
      tx.addInput(randomBytes(32), 0);
      tx.addOutput(payments.p2wpkh({ pubkey: Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)) }).output!, 50_000);
      btc.rejectBroadcast = 'bad-txns-inputs-missingorspent';
      expect((await post('broadcast', { asset: 'btc', tx_hex: tx.toHex() })).status).to.equal(400);
      btc.mode = 'down';
      expect((await post('tip', { asset: 'btc' })).status).to.equal(503);
      btc.mode = 'slow';
      btc.slowMs = 1_000;
      expect((await post('tip', { asset: 'btc' })).status).to.equal(503);
      // An address of another network is refused before any upstream call: nothing counted.
      expect((await post('balance', { asset: 'btc', address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' })).status).to.equal(400);

      const { samples, text } = await scrape(metricsUrl);
      const call = (operation: string, outcome: string) =>
        valueOf(samples, 'wallet_upstream_call_duration_seconds_count', { chain: 'btc', upstream: 'esplora', operation, outcome });
      expect(call('tipHeight', 'ok')).to.equal(1);
      expect(call('balance', 'ok')).to.equal(1);
      expect(call('broadcast', 'refused')).to.equal(1);
      expect(call('tipHeight', 'error')).to.equal(2);
      expect(valueOf(samples, 'wallet_upstream_failures_total', { chain: 'btc', upstream: 'esplora', operation: 'tipHeight' })).to.equal(2);
      expect(valueOf(samples, 'wallet_upstream_failures_total', { chain: 'btc', upstream: 'esplora', operation: 'broadcast' })).to.equal(0);
      // The refused connection failed at once; the timed-out call took at least the 300 ms timeout.
      expect(valueOf(samples, 'wallet_upstream_call_duration_seconds_bucket', { chain: 'btc', upstream: 'esplora', operation: 'tipHeight', outcome: 'error', le: '0.25' })).to.equal(1);
      expect(text).not.to.include(address);
      expect(text).not.to.include(btc.url);
    });
  });
});
