import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Endpoint } from './http/endpoints.js';
import type { Seeded } from './http/fixtures.js';
import { assertSameHeaders } from './run.js';

/** A server answering every request 200 with a JSON body and these extra headers. */
async function serving(headers: Record<string, string>): Promise<{ name: string; url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { name: 'server', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const health: Endpoint = { id: 'health', label: 'GET /api/v1/health', target: 1, spec: async () => ({ method: 'GET', path: '/api/v1/health' }) };
const perRequestBody: Endpoint = {
  id: 'refresh',
  label: 'POST /api/v1/auth/refresh',
  target: 1,
  spec: async () => ({ method: 'POST', path: '/api/v1/auth/refresh', setupRequest: (request) => request }),
};
const seeded = {} as Seeded;

/** The bench's check that the bare yardstick answers with the wallet's headers (the work every response owes). */
describe('bench: the yardstick answers with the wallet’s headers', () => {
  const started: Server[] = [];
  const server = async (headers: Record<string, string>) => {
    const s = await serving(headers);
    started.push(s.server);
    return s;
  };
  after(async () => Promise.all(started.map((s) => new Promise((resolve) => s.close(resolve)))));

  it('passes when both send the same header names (values and Date aside)', async () => {
    const wallet = await server({ 'X-Request-Id': 'a1b2c3d4e5', 'Cache-Control': 'no-store' });
    const bare = await server({ 'X-Request-Id': 'ffffffffff', 'Cache-Control': 'no-store' });
    await assertSameHeaders(wallet, bare, seeded, [health]);
  });

  it('fails the bench, naming the endpoint and both header sets, when the bare server leaves a header out', async () => {
    const wallet = await server({ 'X-Request-Id': 'a1b2c3d4e5', 'Cache-Control': 'no-store' });
    const bare = await server({ 'Cache-Control': 'no-store' });
    const failure = await assertSameHeaders(wallet, bare, seeded, [health]).then(
      () => null,
      (err: Error) => err,
    );
    const [, bareNames, walletNames] = /the bare server answers health with headers (.*), the wallet with (.*): the yardstick/.exec(failure?.message ?? '') ?? [];
    expect(bareNames?.split(', ')).to.include('cache-control').and.not.include('x-request-id');
    expect(walletNames?.split(', ')).to.include.members(['cache-control', 'x-request-id']);
  });

  it('skips an endpoint whose requests are made one by one (a token or body used once)', async () => {
    const wallet = await server({ 'X-Request-Id': 'a1b2c3d4e5' });
    const bare = await server({});
    await assertSameHeaders(wallet, bare, seeded, [perRequestBody]);
  });
});
