import { chainErrors } from '../errors.js';

export interface GrinNodeOptions {
  /** Node base URL; the foreign API lives at `/v2/foreign`. */
  url: string;
  /** `.foreign_api_secret`; sent as HTTP basic auth with user `grin`. */
  apiSecret?: string | undefined;
  timeoutMs: number;
}

/** An output as the foreign API prints it (OutputPrintable). */
export interface NodeOutput {
  output_type: string;
  commit: string;
  proof: string | null;
  block_height: number | null;
  mmr_index: number;
}

export interface UnspentOutputsPage {
  highest_index: number;
  last_retrieved_index: number;
  outputs: NodeOutput[];
}

/** The node refused the call (`{"Err": …}` or a JSON-RPC error): its answer, not an outage. */
export class GrinNodeRefusal extends Error {}

/**
 * Grin node foreign API v2 (JSON-RPC 2.0 over HTTP, positional params, `{"Ok": v}` / `{"Err": e}`
 * results). Network failures, timeouts, non-200 answers and malformed bodies are 503
 * `grin_node_unavailable`; a refusal by the node is a GrinNodeRefusal for the caller to map.
 */
export class GrinNodeClient {
  private readonly endpoint: string;
  private readonly authorization: string | undefined;
  private nextId = 1;

  constructor(private readonly options: GrinNodeOptions) {
    this.endpoint = `${options.url.replace(/\/+$/, '')}/v2/foreign`;
    this.authorization = options.apiSecret === undefined ? undefined : `Basic ${Buffer.from(`grin:${options.apiSecret}`).toString('base64')}`;
  }

  async tipHeight(signal?: AbortSignal): Promise<number> {
    const tip = (await this.call('get_tip', [], signal)) as { height?: unknown };
    if (!Number.isSafeInteger(tip?.height)) throw chainErrors.create.grin_node_unavailable();
    return tip.height as number;
  }

  async unspentOutputs(startIndex: number, max: number): Promise<UnspentOutputsPage> {
    const page = (await this.call('get_unspent_outputs', [startIndex, null, max, true])) as Partial<UnspentOutputsPage>;
    if (!Number.isSafeInteger(page?.highest_index) || !Number.isSafeInteger(page?.last_retrieved_index) || !Array.isArray(page?.outputs)) {
      throw chainErrors.create.grin_node_unavailable();
    }
    return page as UnspentOutputsPage;
  }

  /** The unspent outputs among `commits` (the node leaves out spent and unknown ones). */
  async outputsByCommit(commits: string[]): Promise<NodeOutput[]> {
    const outputs = await this.call('get_outputs', [commits, null, null, false, false]);
    if (!Array.isArray(outputs)) throw chainErrors.create.grin_node_unavailable();
    return outputs as NodeOutput[];
  }

  /** The kernel's block height, or null when the node does not know it (`Err: NotFound`). */
  async kernelHeight(excess: string): Promise<number | null> {
    let found: unknown;
    try {
      found = await this.call('get_kernel', [excess, null, null]);
    } catch (err) {
      if (err instanceof GrinNodeRefusal) return null;
      throw err;
    }
    const height = (found as { height?: unknown } | null)?.height;
    if (!Number.isSafeInteger(height)) throw chainErrors.create.grin_node_unavailable();
    return height as number;
  }

  async pushTransaction(tx: unknown, fluff: boolean): Promise<void> {
    await this.call('push_transaction', [tx, fluff]);
  }

  private async call(method: string, params: unknown[], signal?: AbortSignal): Promise<unknown> {
    let body: unknown;
    try {
      const timeout = AbortSignal.timeout(this.options.timeoutMs);
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.authorization ? { authorization: this.authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      body = JSON.parse(await response.text());
    } catch {
      throw chainErrors.create.grin_node_unavailable();
    }
    const envelope = body as { result?: { Ok?: unknown; Err?: unknown }; error?: { message?: string } } | null;
    if (envelope?.error) throw new GrinNodeRefusal(String(envelope.error.message ?? 'JSON-RPC error'));
    const result = envelope?.result;
    if (result === undefined || result === null || typeof result !== 'object') throw chainErrors.create.grin_node_unavailable();
    if ('Err' in result) throw new GrinNodeRefusal(typeof result.Err === 'string' ? result.Err : JSON.stringify(result.Err));
    if (!('Ok' in result)) throw chainErrors.create.grin_node_unavailable();
    return result.Ok;
  }
}
