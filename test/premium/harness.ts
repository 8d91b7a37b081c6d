import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { premiumPlugin, type PremiumOptions } from '@wallet/premium';
import { createTestBackend, NostrKey, seedSession, type DialectName, type TestBackend } from '../harness/index.js';
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
  /** Each with a linked Nostr key (`nostrPubkey`, hex). */
  alice: { userId: string; token: string; nostrPubkey: string };
  bob: { userId: string; token: string; nostrPubkey: string };
  /** The plugin context as a probe plugin saw it (the core hooks, as erasure and export run them). */
  ctx: PluginContext;
}

/**
 * The BTCPay fake for the suite (its clock is the backend's), and a fresh backend with premium,
 * a probe plugin (for the hooks) and two users per test. `upstreamTimeoutMs`: held requests in
 * the race tests must outlast the gate, not the default 500 ms.
 */
export function usePremiumWorld(dialect: DialectName, options: PremiumOptions = PREMIUM_OPTIONS, upstreamTimeoutMs = 500): PremiumWorld {
  const world = {} as PremiumWorld;
  let now: () => Date = () => new Date();
  const btcpay = new GreenfieldFake(() => now());
  before(() => btcpay.start());
  after(() => btcpay.close());
  beforeEach(async () => {
    btcpay.mode = 'normal';
    btcpay.received.length = 0;
    const probe: WalletPlugin = { name: 'hook-probe', setup: (ctx) => void (world.ctx = ctx) };
    const t = await createTestBackend(dialect, {
      plugins: [premiumPlugin(options), probe],
      settings: { btcpayUrl: btcpay.url, btcpayStoreId: FAKE_STORE_ID, btcpayApiKey: FAKE_API_KEY, upstreamTimeoutMs },
    });
    now = () => t.clock.now();
    // Both have a linked Nostr key: without one an invoice is refused (the relay could not admit them).
    const session = async () => {
      const nostrPubkey = new NostrKey().pubkey;
      const { userId, auth } = await seedSession(t.backend, 'extension', { nostrPubkey });
      return { userId, token: auth.access_token, nostrPubkey };
    };
    Object.assign(world, { t, btcpay, alice: await session(), bob: await session() });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}
