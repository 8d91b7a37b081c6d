export { fetchCoinGeckoPrices, type PriceTable } from './coingecko.js';
export { PriceCache, type PriceSnapshot } from './service.js';
export { priceRoutes } from './routes.js';
