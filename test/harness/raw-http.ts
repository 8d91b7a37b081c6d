import { request as httpRequest } from 'node:http';

/** An answer as it came off the wire, minus what Node adds per connection or per second. */
export interface RawAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

/** The headers Node adds per connection or per second, not per answer. */
const VOLATILE = new Set(['date', 'keep-alive']);

/**
 * One request on a fresh connection over Node's raw client, so nothing is normalised away: the
 * parity tests compare two servers' answers byte for byte with it.
 */
export function sendRaw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    // An explicit length: Node's client sends a DELETE body with neither length nor chunking.
    const length: Record<string, string> = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...length, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (!VOLATILE.has(name)) kept[name] = String(value);
        resolve({ status: res.statusCode!, statusText: res.statusMessage ?? '', headers: kept, body: text });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
