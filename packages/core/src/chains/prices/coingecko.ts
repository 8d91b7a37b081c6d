import type { Asset } from '../assets.js';

/** CoinGecko coin ids of the wallet's assets. */
const COIN_IDS: Record<Asset, string> = { btc: 'bitcoin', ltc: 'litecoin', xmr: 'monero', wow: 'wownero', grin: 'grin' };

export type PriceTable = Partial<Record<Asset, Record<string, number>>>;

/**
 * CoinGecko `/simple/price` (protocols.md §11): one call for every asset and currency. Coins or
 * currencies the feed does not know are simply absent. Throws on any failure; the caller keeps
 * the previous snapshot.
 */
export async function fetchCoinGeckoPrices(options: { url: string; apiKey?: string | undefined; currencies: readonly string[]; timeoutMs: number }): Promise<PriceTable> {
  const query = new URLSearchParams({ ids: Object.values(COIN_IDS).join(','), vs_currencies: options.currencies.join(','), include_last_updated_at: 'true' });
  const response = await fetch(`${options.url.replace(/\/+$/, '')}/simple/price?${query}`, {
    headers: { accept: 'application/json', ...(options.apiKey ? { 'x-cg-demo-api-key': options.apiKey } : {}) },
    signal: AbortSignal.timeout(options.timeoutMs),
    redirect: 'error',
  });
  if (response.status !== 200) throw new Error(`price feed answered ${response.status}`);
  const body = (await response.json()) as Record<string, Record<string, unknown>>;
  if (typeof body !== 'object' || body === null) throw new Error('price feed answered nonsense');
  const table: PriceTable = {};
  for (const [asset, id] of Object.entries(COIN_IDS) as Array<[Asset, string]>) {
    const entry = body[id];
    if (typeof entry !== 'object' || entry === null) continue;
    const prices: Record<string, number> = {};
    for (const currency of options.currencies) {
      const value = entry[currency];
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) prices[currency] = value;
    }
    if (Object.keys(prices).length > 0) table[asset] = prices;
  }
  return table;
}
