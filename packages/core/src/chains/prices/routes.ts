import * as v from 'valibot';
import { defineRoute, type AnyRoute } from '../../http/index.js';
import { chainErrors } from '../errors.js';
import type { PriceCache } from './service.js';

const pricesResponse = v.pipe(v.object({
  source: v.string(),
  prices: v.record(v.string(), v.record(v.string(), v.number())),
  updated_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
  stale: v.boolean(),
}), v.title('PricesResponse'));

export function priceRoutes(cache: PriceCache | null): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/prices',
      operationId: 'getPrices',
      errors: ['prices_off'],
      summary: 'Latest cached fiat prices per asset',
      description: 'Served from the cache the refresh task fills; never waits on the feed. `stale` is true when the last refresh is older than three intervals.',
      tags: ['chains'],
      auth: 'none',
      response: pricesResponse,
      statuses: { 404: 'The price feed is off' },
      handler: () => {
        if (cache === null) throw chainErrors.create.prices_off();
        return cache.latest();
      },
    }),
  ];
}
