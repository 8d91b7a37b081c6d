import { createWalletBackend, type WalletBackendConfig } from '@wallet/backend-core';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { FAKE_API_KEY, FAKE_STORE_ID } from '../fakes/greenfield.js';
import { FAKE_GRIN_SECRET } from '../fakes/grin-node.js';
import { TEST_PUBLIC_API_URL, TEST_SECRETS } from './backend.js';
import { freshSqliteUrl } from './sqlite.js';

type Json = Record<string, any>;

/** Never contacted: the upstream URLs only switch their features (and routes) on. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * A backend configuration on a fresh SQLite file with every optional core feature on (the
 * registration gates, BTCPay, every chain, the price feed), each upstream at an address nobody
 * listens on: the most routes, for a backend that is built but never asked to reach them.
 */
export async function everyFeatureConfig(): Promise<WalletBackendConfig> {
  return {
    publicApiUrl: TEST_PUBLIC_API_URL,
    databaseUrl: await freshSqliteUrl(),
    nodeEnv: 'test',
    ...TEST_SECRETS,
    registrationRequireInvite: true,
    registrationRequirePow: true,
    registrationRequirePayment: true,
    registrationPrice: '0.0001',
    btcpayUrl: NOWHERE,
    btcpayStoreId: FAKE_STORE_ID,
    btcpayApiKey: FAKE_API_KEY,
    btcEsploraUrl: NOWHERE,
    ltcEsploraUrl: NOWHERE,
    xmrLwsUrl: NOWHERE,
    xmrDaemonUrl: NOWHERE,
    grinNodeUrl: NOWHERE,
    grinNodeApiSecret: FAKE_GRIN_SECRET,
    priceFeed: 'coingecko',
    priceFeedUrl: NOWHERE,
  };
}

/**
 * The document of a backend with every optional core feature, the Grin relay, the tips and premium: the
 * most operations. The document depends on the routes only, not on the dialect or on any row,
 * so the backend is neither migrated nor started and SQLite alone is enough.
 */
export async function fullOpenApiDocument(): Promise<Json> {
  const backend = await createWalletBackend({
    ...(await everyFeatureConfig()),
    plugins: [grinRelayPlugin({}), tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }), premiumPlugin({ enabled: true, plans: 'month:30:0.0001,year:365:0.001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' })],
  });
  try {
    return backend.openapi() as Json;
  } finally {
    await backend.close();
  }
}

