import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Daemon } from './daemons.js';

interface VerboseTx {
  txid: string;
  hex: string;
  vin: Array<{ txid?: string; vout?: number }>;
  // Litecoin Core 0.21 (Debian's) lists `addresses`; later Cores give one `address`.
  vout: Array<{ n: number; scriptPubKey: { address?: string; addresses?: string[] } }>;
  blockhash?: string;
}

/**
 * The Esplora REST calls the backend makes, answered from a real litecoind (Debian ships no
 * Esplora or Electrum server for Litecoin, so this thin shim fronts the real daemon, speaking
 * Esplora's own paths and shapes: protocols.md §6). Address history is found by reading every
 * block and the mempool, which a regtest chain of a few hundred blocks allows.
 */
export class EsploraShim {
  private server: Server | undefined;
  url = '';

  constructor(private readonly daemon: Daemon) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.answer(req.method ?? 'GET', req.url ?? '/', req)
        .then(({ status, body, json }) => {
          res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain' }).end(json ? JSON.stringify(body) : String(body));
        })
        .catch((err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async answer(method: string, url: string, req: NodeJS.ReadableStream): Promise<{ status: number; body: unknown; json?: boolean }> {
    const path = url.split('?')[0]!;
    if (method === 'GET' && path === '/blocks/tip/height') return { status: 200, body: await this.daemon.rpc('getblockcount', []) };
    if (method === 'POST' && path === '/tx') {
      let hex = '';
      for await (const chunk of req) hex += chunk.toString();
      try {
        return { status: 200, body: await this.daemon.rpc('sendrawtransaction', [hex.trim()]) };
      } catch (err) {
        return { status: 400, body: (err as Error).message };
      }
    }
    const tx = /^\/tx\/([0-9a-f]{64})\/(hex|status)$/.exec(path);
    if (method === 'GET' && tx !== null) {
      const found = await this.transaction(tx[1]!);
      if (found === null) return { status: 404, body: 'Transaction not found' };
      if (tx[2] === 'hex') return { status: 200, body: found.hex };
      return { status: 200, body: found.height === null ? { confirmed: false } : { confirmed: true, block_height: found.height, block_hash: found.blockhash }, json: true };
    }
    const address = /^\/address\/([^/]+)\/txs$/.exec(path);
    if (method === 'GET' && address !== null) return { status: 200, body: await this.history(decodeURIComponent(address[1]!)), json: true };
    return { status: 404, body: 'not served by the shim' };
  }

  private async transaction(txid: string): Promise<{ hex: string; height: number | null; blockhash?: string } | null> {
    let tx: VerboseTx;
    try {
      tx = (await this.daemon.rpc('getrawtransaction', [txid, true])) as VerboseTx;
    } catch {
      return null;
    }
    if (tx.blockhash === undefined) return { hex: tx.hex, height: null };
    const header = (await this.daemon.rpc('getblockheader', [tx.blockhash])) as { height: number };
    return { hex: tx.hex, height: header.height, blockhash: tx.blockhash };
  }

  /** Esplora order: mempool first, then the chain newest first. */
  private async history(address: string): Promise<Array<{ txid: string; status: { confirmed: boolean; block_height?: number } }>> {
    const paid = new Set<string>();
    const found: Array<{ txid: string; height: number | null }> = [];
    const visit = (tx: VerboseTx, height: number | null) => {
      let touches = false;
      for (const out of tx.vout) {
        if (out.scriptPubKey.address === address || out.scriptPubKey.addresses?.includes(address) === true) {
          paid.add(`${tx.txid}:${out.n}`);
          touches = true;
        }
      }
      if (tx.vin.some((input) => input.txid !== undefined && paid.has(`${input.txid}:${input.vout}`))) touches = true;
      if (touches) found.push({ txid: tx.txid, height });
    };
    const tip = (await this.daemon.rpc('getblockcount', [])) as number;
    for (let height = 0; height <= tip; height++) {
      const hash = await this.daemon.rpc('getblockhash', [height]);
      const block = (await this.daemon.rpc('getblock', [hash, 2])) as { tx: VerboseTx[] };
      for (const tx of block.tx) visit(tx, height);
    }
    for (const txid of (await this.daemon.rpc('getrawmempool', [])) as string[]) visit((await this.daemon.rpc('getrawtransaction', [txid, true])) as VerboseTx, null);
    return found.reverse().map((entry) => ({ txid: entry.txid, status: entry.height === null ? { confirmed: false } : { confirmed: true, block_height: entry.height } }));
  }
}
