import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SetupLatch } from '../admin/index.js';
import { BootError } from '../errors/index.js';
import { startMetricsListener, type ListenAddress, type MetricsListener, type PrometheusMetrics } from '../metrics/index.js';
import type { Scheduler } from '../scheduler/index.js';

const DRAIN_TIMEOUT_MS = 10_000;
/** After connections were cut, how long handlers still running get before the pool closes under them. */
const HANDLER_GRACE_MS = 2_000;

export interface StartOptions {
  /** Listen on this port (0: any free port). Without it only the scheduler starts. */
  port?: number;
  host?: string;
}

export interface StartResult {
  /** The API listener's base URL, when `start()` was given a port. */
  url?: string;
  /** The metrics listener's `/metrics` URL, when METRICS_LISTEN is set. */
  metricsUrl?: string;
}

export interface LifecycleParts {
  latch: SetupLatch;
  scheduler: Scheduler;
  schedulerEnabled: boolean;
  metrics: { exposition: PrometheusMetrics; address: ListenAddress } | null;
  listener: () => (req: IncomingMessage, res: ServerResponse) => unknown;
  /** What `close()` releases once the listeners and the scheduler stopped: plugins' handlers, then the pool. */
  release: () => Promise<void>;
}

/** `start()` and `close()`: listeners up in order, and down in the reverse, draining what is in flight. */
export function lifecycle(parts: LifecycleParts): { start(options?: StartOptions): Promise<StartResult>; close(): Promise<void> } {
  let server: Server | undefined;
  const inFlight = new InFlight();
  let metricsListener: MetricsListener | undefined;
  let closing: Promise<void> | undefined;
  return {
    async start(options = {}) {
      await checkSetupLatch(parts.latch);
      if (parts.metrics !== null && metricsListener === undefined) metricsListener = await startMetricsListener(parts.metrics.exposition, parts.metrics.address);
      const metricsUrl = metricsListener === undefined ? {} : { metricsUrl: metricsListener.url };
      if (parts.schedulerEnabled) parts.scheduler.start();
      if (options.port === undefined) return metricsUrl;
      const listening = createServer(inFlight.tracking(parts.listener()));
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
      });
      const address = listening.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return { url: `http://${host}:${address.port}`, ...metricsUrl };
    },
    close() {
      closing ??= (async () => {
        if (server) await drain(server, inFlight);
        await parts.scheduler.stop();
        // Last of the listeners, so a scrape during the drain still answers.
        await metricsListener?.close();
        await parts.release();
      })();
      return closing;
    },
  };
}

/**
 * The requests the backend's own server is answering: each response, and when its handler is
 * done (which can be after its connection went). Once draining, every response not yet started
 * says `Connection: close`, so a keep-alive client that keeps sending (a load balancer, a busy
 * app) ends its connection after the answer instead of holding the server open until the drain
 * timeout; Node's `server.close()` alone leaves such connections serving.
 */
class InFlight {
  private readonly handlers = new Map<ServerResponse, Promise<unknown>>();
  private draining = false;

  tracking(listener: (req: IncomingMessage, res: ServerResponse) => unknown): (req: IncomingMessage, res: ServerResponse) => void {
    // On every request: one map entry and one reaction on the listener's own promise, nothing more.
    const forget = (res: ServerResponse) => () => void this.handlers.delete(res);
    return (req, res) => {
      if (this.draining) res.setHeader('Connection', 'close');
      const done = listener(req, res);
      if (!(done instanceof Promise)) return;
      const gone = forget(res);
      this.handlers.set(res, done.then(gone, gone));
    };
  }

  beginDrain(): void {
    this.draining = true;
    for (const res of this.handlers.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /** Every handler that is still running has finished, or `ms` passed. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled([...this.handlers.values()]), late]);
    clearTimeout(timer);
  }
}

/**
 * Stops accepting, lets each connection end after its answer (idle ones at once), forces the
 * rest closed after DRAIN_TIMEOUT_MS, then waits (HANDLER_GRACE_MS at most) for handlers still
 * running, so the pool is not closed under a request that is still being answered.
 */
async function drain(listening: Server, inFlight: InFlight): Promise<void> {
  inFlight.beginDrain();
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => listening.closeAllConnections(), DRAIN_TIMEOUT_MS);
    force.unref();
    listening.close(() => {
      clearTimeout(force);
      resolve();
    });
    listening.closeIdleConnections();
  });
  await inFlight.settled(HANDLER_GRACE_MS);
}

/**
 * Start-up adoption of the setup latch, and its integrity check: a latch whose seal fails
 * (an edited `server_config`, or a changed ADMIN_KEY_INTEGRITY_SECRET) refuses the start.
 */
async function checkSetupLatch(latch: SetupLatch): Promise<void> {
  let state;
  try {
    state = await latch.adopt();
  } catch (err) {
    throw new BootError([`the setup latch cannot be read (${(err as Error).message}); run the migrations first`]);
  }
  if (state === 'tampered') {
    throw new BootError(['server_config failed its integrity check: the setup latch was edited or ADMIN_KEY_INTEGRITY_SECRET changed; refusing to start']);
  }
}
