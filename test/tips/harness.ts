import { randomBytes } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { tipsPlugin, type TipsOptions } from '@wallet/tips';
import { utxoNetwork } from '../../packages/core/src/chains/utxo/index.js';
import { createTestBackend, CryptonoteKey, seedSession, seedUser, useFakes, type DialectName, type TestBackend } from '../harness/index.js';
import { EsploraFake } from '../fakes/esplora.js';
import { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { FAKE_GRIN_SECRET, GrinNodeFake } from '../fakes/grin-node.js';
import { LwsFake, MonerodFake } from '../fakes/lws.js';

export const SHARE_BASE = 'https://wallet.example.test/tip/';
export const TIP_ASSET_LIST = ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const;
export type Asset = (typeof TIP_ASSET_LIST)[number];

/** A fresh mainnet receiving address of `asset`, made independently of the server. */
export function tipAddress(asset: Exclude<Asset, 'grin'>): string {
  if (asset === 'xmr' || asset === 'wow') return new CryptonoteKey(asset).address();
  const pubkey = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
  return payments.p2wpkh({ pubkey, network: utxoNetwork(asset, 'mainnet') }).address!;
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A txid of the asset's form: 64 hex, or grin's 66-hex kernel excess. */
export const txidOf = (asset: Asset) => (asset === 'grin' ? `08${hex(32)}` : hex(32));

/** A public tip's secret and its hash, as a wallet makes them. */
export function shareSecret(): { secret: Uint8Array; hash: string } {
  const secret = randomBytes(32);
  return { secret, hash: bytesToHex(sha256(secret)) };
}

/** A complete create body for `asset` (funded unless draft), overridable field by field. */
export function tipBody(asset: Asset, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const draft = fields.draft === true;
  const base: Record<string, unknown> = { asset, amount: asset === 'btc' || asset === 'ltc' ? '50000' : '1000000000' };
  if (asset === 'grin') base.grin_commitment = `09${hex(32)}`;
  else base.tip_address = tipAddress(asset);
  if (fields.recipient === undefined) base.secret_hash = shareSecret().hash;
  else base.ciphertext = Buffer.from(randomBytes(48)).toString('base64');
  if (!draft) {
    base.funding_txid = txidOf(asset);
    if (asset === 'xmr' || asset === 'wow') base.funding_tx_key = hex(32);
  }
  return { ...base, ...fields };
}

export interface TipsWorld {
  t: TestBackend;
  sender: { userId: string; token: string };
  recipient: { userId: string; token: string; username: string };
  other: { userId: string; token: string };
}

/** Fakes for every chain, started once per suite: tips need chain access on for their assets. */
export function useChainFakes() {
  const [btc, ltc, xmrLws, xmrDaemon, wowLws, wowDaemon, grin] = useFakes(
    new EsploraFake(),
    new EsploraFake(),
    new LwsFake(),
    new MonerodFake(),
    new LwsFake(),
    new MonerodFake(),
    new GrinNodeFake(),
  );
  return {
    btc,
    ltc,
    grin,
    xmrDaemon,
    wowDaemon,
    settings: () => ({
      btcEsploraUrl: btc.url,
      ltcEsploraUrl: ltc.url,
      xmrLwsUrl: xmrLws.url,
      xmrDaemonUrl: xmrDaemon.url,
      wowLwsUrl: wowLws.url,
      wowDaemonUrl: wowDaemon.url,
      grinNodeUrl: grin.url,
      grinNodeApiSecret: FAKE_GRIN_SECRET,
    }),
  };
}

/** A fresh BTC chain behind the Esplora fake (tip height 850,000, answering normally), for a test's beforeEach. */
export function freshBtcChain(chains: ReturnType<typeof useChainFakes>): FakeUtxoChain {
  const chain = new FakeUtxoChain(networks.bitcoin);
  chains.btc.chain = chain;
  chains.btc.mode = 'normal';
  chains.btc.tip = 850_000;
  return chain;
}

/** A backend with the tips plugin and three users with sessions, fresh for every test. */
export function useTipsWorld(dialect: DialectName, chains: { settings: () => Record<string, string> }, options: TipsOptions = { enabled: true, targeted: true, shareBase: SHARE_BASE }): TipsWorld {
  const world = {} as TipsWorld;
  beforeEach(async () => {
    const t = await createTestBackend(dialect, { plugins: [tipsPlugin(options)], settings: chains.settings() });
    const session = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { userId, token: auth.access_token };
    };
    const username = `alice${hex(3)}`;
    const recipientUser = await seedUser(t.backend, { username });
    Object.assign(world, {
      t,
      sender: await session(),
      recipient: { userId: recipientUser.id, token: (await t.backend.sessions.start(recipientUser.id, 'extension')).access_token, username },
      other: await session(),
    });
  });
  afterEach(async () => {
    await world.t?.close();
  });
  return world;
}
