import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '@wallet/backend-core';
import { startServer } from '@wallet/server';
import { eachDialect, freshDatabaseUrl, useTestBackend, type TestBackend } from '../../harness/index.js';

/**
 * Issue 12 items 3 and 4, on raw sockets: a refused (413) body ends with `Connection: close`
 * and a closed socket instead of a wedged keep-alive connection, and a client that disconnects
 * mid-body is logged as its own doing (499 client_closed), never as a 500.
 */
interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server has ended or closed the connection (false if it has not within `ms`). */
  closedWithin(ms: number): Promise<boolean>;
  /** Resolves once `text` has arrived (or the connection closed). */
  waitFor(text: string, ms?: number): Promise<void>;
}

async function open(t: Pick<TestBackend, 'client'>): Promise<RawConnection> {
  const url = new URL(t.client.baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  let closed = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
    notify();
  });
  const onClosed = () => {
    closed = true;
    notify();
  };
  socket.on('end', onClosed);
  socket.on('close', onClosed);
  socket.on('error', () => {
    // A reset after the server closed: the assertions look at what arrived.
  });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const until = (done: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (done()) return resolve(true);
      const timer = setTimeout(() => {
        listeners.delete(check);
        resolve(done());
      }, ms);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve(true);
      };
      listeners.add(check);
    });
  return {
    socket,
    received: () => text,
    closedWithin: (ms) => until(() => closed, ms),
    waitFor: async (needle, ms = 2_000) => {
      await until(() => closed || text.includes(needle), ms);
    },
  };
}

/** The first response in `text`: status, lower-cased headers, body. */
function firstResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  expect(end, JSON.stringify(text)).to.be.greaterThan(0);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) };
}

const chunk = (data: string) => `${data.length.toString(16)}\r\n${data}\r\n`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HEALTH = 'GET /api/v1/health HTTP/1.1\r\nHost: test\r\n\r\n';

eachDialect('connections: refused bodies and client aborts', (dialect) => {
  const t = useTestBackend(dialect, { settings: { bodyLimitBytes: 1024 } });

  it('an over-limit chunked body gets its 413 with Connection: close, and the server closes the socket', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let i = 0; i < 3; i += 1) {
      conn.socket.write(chunk('x'.repeat(700)));
      await pause(20);
    }
    conn.socket.write('0\r\n\r\n');
    await conn.waitFor('payload_too_large');
    const res = firstResponse(conn.received());
    expect(res.status).to.equal(413);
    expect(res.headers.connection).to.equal('close');
    expect(JSON.parse(res.body).error.code).to.equal('payload_too_large');
    // The connection is not left wedged: the server closes it (before, a request sent on it stalled).
    expect(await conn.closedWithin(2_000)).to.equal(true);
    conn.socket.destroy();
    // The server itself is fine: a new connection is served.
    expect((await t.client.get('/api/v1/health')).status).to.equal(200);
  });

  it('an over-limit chunked body that never ends is still answered 413 and cut off', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    conn.socket.write(chunk('y'.repeat(2_000)));
    await conn.waitFor('payload_too_large');
    expect(firstResponse(conn.received())).to.include({ status: 413 });
    expect(firstResponse(conn.received()).headers.connection).to.equal('close');
    expect(await conn.closedWithin(2_000)).to.equal(true);
    conn.socket.destroy();
  });

  it('a declared Content-Length over the limit gets its 413 with Connection: close before the body is sent', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n');
    await conn.waitFor('payload_too_large');
    const res = firstResponse(conn.received());
    expect(res.status).to.equal(413);
    expect(res.headers.connection).to.equal('close');
    expect(await conn.closedWithin(2_000)).to.equal(true);
    conn.socket.destroy();
  });

  it('a keep-alive connection whose request fitted is reused as before', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    conn.socket.write(chunk('{"refresh_token":"nope"}'));
    conn.socket.write('0\r\n\r\n');
    await conn.waitFor('}}');
    expect(firstResponse(conn.received()).status).to.equal(400);
    expect(firstResponse(conn.received()).headers.connection).to.equal('keep-alive');
    conn.socket.write(HEALTH);
    await conn.waitFor('"status":"ok"');
    expect(conn.received()).to.include('"status":"ok"');
    conn.socket.destroy();
  });

  it('a client that disconnects mid-body is logged as 499 client_closed at info, with no error line', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nX-Request-Id: abort-test-0001\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"refresh');
    await pause(100);
    conn.socket.destroy();
    const deadline = Date.now() + 2_000;
    const line = () => t.logger.lines.find((l) => l.msg === 'request' && l.request_id === 'abort-test-0001');
    while (line() === undefined && Date.now() < deadline) await pause(20);
    expect(line(), t.logger.text()).to.include({ level: 'info', status: 499, code: 'client_closed', method: 'POST', path: '/api/v1/auth/refresh' });
    expect(t.logger.lines.filter((l) => l.level === 'error'), t.logger.text()).to.deep.equal([]);
    expect(t.logger.text()).to.not.include('"stack"');
    expect(t.logger.text()).to.not.include('internal_error');
  });

  it('a chunked body cut off mid-stream is 499 client_closed too', async () => {
    const conn = await open(t);
    conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nX-Request-Id: abort-test-0002\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    conn.socket.write(chunk('{"refresh_token":'));
    await pause(100);
    conn.socket.destroy();
    const deadline = Date.now() + 2_000;
    const line = () => t.logger.lines.find((l) => l.msg === 'request' && l.request_id === 'abort-test-0002');
    while (line() === undefined && Date.now() < deadline) await pause(20);
    expect(line(), t.logger.text()).to.include({ status: 499, code: 'client_closed' });
    expect(t.logger.lines.filter((l) => l.level === 'error'), t.logger.text()).to.deep.equal([]);
  });
});

eachDialect('reference server: HTTP timeouts', (dialect) => {
  it('a trickling body is cut at HTTP_REQUEST_TIMEOUT_SEC and logged as 499 client_closed, not 500; a bad value refuses the boot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wallet-timeouts-'));
    const lines: Array<Record<string, unknown>> = [];
    const running = await startServer(
      { DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect), HTTP_REQUEST_TIMEOUT_SEC: '2', HTTP_HEADERS_TIMEOUT_SEC: '1' },
      { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    try {
      const conn = await open({ client: { baseUrl: running.url } as TestBackend['client'] });
      const started = Date.now();
      conn.socket.write('POST /api/v1/auth/refresh HTTP/1.1\r\nHost: test\r\nX-Request-Id: trickle-test-01\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n');
      const trickle = setInterval(() => conn.socket.write('x'), 200);
      const closed = await conn.closedWithin(6_000);
      clearInterval(trickle);
      conn.socket.destroy();
      expect(closed, 'the server cut the trickling request').to.equal(true);
      expect(Date.now() - started).to.be.below(5_500);
      await pause(100);
      const request = lines.find((line) => line.msg === 'request' && line.request_id === 'trickle-test-01');
      expect(request, JSON.stringify(lines)).to.include({ level: 'info', status: 499, code: 'client_closed' });
      expect(lines.filter((line) => line.level === 'error')).to.deep.equal([]);
    } finally {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    const refused = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: await freshDatabaseUrl(dialect), HTTP_REQUEST_TIMEOUT_SEC: '0', HTTP_HEADERS_TIMEOUT_SEC: 'soon' }, { write: () => {} }).then(
      () => expect.fail('started'),
      (err: unknown) => err as BootError,
    );
    expect(refused).to.be.instanceOf(BootError);
    expect(refused.problems.join('\n')).to.include('HTTP_REQUEST_TIMEOUT_SEC').and.include('HTTP_HEADERS_TIMEOUT_SEC');
    rmSync(dataDir, { recursive: true, force: true });
  });
});
