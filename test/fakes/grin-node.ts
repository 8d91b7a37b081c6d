import { HttpFake, type FakeRequest } from './http-fake.js';

export const FAKE_GRIN_SECRET = 'fake-foreign-api-secret';

export interface FakeChainOutput {
  commit: string;
  proof: string;
  is_coinbase: boolean;
  height: number;
  mmr_index: number;
}

/**
 * A Grin node's foreign API v2 as grin serves it (protocols.md §10): JSON-RPC 2.0 on
 * `POST /v2/foreign`, basic auth `grin:<secret>`, results wrapped as `{"Ok": …}` or
 * `{"Err": …}`, positional params. Outputs come from `outputs` (OutputPrintable shape);
 * `pushError` makes push_transaction answer `Err`.
 */
export class GrinNodeFake extends HttpFake {
  tip = 1_000;
  outputs: FakeChainOutput[] = [];
  pushed: unknown[] = [];
  pushError: unknown = null;
  /** Kernels on chain: excess (66 hex) → block height. */
  kernels = new Map<string, number>();

  constructor() {
    super();
    this.route('POST /v2/foreign', (req, body) => this.rpc(req, body as { id?: unknown; method?: string; params?: unknown[] }));
  }

  private rpc(req: FakeRequest, call: { id?: unknown; method?: string; params?: unknown[] } | undefined) {
    if (req.headers.authorization !== `Basic ${Buffer.from(`grin:${FAKE_GRIN_SECRET}`).toString('base64')}`) return { status: 401, text: '' };
    const id = call?.id ?? null;
    const ok = (value: unknown) => ({ json: { jsonrpc: '2.0', id, result: { Ok: value } } });
    const params = call?.params ?? [];
    switch (call?.method) {
      case 'get_tip':
        return ok({ height: this.tip, last_block_pushed: 'ab'.repeat(32), prev_block_to_last: 'cd'.repeat(32), total_difficulty: 1_000_000 });
      case 'get_unspent_outputs': {
        const [start, end, max, includeProof] = params as [number, number | null, number, boolean];
        const sorted = [...this.outputs].sort((a, b) => a.mmr_index - b.mmr_index);
        const highest = sorted.at(-1)?.mmr_index ?? 0;
        const page = sorted.filter((o) => o.mmr_index >= start && (end === null || o.mmr_index <= end)).slice(0, max);
        return ok({
          highest_index: highest,
          last_retrieved_index: page.at(-1)?.mmr_index ?? highest,
          outputs: page.map((o) => ({
            output_type: o.is_coinbase ? 'Coinbase' : 'Transaction',
            commit: o.commit,
            spent: false,
            proof: includeProof ? o.proof : null,
            proof_hash: '00'.repeat(32),
            block_height: o.height,
            merkle_proof: null,
            mmr_index: o.mmr_index,
          })),
        });
      }
      case 'get_outputs': {
        // Outputs in the UTXO set among the commitments asked for; spent or unknown ones are left out.
        const [commits, , , includeProof] = params as [string[] | null, number | null, number | null, boolean];
        const wanted = new Set((commits ?? []).map((commit) => commit.toLowerCase()));
        return ok(
          this.outputs
            .filter((o) => wanted.has(o.commit.toLowerCase()))
            .map((o) => ({
              output_type: o.is_coinbase ? 'Coinbase' : 'Transaction',
              commit: o.commit,
              spent: false,
              proof: includeProof ? o.proof : null,
              proof_hash: '00'.repeat(32),
              block_height: o.height,
              merkle_proof: null,
              mmr_index: o.mmr_index,
            })),
        );
      }
      case 'get_kernel': {
        const height = this.kernels.get(String(params[0]).toLowerCase());
        if (height === undefined) return { json: { jsonrpc: '2.0', id, result: { Err: 'NotFound' } } };
        return ok({ tx_kernel: { features: { Plain: { fee: 7_000_000 } }, excess: params[0], excess_sig: '00'.repeat(64) }, height, mmr_index: 1 });
      }
      case 'push_transaction':
        if (this.pushError !== null) return { json: { jsonrpc: '2.0', id, result: { Err: this.pushError } } };
        this.pushed.push(params[0]);
        return ok(null);
      default:
        return { json: { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } } };
    }
  }
}
