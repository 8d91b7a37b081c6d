import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrometheusMetrics } from './prometheus.js';

/** Where the metrics listener binds: parsed from `METRICS_LISTEN`. */
export interface ListenAddress {
  host: string;
  port: number;
}

const HOST_PORT = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/;

/**
 * `9464` (loopback), `127.0.0.1:9464`, `[::1]:9464` or `0.0.0.0:9464`. A bare port binds to
 * 127.0.0.1: exposing the series beyond the host takes an address written out on purpose.
 */
export function parseListenAddress(text: string): ListenAddress | null {
  const match = HOST_PORT.exec(text.trim());
  if (match === null) return null;
  const port = Number(match[2]);
  if (port > 65_535) return null;
  const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A listener of its own that answers `GET /metrics` and nothing else, so the series never share
 * a port (or a reverse proxy route) with the public API by accident.
 */
export async function startMetricsListener(metrics: PrometheusMetrics, address: ListenAddress): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    metrics.render().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
