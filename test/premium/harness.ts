import { premiumPlugin, type PremiumOptions } from '@wallet/premium';
import { createTestBackend, seedSession, type DialectName, type TestBackend } from '../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../fakes/greenfield.js';

export const PREMIUM_OPTIONS: PremiumOptions = {
  enabled: true,
  plans: 'month:30:0.0001,year:365:0.001',
  relayUrl: 'wss://relay.example.test',
  writePolicy: 'premium-post',
  confirmations: 2,
  invoiceExpiryMinutes: 30,
  maxPendingInvoices: 3,
};

export interface PremiumWorld {
  t: TestBackend;
  btcpay: GreenfieldFake;
  alice: { userId: string; token: string };
  bob: { userId: string; token: string };
}

/** The BTCPay fake for the suite (its clock is the backend's), and a fresh backend with premium and two users per test. */
export function usePremiumWorld(dialect: DialectName, options: PremiumOptions = PREMIUM_OPTIONS): PremiumWorld {
  const world = {} as PremiumWorld;
  let now: () => Date = () => new Date();
  const btcpay = new GreenfieldFake(() => now());
  before(() => btcpay.start());
  after(() => btcpay.close());
  beforeEach(async () => {
    btcpay.mode = 'normal';
    btcpay.received.length = 0;
    const t = await createTestBackend(dialect, {
      plugins: [premiumPlugin(options)],
      settings: { btcpayUrl: btcpay.url, btcpayStoreId: FAKE_STORE_ID, btcpayApiKey: FAKE_API_KEY, upstreamTimeoutMs: 500 },
    });
    now = () => t.clock.now();
    const session = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { userId, token: auth.access_token };
    };
    Object.assign(world, { t, btcpay, alice: await session(), bob: await session() });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}
