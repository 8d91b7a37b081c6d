import { chainErrors } from './errors.js';
import type { CoreFeature } from '../extensions/index.js';
import { instrumentUpstream } from '../metrics/index.js';
import { GrinChainService, GrinNodeClient, GrinReader, GrinScanPool, grinRoutes } from './grin/index.js';
import { CryptonoteDaemonClient, CryptonoteReader, LwsChainService, LwsClient, lwsRoutes, type LwsAsset, type LwsChain } from './lws/index.js';
import { fetchCoinGeckoPrices, PriceCache, priceRoutes } from './prices/index.js';
import { ElectrumClient, EsploraClient, UtxoChainService, UtxoReader, utxoRoutes, type UtxoAsset, type UtxoBackend } from './utxo/index.js';

/**
 * Chain access as a core feature: each configured chain registers its adapter, its height source
 * and its routes; an unconfigured chain's routes answer 400 `chain_disabled` without any upstream
 * call. The provider side of the chain registry, upstream metrics and the upstreams' credentials
 * are core extensions; plugins see the chains only through `ctx.chains`.
 */
export function chainsPlugin(): CoreFeature {
  return {
    name: 'core-chains',
    errors: [chainErrors],
    routes: [
      'GET /api/v1/wallet/grin/height',
      'POST /api/v1/wallet/grin/scan',
      'POST /api/v1/wallet/grin/broadcast',
      'POST /api/v1/wallet/utxo/balance',
      'POST /api/v1/wallet/utxo/history',
      'POST /api/v1/wallet/utxo/utxos',
      'POST /api/v1/wallet/utxo/fee',
      'POST /api/v1/wallet/utxo/tip',
      'POST /api/v1/wallet/utxo/broadcast',
      'POST /api/v1/wallet/lws/register',
      'POST /api/v1/wallet/lws/balance',
      'POST /api/v1/wallet/lws/history',
      'POST /api/v1/wallet/lws/unspent_outs',
      'POST /api/v1/wallet/lws/random_outs',
      'POST /api/v1/wallet/lws/submit_tx',
      'POST /api/v1/wallet/lws/height',
      'POST /api/v1/wallet/lws/confirmations',
      'GET /api/v1/prices',
    ],
    setup(ctx, core) {
      const { settings } = ctx;
      const metrics = core.upstreamMetrics;
      const registry = core.chainRegistry;
      // Every upstream client is timed and counted per chain when metrics are on.
      const timed = <T extends object>(client: T, chain: string, upstream: string): T => instrumentUpstream(client, { chain, upstream }, metrics);
      let grin: GrinChainService | null = null;
      if (settings.grinNodeUrl !== undefined) {
        const node = timed(new GrinNodeClient({ url: settings.grinNodeUrl, apiSecret: core.keys.grinNodeApiSecret, timeoutMs: settings.upstreamTimeoutMs }), 'grin', 'grin-node');
        // The rewinds run on worker threads so a scan never stalls other requests.
        const scanPool = new GrinScanPool();
        ctx.onClose(() => scanPool.close());
        grin = new GrinChainService(node, settings.chainNetwork, settings.grinScanPageSize, scanPool);
        registry.provideHeight('grin', node);
        registry.provideGrinReader(new GrinReader(node));
      }
      for (const route of grinRoutes(grin)) ctx.routes.add(route);

      const utxoBackends: Partial<Record<UtxoAsset, UtxoBackend>> = {};
      const utxoUpstreams = [
        ['btc', settings.btcEsploraUrl, settings.btcElectrumUrl],
        ['ltc', settings.ltcEsploraUrl, settings.ltcElectrumUrl],
      ] as const;
      for (const [asset, esploraUrl, electrumUrl] of utxoUpstreams) {
        let backend: UtxoBackend;
        if (esploraUrl !== undefined) {
          backend = timed(new EsploraClient(esploraUrl, settings.upstreamTimeoutMs), asset, 'esplora');
        } else if (electrumUrl !== undefined) {
          const electrum = new ElectrumClient({ url: electrumUrl, asset, network: settings.chainNetwork, timeoutMs: settings.upstreamTimeoutMs });
          ctx.onClose(() => electrum.close());
          backend = timed(electrum, asset, 'electrum');
        } else {
          continue;
        }
        utxoBackends[asset] = backend;
        registry.provideHeight(asset, backend);
        registry.provideUtxoReader(asset, new UtxoReader(backend, asset, settings.chainNetwork));
      }
      for (const route of utxoRoutes(new UtxoChainService(utxoBackends, settings.chainNetwork))) ctx.routes.add(route);

      const lwsChains: Partial<Record<LwsAsset, LwsChain>> = {};
      for (const [asset, lwsUrl, daemonUrl] of [['xmr', settings.xmrLwsUrl, settings.xmrDaemonUrl], ['wow', settings.wowLwsUrl, settings.wowDaemonUrl]] as const) {
        if (lwsUrl === undefined || daemonUrl === undefined) continue;
        const daemon = timed(new CryptonoteDaemonClient(daemonUrl, settings.upstreamTimeoutMs), asset, 'daemon');
        lwsChains[asset] = { lws: timed(new LwsClient(lwsUrl, settings.upstreamTimeoutMs), asset, 'lws'), daemon };
        registry.provideHeight(asset, daemon);
        registry.provideCryptonoteReader(asset, new CryptonoteReader(daemon, asset));
      }
      for (const route of lwsRoutes(new LwsChainService(lwsChains, settings.chainNetwork))) ctx.routes.add(route);

      let prices: PriceCache | null = null;
      if (settings.priceFeed === 'coingecko') {
        const refreshMs = settings.priceRefreshSec * 1000;
        const feed = timed(
          {
            prices: () =>
              fetchCoinGeckoPrices({ url: settings.priceFeedUrl, apiKey: core.keys.priceFeedApiKey, currencies: settings.priceCurrencies, timeoutMs: settings.upstreamTimeoutMs }),
          },
          'none',
          'price-feed',
        );
        prices = new PriceCache(ctx.db, ctx.clock, 'coingecko', refreshMs, () => feed.prices());
        const cache = prices;
        ctx.scheduler.every('price-refresh', refreshMs, () => cache.refresh(), { firstRunDelayMs: 0 });
      }
      for (const route of priceRoutes(prices)) ctx.routes.add(route);
    },
  };
}
