import { HttpFake } from './http-fake.js';

/**
 * CoinGecko's `/simple/price` (protocols.md §11): coin id → lower-case currency → float, plus
 * `last_updated_at` when asked; unknown ids are absent. `status` can be set to 429 (rate limit).
 */
export class CoinGeckoFake extends HttpFake {
  table: Record<string, Record<string, number>> = {
    bitcoin: { usd: 67187.33, eur: 61850.1 },
    litecoin: { usd: 84.2, eur: 77.5 },
    monero: { usd: 165.4, eur: 152.3 },
    grin: { usd: 0.042 },
  };
  status = 200;

  constructor() {
    super();
    this.route('GET /api/v3/simple/price', (req) => {
      if (this.status !== 200) return { status: this.status, json: { status: { error_code: this.status, error_message: "You've exceeded the Rate Limit." } } };
      const query = new URL(req.path, 'http://fake').searchParams;
      const currencies = (query.get('vs_currencies') ?? '').split(',');
      const body: Record<string, Record<string, number>> = {};
      for (const id of (query.get('ids') ?? '').split(',')) {
        const row = this.table[id];
        if (!row) continue;
        body[id] = Object.fromEntries(currencies.filter((c) => c in row).map((c) => [c, row[c]!]));
        if (query.get('include_last_updated_at') === 'true') body[id]!.last_updated_at = 1_711_356_300;
      }
      return { json: body };
    });
  }
}
