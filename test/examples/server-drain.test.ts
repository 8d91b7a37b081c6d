import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freshDatabaseUrl } from '../harness/index.js';

/**
 * The reference server's SIGTERM path (`close()`) under a client that keeps its connection busy,
 * as a load balancer's pool does: Node's `server.close()` alone keeps serving such a connection,
 * so the process would stop only at the drain timeout (seen: 6–9 s behind a proxy).
 */
eachDialect('reference server: draining a busy keep-alive connection', (dialect) => {
  let running: RunningServer | undefined;
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-drain-'))));
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the request in flight with Connection: close and stops within a second, not when the client lets go', async function () {
    this.timeout(30_000);
    running = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect) }, { write: () => undefined });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const answer = (req: ReturnType<typeof request>) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        });
        req.on('error', reject);
      });
    try {
      const first = request(`${running.url}/api/v1/health`, { agent });
      const warm = answer(first);
      first.end();
      expect(await warm).to.deep.equal({ status: 200, connection: 'keep-alive' });
      // The same connection; the body arrives in two parts, so the request is in the server's hands when close() begins.
      const body = JSON.stringify({ refresh_token: 'not-a-session' });
      const inFlight = request(`${running.url}/api/v1/auth/refresh`, { agent, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
      const answered = answer(inFlight);
      inFlight.write(body.slice(0, 10));
      await sleep(100);
      const started = Date.now();
      const closed = running.close().then(() => Date.now() - started);
      await sleep(100);
      inFlight.end(body.slice(10));
      expect(await answered).to.deep.equal({ status: 400, connection: 'close' });
      // The keep-alive agent would hold the connection for its timeout (5 s) had the answer let it.
      expect(await closed, 'close() took').to.be.below(1_000);
    } finally {
      agent.destroy();
    }
  });
});
