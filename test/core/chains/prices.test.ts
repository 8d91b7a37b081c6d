import { expect } from 'chai';
import { createTestBackend, eachDialect, useTestBackend, type TestBackend } from '../../harness/index.js';
import { CoinGeckoFake } from '../../fakes/coingecko.js';

const TASK = 'core-chains.price-refresh';

eachDialect('chains: prices', (dialect) => {
  const feed = new CoinGeckoFake();
  before(() => feed.start());
  after(() => feed.close());
  const t = {} as TestBackend;
  beforeEach(async () => {
    feed.mode = 'normal';
    feed.status = 200;
    feed.received.length = 0;
    Object.assign(t, await createTestBackend(dialect, { settings: { priceFeed: 'coingecko', priceFeedUrl: `${feed.url}/api/v3`, priceFeedApiKey: 'demo-key-123', priceRefreshSec: 60, upstreamTimeoutMs: 400 } }));
  });
  afterEach(() => t.close());

  it('serves the snapshot the refresh task stored; a request never calls the feed', async () => {
    const empty = await t.client.get('/api/v1/prices');
    expect(empty.status).to.equal(200);
    expect(empty.body).to.deep.equal({ source: 'coingecko', prices: {}, updated_at: null, stale: true });
    expect(feed.received).to.have.length(0);
    expect(await t.backend.scheduler.runNow(TASK)).to.equal(true);
    expect(feed.received).to.have.length(1);
    expect(feed.received[0]!.headers['x-cg-demo-api-key']).to.equal('demo-key-123');
    const res = await t.client.get('/api/v1/prices');
    expect(res.body.prices).to.deep.equal({ btc: { usd: 67187.33, eur: 61850.1 }, ltc: { usd: 84.2, eur: 77.5 }, xmr: { usd: 165.4, eur: 152.3 }, grin: { usd: 0.042 } });
    expect(res.body).to.include({ stale: false, updated_at: t.clock.now().toISOString() });
    expect(feed.received).to.have.length(1);
  });

  it('a feed outage keeps the last good prices and marks them stale after three intervals', async () => {
    await t.backend.scheduler.runNow(TASK);
    for (const mode of ['down', 'malformed', 'slow'] as const) {
      feed.mode = mode;
      feed.slowMs = 2_000;
      t.clock.advance(60_000);
      await t.backend.scheduler.runNow(TASK);
    }
    feed.mode = 'normal';
    feed.status = 429;
    t.clock.advance(60_000);
    await t.backend.scheduler.runNow(TASK);
    const res = await t.client.get('/api/v1/prices');
    expect(res.body.prices.btc).to.deep.equal({ usd: 67187.33, eur: 61850.1 });
    expect(res.body.stale).to.equal(true);
    expect(t.logger.lines.some((line) => JSON.stringify(line).includes('demo-key-123'))).to.equal(false);
  });
});

eachDialect('chains: prices off', (dialect) => {
  const t = useTestBackend(dialect);
  it('GET /prices is 404 prices_off', async () => {
    const res = await t.client.get('/api/v1/prices');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('prices_off');
  });
});
