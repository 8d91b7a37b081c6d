import { chainErrors } from '../errors.js';
import { postJson } from './http-json.js';

/** Account credentials for monero-lws: the primary address and the private view key (hex). Never stored or logged. */
export interface LwsAccount {
  address: string;
  view_key: string;
}

/**
 * monero-lws REST API (MyMonero-compatible; protocols.md §9): every call is a JSON POST; uint64
 * amounts are strings. 403 (account unknown, disabled or bad key pair) and 400 are the caller's
 * (`lws_refused`); anything else that is not 200, and every network failure, is 503.
 */
export class LwsClient {
  private readonly base: string;

  constructor(url: string, private readonly timeoutMs: number) {
    this.base = url.replace(/\/+$/, '');
  }

  async call(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await postJson(`${this.base}${path}`, body, this.timeoutMs, () => chainErrors.create.lws_unavailable());
    if (response.status === 403 || response.status === 400) throw chainErrors.create.lws_refused();
    if (response.status !== 200 || typeof response.body !== 'object' || response.body === null) throw chainErrors.create.lws_unavailable();
    return response.body as Record<string, unknown>;
  }

  login(account: LwsAccount, options: { startHeight?: number | undefined }) {
    // lws creates the account on first login (create_account); start_height is honoured by import requests, so it is passed as a hint.
    return this.call('/login', { ...account, create_account: true, generated_locally: true, ...(options.startHeight === undefined ? {} : { start_height: options.startHeight }) });
  }

  addressInfo(account: LwsAccount) {
    return this.call('/get_address_info', { ...account });
  }

  addressTxs(account: LwsAccount) {
    return this.call('/get_address_txs', { ...account });
  }

  unspentOuts(account: LwsAccount, mixin: number) {
    return this.call('/get_unspent_outs', { ...account, amount: '0', mixin, use_dust: true, dust_threshold: '2000000000' });
  }

  randomOuts(count: number, amounts: string[]) {
    return this.call('/get_random_outs', { count, amounts });
  }

  submitRawTx(tx: string) {
    return this.call('/submit_raw_tx', { tx });
  }
}
