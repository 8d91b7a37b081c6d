import { decodeCryptonoteAddress, viewKeyMatches } from '../../crypto/index.js';
import { chainErrors } from '../errors.js';
import { cryptonoteNetworkOf, type ChainNetwork } from '../network.js';
import type { CryptonoteDaemonClient } from './daemon-client.js';
import type { LwsAccount, LwsClient } from './lws-client.js';
import { parseMoneroTransaction } from './monero-tx.js';

export type LwsAsset = 'xmr' | 'wow';

export interface LwsChain {
  lws: LwsClient;
  daemon: CryptonoteDaemonClient;
}

/** Ring members besides the real output: Monero rings of 16, Wownero of 22. */
const MIXIN: Record<LwsAsset, number> = { xmr: 15, wow: 21 };

const amount = (value: unknown): string => (typeof value === 'string' && /^\d+$/.test(value) ? value : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : '0');
const count = (value: unknown): number => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0);

/**
 * XMR/WOW chain access through a light-wallet server (spec › XMR / WOW): the address must be a
 * standard address of the asset on this network and the view key must be its own (B = b·G),
 * all before any upstream call. View keys pass through to the LWS and are never stored or logged.
 */
export class LwsChainService {
  constructor(
    private readonly chains: Partial<Record<LwsAsset, LwsChain>>,
    private readonly network: ChainNetwork,
  ) {}

  private chain(asset: LwsAsset): LwsChain {
    const chain = this.chains[asset];
    if (chain === undefined) throw chainErrors.create.chain_disabled();
    return chain;
  }

  private account(asset: LwsAsset, address: string, viewKey: string): { chain: LwsChain; account: LwsAccount } {
    const chain = this.chain(asset);
    const decoded = decodeCryptonoteAddress(address, asset);
    if (decoded === null || decoded.kind !== 'standard' || decoded.network !== cryptonoteNetworkOf(this.network)) throw chainErrors.create.address_invalid();
    if (!viewKeyMatches(viewKey, decoded.publicViewKey)) throw chainErrors.create.view_key_mismatch();
    return { chain, account: { address, view_key: viewKey.toLowerCase() } };
  }

  async register(asset: LwsAsset, address: string, viewKey: string, startHeight?: number) {
    const { chain, account } = this.account(asset, address, viewKey);
    await chain.lws.login(account, { startHeight });
    return { ok: true as const };
  }

  async balance(asset: LwsAsset, address: string, viewKey: string) {
    const { chain, account } = this.account(asset, address, viewKey);
    const info = await chain.lws.addressInfo(account);
    const received = BigInt(amount(info.total_received));
    const sent = BigInt(amount(info.total_sent));
    return {
      asset,
      total_received: received.toString(),
      total_sent: sent.toString(),
      locked_funds: amount(info.locked_funds),
      // The LWS sees only possible spends: this is an upper bound until the wallet checks key images.
      balance: (received > sent ? received - sent : 0n).toString(),
      scanned_height: count(info.scanned_height),
      scanned_block_height: count(info.scanned_block_height),
      blockchain_height: count(info.blockchain_height),
      start_height: count(info.start_height),
    };
  }

  async history(asset: LwsAsset, address: string, viewKey: string) {
    const { chain, account } = this.account(asset, address, viewKey);
    const result = await chain.lws.addressTxs(account);
    const txs = Array.isArray(result.transactions) ? (result.transactions as Array<Record<string, unknown>>) : [];
    const shaped = txs.map((tx) => ({
      id: count(tx.id),
      hash: typeof tx.hash === 'string' ? tx.hash : '',
      total_received: amount(tx.total_received),
      total_sent: amount(tx.total_sent),
      height: tx.mempool === true || !Number.isSafeInteger(tx.height) ? null : (tx.height as number),
      mempool: tx.mempool === true,
    }));
    return {
      asset,
      scanned_height: count(result.scanned_height),
      blockchain_height: count(result.blockchain_height),
      confirmed: shaped.filter((tx) => !tx.mempool),
      mempool: shaped.filter((tx) => tx.mempool),
    };
  }

  async unspentOuts(asset: LwsAsset, address: string, viewKey: string) {
    const { chain, account } = this.account(asset, address, viewKey);
    const result = await chain.lws.unspentOuts(account, MIXIN[asset]);
    return {
      asset,
      amount: amount(result.amount),
      per_byte_fee: amount(result.per_byte_fee),
      fee_mask: amount(result.fee_mask),
      fees: Array.isArray(result.fees) ? result.fees.map(amount) : [],
      outputs: Array.isArray(result.outputs) ? (result.outputs as Array<Record<string, unknown>>) : [],
    };
  }

  async randomOuts(asset: LwsAsset, countWanted: number, amounts: string[]) {
    const result = await this.chain(asset).lws.randomOuts(countWanted, amounts);
    const outs = Array.isArray(result.amount_outs) ? (result.amount_outs as Array<Record<string, unknown>>) : [];
    return { asset, amount_outs: outs.map((entry) => ({ amount: amount(entry.amount), outputs: Array.isArray(entry.outputs) ? (entry.outputs as Array<Record<string, unknown>>) : [] })) };
  }

  async submit(asset: LwsAsset, tx: string) {
    const chain = this.chain(asset);
    if (parseMoneroTransaction(tx) === null) throw chainErrors.create.tx_invalid();
    const result = await chain.lws.submitRawTx(tx.toLowerCase());
    if (result.status !== 'OK') throw chainErrors.create.tx_rejected({ message: `The node rejected the transaction: ${String(result.status ?? 'unknown').slice(0, 200)}` });
    return { ok: true as const };
  }

  async height(asset: LwsAsset) {
    return { asset, height: await this.chain(asset).daemon.tipHeight() };
  }

  async confirmations(asset: LwsAsset, txid: string) {
    return { asset, txid: txid.toLowerCase(), ...(await this.chain(asset).daemon.confirmations(txid.toLowerCase())) };
  }
}
