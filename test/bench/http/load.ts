import autocannon from 'autocannon';

/** One request shape an endpoint is loaded with (autocannon's `requests` entry, per connection). */
export interface LoadSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request (a fresh body or token); gets autocannon's per-connection context. */
  setupRequest?: (request: autocannon.Request, context: Record<string, unknown>) => autocannon.Request;
  /** Sees every response (status, body, per-connection context). */
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  /** Called once per autocannon connection as it is made. */
  setupClient?: (client: autocannon.Client) => void;
  /** Figures the endpoint wants recorded after the run (bodies signed during the run, …). */
  notes?: () => Record<string, unknown>;
}

export interface LoadFigures {
  rps: number;
  requests: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  durationSec: number;
  notes?: Record<string, unknown>;
}

/** The headers a spec's requests are sent with: its own, and a JSON content type for a body. */
export const requestHeaders = (spec: LoadSpec): Record<string, string> => ({ ...(spec.body !== undefined || spec.method === 'POST' ? { 'content-type': 'application/json' } : {}), ...spec.headers });

/**
 * One autocannon run against `url` + spec. Fails loudly (with the first bad answer's status and
 * body) when anything but 2xx came back, or a request errored or timed out, or nothing at all
 * was answered (a warm-up may pass `allowEmpty`: a slow first request can outlast it).
 */
export async function load(label: string, url: string, spec: LoadSpec, connections: number, durationSec: number, options: { allowEmpty?: boolean } = {}): Promise<LoadFigures> {
  let firstBad: { status: number; body: string } | undefined;
  const request: autocannon.Request = {
    method: spec.method,
    path: spec.path,
    headers: requestHeaders(spec),
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    ...(spec.setupRequest ? { setupRequest: spec.setupRequest as never } : {}),
    onResponse: ((status: number, body: string, context: Record<string, unknown>) => {
      if ((status < 200 || status > 299) && firstBad === undefined) firstBad = { status, body: String(body).slice(0, 1_000) };
      spec.onResponse?.(status, body, context);
    }) as never,
  };
  const result = await autocannon({
    url,
    connections,
    duration: durationSec,
    timeout: 10,
    // autocannon only notices the end of `duration` on a sampling tick (1 s by default): a short
    // run ticks more often so it ends on time (req/s is computed from totals, not from samples).
    sampleInt: Math.max(50, Math.min(1_000, Math.round((durationSec * 1_000) / 5))),
    requests: [request],
    ...(spec.setupClient ? { setupClient: spec.setupClient } : {}),
  });
  const ok2xx = result['2xx'];
  const figures: LoadFigures = {
    rps: Math.round((ok2xx / Math.max(result.duration, 0.001)) * 10) / 10,
    requests: result.requests.total,
    ok2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    durationSec: result.duration,
    ...(spec.notes ? { notes: spec.notes() } : {}),
  };
  if (figures.non2xx > 0 || figures.errors > 0 || figures.timeouts > 0 || (ok2xx === 0 && !options.allowEmpty)) {
    const first = firstBad ? `; first bad answer: ${firstBad.status} ${firstBad.body}` : '';
    const notes = figures.notes ? `; ${JSON.stringify(figures.notes)}` : '';
    throw new Error(`${label}: ${ok2xx} 2xx, ${figures.non2xx} non-2xx, ${figures.errors} errors, ${figures.timeouts} timeouts${first}${notes}`);
  }
  return figures;
}
