import { HttpFake, type FakeReply } from './http-fake.js';

interface Account {
  address: string;
  view_key: string;
}

/**
 * monero-lws's REST API (protocols.md §9): JSON POSTs, amounts as strings, 403 for an unknown
 * account or a wrong key pair, `/login` with `create_account` creating it. Records every request,
 * so tests can prove the view key reached only this server.
 */
export class LwsFake extends HttpFake {
  accounts = new Map<string, string>();
  blockchainHeight = 3_100_000;
  submitStatus = 'OK';
  submitted: string[] = [];

  constructor() {
    super();
    this.route('POST /login', (_req, body) => {
      const account = body as Account & { create_account?: boolean };
      const known = this.accounts.get(account.address);
      if (known !== undefined && known !== account.view_key) return { status: 403, text: '' };
      const created = known === undefined;
      if (created && account.create_account !== true) return { status: 403, text: '' };
      this.accounts.set(account.address, account.view_key);
      return { json: { new_address: created, generated_locally: true, start_height: 3_000_000 } };
    });
    this.route('POST /get_address_info', (_req, body) =>
      this.authorised(body, () => ({
        json: { locked_funds: '0', total_received: '5000000000000', total_sent: '1200000000000', scanned_height: 42, scanned_block_height: this.blockchainHeight - 1, start_height: 3_000_000, transaction_height: 42, blockchain_height: this.blockchainHeight, spent_outputs: [] },
      })),
    );
    this.route('POST /get_address_txs', (_req, body) =>
      this.authorised(body, () => ({
        json: {
          total_received: '5000000000000',
          scanned_height: 42,
          scanned_block_height: this.blockchainHeight - 1,
          start_height: 3_000_000,
          transaction_height: 42,
          blockchain_height: this.blockchainHeight,
          transactions: [
            { id: 7, hash: 'a1'.repeat(32), timestamp: '2026-11-01T10:00:00Z', total_received: '5000000000000', total_sent: '0', unlock_time: 0, height: 3_050_000, spent_outputs: [], coinbase: false, mempool: false, mixin: 15 },
            { id: 8, hash: 'b2'.repeat(32), total_received: '0', total_sent: '1200000000000', unlock_time: 0, spent_outputs: [], coinbase: false, mempool: true, mixin: 15 },
          ],
        },
      })),
    );
    this.route('POST /get_unspent_outs', (_req, body) =>
      this.authorised(body, () => ({
        json: { per_byte_fee: '20000', fee_mask: '10000', amount: '3800000000000', fees: ['20000', '80000'], outputs: [{ tx_id: 7, amount: '3800000000000', index: 0, global_index: 123456, rct: 'cd'.repeat(96), tx_hash: 'a1'.repeat(32), tx_prefix_hash: 'e5'.repeat(32), public_key: 'f6'.repeat(32), tx_pub_key: '07'.repeat(32), spend_key_images: [], timestamp: '2026-11-01T10:00:00Z', height: 3_050_000 }] },
      })),
    );
    this.route('POST /get_random_outs', (_req, body) => {
      const { count, amounts } = body as { count: number; amounts: string[] };
      return { json: { amount_outs: amounts.map((amount) => ({ amount, outputs: Array.from({ length: count }, (_, i) => ({ global_index: String(1000 + i), public_key: 'aa'.repeat(32), rct: 'bb'.repeat(32) })) })) } };
    });
    this.route('POST /submit_raw_tx', (_req, body) => {
      this.submitted.push((body as { tx: string }).tx);
      return { json: { status: this.submitStatus } };
    });
  }

  private authorised(body: unknown, reply: () => FakeReply): FakeReply {
    const account = body as Account;
    return this.accounts.get(account?.address) === account?.view_key ? reply() : { status: 403, text: '' };
  }
}

/** monerod's plain JSON RPC endpoints used for height and confirmations. */
export class MonerodFake extends HttpFake {
  height = 3_100_000;
  /** Known transactions; `as_json` is what `decode_as_json` answers (a real daemon's decoded transaction). */
  txs = new Map<string, { in_pool: boolean; block_height?: number; as_json?: string }>();

  constructor() {
    super();
    this.route('POST /get_height', () => ({ json: { height: this.height, hash: 'ab'.repeat(32), status: 'OK', untrusted: false } }));
    this.route('POST /get_transactions', (_req, body) => {
      const { txs_hashes: hashes, decode_as_json: decode } = body as { txs_hashes: string[]; decode_as_json?: boolean };
      const txs = hashes.filter((h) => this.txs.has(h)).map((h) => {
        const tx = this.txs.get(h)!;
        const json = decode === true ? { as_json: tx.as_json ?? '' } : {};
        return tx.in_pool
          ? { tx_hash: h, as_hex: '', ...json, in_pool: true, double_spend_seen: false, relayed: true, received_timestamp: 1_700_000_000 }
          : { tx_hash: h, as_hex: '', ...json, in_pool: false, double_spend_seen: false, block_height: tx.block_height, confirmations: this.height - tx.block_height!, block_timestamp: 1_700_000_000, output_indices: [1, 2] };
      });
      return { json: { txs, missed_tx: hashes.filter((h) => !this.txs.has(h)), status: 'OK', untrusted: false } };
    });
  }
}
