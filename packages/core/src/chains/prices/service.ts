import type { Clock } from '../../clock/index.js';
import { readTime, type Database } from '../../storage/index.js';
import type { PriceTable } from './coingecko.js';

export interface PriceSnapshot {
  source: string;
  prices: PriceTable;
  updated_at: string | null;
  /** True when the last successful refresh is older than three refresh intervals (or never happened). */
  stale: boolean;
}

/**
 * The price cache: a leased scheduler task fetches the feed and stores one snapshot row; every
 * process answers GET /prices from that row, so a request never waits on the feed and a feed
 * outage serves the last good prices (marked stale).
 */
export class PriceCache {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly feed: string,
    private readonly refreshMs: number,
    private readonly fetchPrices: () => Promise<PriceTable>,
  ) {}

  async refresh(): Promise<void> {
    const prices = await this.fetchPrices();
    const row = { feed: this.feed, prices: JSON.stringify(prices), fetched_at: this.db.dialect.time(this.clock.now()) };
    await this.db.knex('price_cache').insert(row).onConflict('feed').merge(['prices', 'fetched_at']);
  }

  async latest(): Promise<PriceSnapshot> {
    const row = (await this.db.knex('price_cache').where({ feed: this.feed }).first()) as { prices: string; fetched_at: unknown } | undefined;
    if (row === undefined) return { source: this.feed, prices: {}, updated_at: null, stale: true };
    const fetchedAt = readTime(row.fetched_at);
    return {
      source: this.feed,
      prices: JSON.parse(row.prices) as PriceTable,
      updated_at: fetchedAt.toISOString(),
      stale: this.clock.now().getTime() - fetchedAt.getTime() > 3 * this.refreshMs,
    };
  }
}
