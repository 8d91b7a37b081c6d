import { createHash } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Transaction } from 'bitcoinjs-lib';
import type { FakeUtxoChain } from './utxo-chain.js';

/**
 * How the fake behaves:
 *  - `normal`: answers every call;
 *  - `slow`: answers after `slowMs`;
 *  - `stall`: accepts connections and reads, never answers (a half-open or wedged server);
 *  - `down`: closes every new connection at once;
 *  - `malformed`: answers every call with a line that is not JSON.
 */
export type ElectrumFakeMode = 'normal' | 'slow' | 'stall' | 'down' | 'malformed';

export interface ElectrumFakeHistory {
  balance: { confirmed: number; unconfirmed: number };
  /** Chain order, then mempool (height 0 or -1). */
  history: Array<{ tx_hash: string; height: number; fee?: number }>;
  unspent: Array<{ tx_hash: string; tx_pos: number; value: number; height: number }>;
}

/** The scripthash an Electrum server keys an output script by: sha256(script), byte-reversed, hex. */
export function scripthashOf(script: Uint8Array): string {
  return createHash('sha256').update(script).digest().reverse().toString('hex');
}

/**
 * An Electrum protocol server on 127.0.0.1 (electrs / Fulcrum behaviour, protocols.md §5): raw
 * TCP or TLS, one JSON-RPC message per line, `server.version` required first and negotiating
 * only 1.4, headers notifications to subscribers, JSON-RPC errors with electrs' codes. Scripthash
 * state is set per scripthash; every call is logged in `received`.
 */
export class ElectrumFake {
  mode: ElectrumFakeMode = 'normal';
  slowMs = 1_000;
  tip = { height: 850_000, hex: '00'.repeat(80) };
  scripthashes = new Map<string, ElectrumFakeHistory>();
  /** coin/kB by target; a missing target answers -1 (no estimate), like a fresh node. */
  feeEstimates: Record<number, number> = { 1: 0.00042, 2: 0.0003, 6: 0.000122 };
  relayFee = 0.00001;
  rejectBroadcast: string | null = null;
  broadcasts: string[] = [];
  /** Transactions for `blockchain.transaction.get`, and the history of scripthashes not in `scripthashes`. */
  chain: FakeUtxoChain | null = null;
  readonly received: Array<{ method: string; params: unknown[] }> = [];
  /** Connections ever accepted, and those whose first message was not `server.version`. */
  connectionsAccepted = 0;
  handshakeViolations = 0;
  private readonly sockets = new Set<Socket>();
  private readonly subscribers = new Set<Socket>();
  private server: Server | undefined;
  url = '';

  constructor(private readonly tls?: { key: string; cert: string }) {}

  async start(port = 0): Promise<void> {
    const server = this.tls ? createTlsServer({ key: this.tls.key, cert: this.tls.cert }, (s) => this.accept(s)) : createTcpServer((s) => this.accept(s));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.url = `${this.tls ? 'ssl' : 'tcp'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Connections open right now. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Stops listening and ends every connection (the server process died). */
  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Resets every open connection (a restart or a network blip) but keeps listening. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.subscribers.clear();
  }

  /** Moves the tip and notifies subscribers, as electrs does on a new block. */
  newBlock(height: number): void {
    this.tip = { height, hex: '00'.repeat(80) };
    for (const socket of this.subscribers) socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'blockchain.headers.subscribe', params: [this.tip] })}\n`);
  }

  private accept(socket: Socket): void {
    this.connectionsAccepted += 1;
    if (this.mode === 'down') {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.setEncoding('utf8');
    let buffer = '';
    let greeted = false;
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: { id?: number; method?: string; params?: unknown[] };
        try {
          message = JSON.parse(line);
        } catch {
          socket.end(`${JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' }, id: null })}\n`);
          return;
        }
        const method = String(message.method);
        const params = Array.isArray(message.params) ? message.params : [];
        this.received.push({ method, params });
        if (!greeted && method !== 'server.version') {
          this.handshakeViolations += 1;
        }
        if (method === 'server.version') {
          const wanted = params[1];
          const speaks14 = wanted === '1.4' || (Array.isArray(wanted) && String(wanted[0]) <= '1.4' && String(wanted[1]) >= '1.4');
          if (greeted || !speaks14) {
            socket.destroy();
            return;
          }
          greeted = true;
        }
        this.answer(socket, message.id ?? null, method, params);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.subscribers.delete(socket);
    });
  }

  private answer(socket: Socket, id: number | null, method: string, params: unknown[]): void {
    if (this.mode === 'stall') return;
    const reply = this.mode === 'malformed' ? '{"jsonrpc": "2.0", "result": <html>' : JSON.stringify({ jsonrpc: '2.0', id, ...this.dispatch(socket, method, params) });
    const send = () => !socket.destroyed && socket.write(`${reply}\n`);
    if (this.mode === 'slow') setTimeout(send, this.slowMs);
    else send();
  }

  private dispatch(socket: Socket, method: string, params: unknown[]): { result: unknown } | { error: { code: number; message: string } } {
    const fromChain = () => (this.chain?.historyOfScripthash(String(params[0])) ?? []).map((entry) => ({ tx_hash: entry.txid, height: entry.height ?? 0 }));
    const state = this.scripthashes.get(String(params[0])) ?? { balance: { confirmed: 0, unconfirmed: 0 }, history: fromChain(), unspent: [] };
    switch (method) {
      case 'server.version':
        return { result: ['FakeElectrs 0.10.5', '1.4'] };
      case 'server.ping':
        return { result: null };
      case 'blockchain.headers.subscribe':
        this.subscribers.add(socket);
        return { result: this.tip };
      case 'blockchain.scripthash.get_balance':
        return { result: state.balance };
      case 'blockchain.scripthash.get_history':
        return { result: state.history };
      case 'blockchain.scripthash.listunspent':
        return { result: state.unspent };
      case 'blockchain.estimatefee':
        return { result: this.feeEstimates[Number(params[0])] ?? -1 };
      case 'blockchain.relayfee':
        return { result: this.relayFee };
      case 'blockchain.transaction.get': {
        // electrs: an unknown txid is a JSON-RPC error; verbose carries `confirmations` only once mined.
        const found = this.chain?.get(String(params[0])) ?? null;
        if (found === null) return { error: { code: 2, message: 'daemon error: No such mempool or blockchain transaction' } };
        if (params[1] !== true) return { result: found.hex };
        return { result: { txid: params[0], hex: found.hex, ...(found.height === null ? {} : { confirmations: this.tip.height - found.height + 1, blockhash: '00'.repeat(32) }) } };
      }
      case 'blockchain.transaction.broadcast': {
        // electrs forwards the node's refusal as a JSON-RPC error (code 1 in ElectrumX and Fulcrum too).
        if (this.rejectBroadcast !== null) return { error: { code: 1, message: this.rejectBroadcast } };
        const hex = String(params[0]);
        this.broadcasts.push(hex);
        return { result: Transaction.fromHex(hex).getId() };
      }
      default:
        return { error: { code: -32601, message: `unknown method "${method}"` } };
    }
  }
}
