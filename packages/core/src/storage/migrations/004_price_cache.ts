import type { Migration } from '../migrator.js';

/** The latest price snapshot per feed, written by the leased refresh task and read by GET /prices. */
export const priceCacheSchema: Migration = {
  id: '004_price_cache',
  async up(trx) {
    await trx.schema.createTable('price_cache', (t) => {
      t.string('feed', 32).primary();
      t.text('prices').notNullable();
      t.timestamp('fetched_at', { useTz: true }).notNullable();
    });
  },
};
