import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';

/** Where an Electrum server listens: `tcp://host:50001` or `ssl://host:50002` (`tls://` is a synonym). */
export interface ElectrumEndpoint {
  host: string;
  port: number;
  tls: boolean;
}

const DEFAULT_PORT = { tcp: 50_001, tls: 50_002 } as const;

/** The endpoint of an Electrum URL, or null when it is not one (the settings schema refuses those at boot). */
export function parseElectrumUrl(text: string): ElectrumEndpoint | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (!['tcp', 'ssl', 'tls'].includes(scheme) || url.hostname === '' || url.username !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '' && url.pathname !== '/') return null;
  const tls = scheme !== 'tcp';
  const port = url.port === '' ? DEFAULT_PORT[tls ? 'tls' : 'tcp'] : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return null;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, tls };
}

/** Why a call failed: the server answered with a JSON-RPC error, or the server could not be used at all. */
export class ElectrumRpcError extends Error {
  constructor(readonly code: unknown, message: string) {
    super(message);
  }
}
export class ElectrumTransportError extends Error {}

export interface ElectrumConnectionOptions {
  endpoint: ElectrumEndpoint;
  /** Bounds every call, connecting and the version handshake included. */
  timeoutMs: number;
  /** Sent in `server.version` as the client name. */
  clientName: string;
  /** Extra TLS options (a private CA for a self-signed server); certificates are verified. */
  tls?: Pick<ConnectionOptions, 'ca' | 'servername'>;
  /** First and largest pause between reconnection attempts after a failure. */
  backoff?: { initialMs: number; maxMs: number };
  /** A keep-alive `server.ping` this often while connected (servers drop idle sessions). */
  pingIntervalMs?: number;
  /** Called for server notifications (`blockchain.headers.subscribe` and the like). */
  onNotification?: (method: string, params: unknown) => void;
  /** Called each time a connection is established and its handshake succeeded. */
  onConnected?: () => void;
}

/** Electrum speaks 1.4 everywhere (electrs only speaks 1.4; Fulcrum and ElectrumX accept it). */
const PROTOCOL_VERSION = '1.4';
/** A line longer than this is a broken or hostile server, not a reply. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface Live {
  socket: Socket;
  buffer: string;
  pending: Map<number, Pending>;
  ping?: NodeJS.Timeout;
}

/**
 * One persistent Electrum session: newline-delimited JSON-RPC over TCP or TLS, requests
 * pipelined and matched to replies by id, notifications (no id) handed to `onNotification`.
 *
 * The session opens lazily on the first call and starts with `server.version` (servers accept it
 * only as the first message). Any transport failure — refused connection, reset, a line that is
 * not JSON, a call that outlives its timeout (a stalled or half-open socket) — tears the session
 * down and fails every call in flight; the next call reconnects, after an exponential back-off
 * that resets once a handshake succeeds. A call never waits past its own deadline: when the next
 * attempt is further away than that, it fails at once.
 */
export class ElectrumConnection {
  private live: Live | null = null;
  private opening: Promise<Live> | null = null;
  private failures = 0;
  private nextAttemptAt = 0;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ElectrumConnectionOptions) {}

  /** Calls `method`; rejects with ElectrumRpcError (the server's refusal) or ElectrumTransportError. */
  async call(method: string, params: unknown[] = []): Promise<unknown> {
    const deadline = Date.now() + this.options.timeoutMs;
    const live = await this.session(deadline);
    return this.send(live, method, params, deadline);
  }

  /** Whether a session is open right now (its subscriptions are live). */
  get connected(): boolean {
    return this.live !== null;
  }

  /** Ends the session for good; calls after this fail. */
  close(): void {
    this.closed = true;
    if (this.live) this.teardown(this.live, new ElectrumTransportError('the connection was closed'));
  }

  private async session(deadline: number): Promise<Live> {
    if (this.closed) throw new ElectrumTransportError('the connection was closed');
    if (this.live) return this.live;
    if (!this.opening) {
      const wait = this.nextAttemptAt - Date.now();
      if (wait > deadline - Date.now()) throw new ElectrumTransportError('the server failed recently; waiting before reconnecting');
      this.opening = this.open(wait, deadline).finally(() => {
        this.opening = null;
      });
    }
    const opening = this.opening;
    return raceDeadline(opening, deadline);
  }

  private async open(waitMs: number, deadline: number): Promise<Live> {
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    let live: Live | null = null;
    try {
      const socket = await this.connectSocket(deadline);
      live = { socket, buffer: '', pending: new Map() };
      this.attach(live);
      const agreed = await this.send(live, 'server.version', [this.options.clientName, PROTOCOL_VERSION], deadline);
      if (!Array.isArray(agreed) || agreed[1] !== PROTOCOL_VERSION) throw new ElectrumTransportError('the server did not agree on protocol 1.4');
    } catch (err) {
      if (live) this.teardown(live, err instanceof Error ? err : new ElectrumTransportError(String(err)));
      this.failed();
      throw err instanceof ElectrumTransportError ? err : new ElectrumTransportError((err as Error).message);
    }
    if (this.closed) {
      this.teardown(live, new ElectrumTransportError('the connection was closed'));
      throw new ElectrumTransportError('the connection was closed');
    }
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.live = live;
    this.startPing(live);
    this.options.onConnected?.();
    return live;
  }

  private connectSocket(deadline: number): Promise<Socket> {
    const { host, port, tls } = this.options.endpoint;
    return new Promise<Socket>((resolve, reject) => {
      const socket = tls
        ? connectTls({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, ...this.options.tls })
        : connectTcp({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ElectrumTransportError('connecting timed out'));
      }, Math.max(0, deadline - Date.now()));
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new ElectrumTransportError(`cannot connect: ${err.message}`));
      });
    });
  }

  private attach(live: Live): void {
    const { socket } = live;
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.receive(live, chunk));
    socket.on('error', (err) => this.lost(live, new ElectrumTransportError(`connection error: ${err.message}`)));
    socket.on('close', () => this.lost(live, new ElectrumTransportError('the server closed the connection')));
  }

  private receive(live: Live, chunk: string): void {
    live.buffer += chunk;
    let newline: number;
    while ((newline = live.buffer.indexOf('\n')) !== -1) {
      const line = live.buffer.slice(0, newline).trim();
      live.buffer = live.buffer.slice(newline + 1);
      if (line === '') continue;
      if (!this.dispatch(live, line)) return this.lost(live, new ElectrumTransportError('the server sent a line that is not a JSON-RPC message'));
    }
    if (live.buffer.length > MAX_LINE_BYTES) this.lost(live, new ElectrumTransportError('the server sent an over-long line'));
  }

  /** Routes one line; false when it is not a well-formed JSON-RPC message. */
  private dispatch(live: Live, line: string): boolean {
    let message: { id?: unknown; result?: unknown; error?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      return false;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
    if (typeof message.method === 'string' && (message.id === undefined || message.id === null)) {
      this.options.onNotification?.(message.method, message.params);
      return true;
    }
    if (typeof message.id !== 'number') return false;
    const pending = live.pending.get(message.id);
    // A reply to a call that already timed out cannot happen: a timeout ends the session.
    if (!pending) return false;
    live.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined && message.error !== null) {
      const error = message.error as { code?: unknown; message?: unknown };
      pending.reject(new ElectrumRpcError(error.code, typeof error.message === 'string' ? error.message : JSON.stringify(message.error)));
    } else if (!('result' in message)) {
      return false;
    } else {
      pending.resolve(message.result);
    }
    return true;
  }

  private send(live: Live, method: string, params: unknown[], deadline: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => this.lost(live, new ElectrumTransportError(`${method} timed out`)), Math.max(0, deadline - Date.now()));
      live.pending.set(id, { resolve, reject, timer });
      live.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  private startPing(live: Live): void {
    const every = this.options.pingIntervalMs ?? 60_000;
    live.ping = setInterval(() => {
      this.send(live, 'server.ping', [], Date.now() + this.options.timeoutMs).catch(() => undefined);
    }, every);
    live.ping.unref();
  }

  /** A live session broke: fail its calls, forget it, and back off before the next attempt. */
  private lost(live: Live, error: ElectrumTransportError): void {
    const wasCurrent = this.live === live;
    this.teardown(live, error);
    if (wasCurrent) {
      this.live = null;
      if (!this.closed) this.failed();
    }
  }

  private teardown(live: Live, error: Error): void {
    if (live.ping) clearInterval(live.ping);
    live.socket.removeAllListeners('data');
    live.socket.destroy();
    const pending = [...live.pending.values()];
    live.pending.clear();
    for (const call of pending) {
      clearTimeout(call.timer);
      call.reject(error);
    }
  }

  private failed(): void {
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 250, maxMs: 30_000 };
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures, 16));
    this.failures += 1;
    // Jitter keeps a fleet of replicas from reconnecting in lock-step after an outage.
    this.nextAttemptAt = Date.now() + delay * (0.75 + Math.random() * 0.25);
  }
}

function raceDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ElectrumTransportError('connecting timed out')), Math.max(0, deadline - Date.now()));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
