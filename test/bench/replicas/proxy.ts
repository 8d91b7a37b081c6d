import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';

/**
 * A small round-robin HTTP proxy in front of the replicas, doing what a load balancer with health
 * checks does and no more: keep-alive connections to each upstream, `X-Forwarded-For` appended,
 * and an upstream taken out of rotation when it refuses a connection (down) or answers with
 * `Connection: close` (draining: the reference server says so on every answer once it stops). A
 * request whose connection was REFUSED goes to the next upstream (nothing was sent). An upstream
 * out of rotation is probed with `GET /api/v1/health` every 100 ms on a connection of its own and
 * comes back when it answers 200 without `Connection: close`. Once a request has been written to
 * an upstream it is never sent again: if that upstream breaks before answering, the client gets
 * 502 and the header `x-proxy-broken: <upstream index>`, so the bench can tell a killed replica's
 * in-flight requests from the replicas' own answers.
 *
 * Control, on the same port under `/__proxy/` (never forwarded): `GET /__proxy/stats` and
 * `POST /__proxy/upstreams` with `{"active":[indexes]}` to choose which upstreams take traffic.
 */
export interface UpstreamCounts {
  url: string;
  /** Requests written to it. */
  sent: number;
  /** Its answers by status class ("2xx", "4xx", …). */
  answered: Record<string, number>;
  /** Connections it refused (the request went to the next upstream). */
  refused: number;
  /** Requests it broke after they were sent (answered 502 by the proxy). */
  broken: number;
  /** Times it was taken out of rotation (refused, or said it is draining). */
  out: number;
}

const MAX_BODY = 256 * 1024;
const PROBE_EVERY_MS = 100;

/** Headers of one connection (RFC 9110 §7.6.1), which a proxy does not pass on. */
function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { connection: _connection, 'keep-alive': _keepAlive, 'transfer-encoding': _encoding, upgrade: _upgrade, ...rest } = headers;
  return rest;
}

export interface Proxy {
  url: string;
  server: Server;
  counts(): UpstreamCounts[];
  close(): Promise<void>;
}

export async function startProxy(port: number, upstreams: string[]): Promise<Proxy> {
  const counts: UpstreamCounts[] = upstreams.map((url) => ({ url, sent: 0, answered: {}, refused: 0, broken: 0, out: 0 }));
  const agents = upstreams.map(() => new Agent({ keepAlive: true, maxSockets: 256 }));
  const outOfRotation = upstreams.map(() => false);
  const takeOut = (index: number) => {
    if (outOfRotation[index]) return;
    outOfRotation[index] = true;
    counts[index]!.out += 1;
  };
  // Health probes of the upstreams out of rotation, each on a connection of its own.
  const probing = new Set<number>();
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe = (index: number) => {
    probing.add(index);
    // A keep-alive request (as the traffic's), so a draining upstream's `Connection: close` tells.
    const req = request(`${upstreams[index]}/api/v1/health`, { agent: probeAgent }, (res) => {
      res.resume();
      res.on('end', () => {
        probing.delete(index);
        if (res.statusCode === 200 && res.headers.connection !== 'close') outOfRotation[index] = false;
      });
    });
    req.on('error', () => probing.delete(index));
    req.end();
  };
  const prober = setInterval(() => {
    for (let i = 0; i < upstreams.length; i++) if (outOfRotation[i] && !probing.has(i)) probe(i);
  }, PROBE_EVERY_MS);
  let active = upstreams.map((_, i) => i);
  let next = 0;

  /** The next active upstream in turn, in rotation if any is (else any not yet tried). */
  const pick = (tried: Set<number>): number | undefined => {
    const candidates = active.filter((i) => !tried.has(i));
    if (candidates.length === 0) return undefined;
    const up = candidates.filter((i) => !outOfRotation[i]);
    const from = up.length > 0 ? up : candidates;
    return from[next++ % from.length];
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<number>) => {
    const index = pick(tried);
    if (index === undefined) {
      res.writeHead(503, { 'content-type': 'application/json', 'x-proxy-refused': 'all' }).end('{"error":"no_upstream"}');
      return;
    }
    tried.add(index);
    const target = new URL(upstreams[index]!);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const headers = { ...withoutHopByHop(req.headers), 'x-forwarded-for': forwardedFor, host: req.headers.host ?? target.host, 'content-length': String(body.length) };
    let written = false;
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: agents[index] }, (answer) => {
      const status = answer.statusCode ?? 0;
      const group = `${Math.floor(status / 100)}xx`;
      counts[index]!.answered[group] = (counts[index]!.answered[group] ?? 0) + 1;
      if (answer.headers.connection === 'close') takeOut(index);
      res.writeHead(status, withoutHopByHop(answer.headers));
      // An upstream that dies mid-body: the client's answer is cut too, never left open.
      pipeline(answer, res, (err) => {
        if (err) res.destroy();
      });
    });
    upstream.on('socket', (socket) => {
      const mark = () => {
        written = true;
      };
      if (socket.connecting) socket.once('connect', mark);
      else mark();
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!written && (err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET')) {
        counts[index]!.refused += 1;
        takeOut(index);
        forward(req, res, body, tried);
        return;
      }
      counts[index]!.broken += 1;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json', 'x-proxy-broken': String(index) }).end(JSON.stringify({ error: 'upstream_broken', detail: err.code ?? err.message }));
      else res.destroy();
    });
    counts[index]!.sent += 1;
    upstream.end(body);
  };

  const control = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (req.method === 'GET' && req.url === '/__proxy/stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ upstreams: counts, active }));
      return;
    }
    if (req.method === 'POST' && req.url === '/__proxy/upstreams') {
      let wanted: unknown;
      try {
        wanted = (JSON.parse(body.toString()) as { active?: unknown }).active;
      } catch {
        wanted = undefined;
      }
      if (!Array.isArray(wanted) || wanted.length === 0 || !wanted.every((i): i is number => Number.isInteger(i) && (i as number) >= 0 && (i as number) < upstreams.length)) {
        res.writeHead(400).end();
        return;
      }
      active = wanted;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ active }));
      return;
    }
    res.writeHead(404).end();
  };

  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.startsWith('/__proxy/')) control(req, res, body);
      else forward(req, res, body, new Set());
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    counts: () => counts.map((c) => ({ ...c, answered: { ...c.answered } })),
    async close() {
      clearInterval(prober);
      probeAgent.destroy();
      for (const agent of agents) agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
