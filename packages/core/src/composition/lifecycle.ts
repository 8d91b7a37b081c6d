import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SetupLatch } from '../admin/index.js';
import { BootError } from '../errors/index.js';
import { startMetricsListener, type ListenAddress, type MetricsListener, type PrometheusMetrics } from '../metrics/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { requestDrain, type RequestListener } from '../http/index.js';

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
  listener: () => RequestListener;
  /** What `close()` releases once the listeners and the scheduler stopped: plugins' handlers, then the pool. */
  release: () => Promise<void>;
}

/** `start()` and `close()`: listeners up in order, and down in the reverse, draining what is in flight. */
export function lifecycle(parts: LifecycleParts): { start(options?: StartOptions): Promise<StartResult>; close(): Promise<void> } {
  let server: Server | undefined;
  const requests = requestDrain();
  let metricsListener: MetricsListener | undefined;
  let closing: Promise<void> | undefined;
  return {
    async start(options = {}) {
      await checkSetupLatch(parts.latch);
      if (parts.metrics !== null && metricsListener === undefined) metricsListener = await startMetricsListener(parts.metrics.exposition, parts.metrics.address);
      const metricsUrl = metricsListener === undefined ? {} : { metricsUrl: metricsListener.url };
      if (parts.schedulerEnabled) parts.scheduler.start();
      if (options.port === undefined) return metricsUrl;
      const listening = createServer(requests.track(parts.listener()));
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
        if (server) await requests.drain(server);
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
