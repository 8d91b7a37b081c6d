import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { corsFromEnv, startServer, type RunningServer } from '@wallet/server';
import { freshSqliteUrl } from '../harness/index.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every header name as sent, lower-cased, once per occurrence (to catch a doubled header). */
  names: string[];
}

/** A request with full control of Origin and the preflight headers (fetch would add its own). */
function send(base: string, method: string, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          names: res.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase()),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const ALLOWED = 'https://wallet.example.test';
const ALSO_ALLOWED = 'http://localhost:5173';
const STRANGER = 'https://evil.example.test';
const PREFLIGHT = { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' };

const corsHeaders = (response: RawResponse) => response.names.filter((name) => name.startsWith('access-control-'));

describe('reference server: CORS_ORIGINS', () => {
  let dataDir: string;
  let running: RunningServer | undefined;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'wallet-cors-'))));
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string> = {}) => {
    running = await startServer({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: freshSqliteUrl(), ...env }, { write: () => undefined });
    return running.url;
  };

  it('is off by default: no CORS header for any origin, preflight or actual request', async () => {
    const url = await start();
    const actual = await send(url, 'GET', '/api/v1/health', { Origin: ALLOWED });
    expect(actual.status).to.equal(200);
    expect(corsHeaders(actual)).to.deep.equal([]);
    const preflight = await send(url, 'OPTIONS', '/api/v1/health', { Origin: ALLOWED, ...PREFLIGHT });
    expect(corsHeaders(preflight)).to.deep.equal([]);
  });

  it('an allowed origin: the preflight and the actual request get the headers, credentials off', async () => {
    const url = await start({ CORS_ORIGINS: ` ${ALLOWED} , ${ALSO_ALLOWED}` });
    for (const origin of [ALLOWED, ALSO_ALLOWED]) {
      const preflight = await send(url, 'OPTIONS', '/api/v1/auth/challenge', { Origin: origin, ...PREFLIGHT });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers['access-control-allow-origin']).to.equal(origin);
      expect(String(preflight.headers['access-control-allow-methods'])).to.include('POST');
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).to.include('authorization').and.include('content-type');
      expect(preflight.headers['access-control-max-age']).to.equal('600');
      expect(preflight.headers['access-control-allow-credentials']).to.equal(undefined);
      expect(String(preflight.headers.vary)).to.include('Origin');

      const actual = await send(url, 'GET', '/api/v1/health', { Origin: origin });
      expect(actual.status).to.equal(200);
      expect(actual.headers['access-control-allow-origin']).to.equal(origin);
      expect(String(actual.headers['access-control-expose-headers'])).to.equal('X-Request-Id,Retry-After');
      expect(actual.headers['access-control-allow-credentials']).to.equal(undefined);
      expect(actual.names.filter((name) => name === 'access-control-allow-origin')).to.have.length(1);
    }
  });

  it('an error answer (401) to an allowed origin carries the headers too, so the web wallet can read it', async () => {
    const url = await start({ CORS_ORIGINS: ALLOWED });
    const refused = await send(url, 'GET', '/api/v1/wallet/grin/relay/pending', { Origin: ALLOWED });
    expect(refused.status).to.equal(401);
    expect(refused.headers['access-control-allow-origin']).to.equal(ALLOWED);
    expect(refused.headers['x-request-id']).to.be.a('string');
    const missing = await send(url, 'GET', '/api/v1/no-such-route', { Origin: ALLOWED });
    expect(missing.status).to.equal(404);
    expect(missing.headers['access-control-allow-origin']).to.equal(ALLOWED);
  });

  it('a disallowed origin, a look-alike or no Origin at all gets no CORS header', async () => {
    const url = await start({ CORS_ORIGINS: ALLOWED });
    for (const origin of [STRANGER, `${ALLOWED}:443`, `${ALLOWED}.evil.test`, 'http://wallet.example.test', 'null']) {
      const preflight = await send(url, 'OPTIONS', '/api/v1/auth/challenge', { Origin: origin, ...PREFLIGHT });
      expect(corsHeaders(preflight), origin).to.deep.equal([]);
      const actual = await send(url, 'GET', '/api/v1/health', { Origin: origin });
      expect(actual.status).to.equal(200);
      expect(corsHeaders(actual), origin).to.deep.equal([]);
    }
    expect(corsHeaders(await send(url, 'GET', '/api/v1/health', {}))).to.deep.equal([]);
  });

  it('leaves NIP-05 alone: one Access-Control-Allow-Origin "*" and its own preflight, whatever the origin', async () => {
    const url = await start({ CORS_ORIGINS: ALLOWED });
    for (const origin of [ALLOWED, STRANGER]) {
      const actual = await send(url, 'GET', '/.well-known/nostr.json?name=nobody', { Origin: origin });
      expect(actual.names.filter((name) => name === 'access-control-allow-origin')).to.have.length(1);
      expect(actual.headers['access-control-allow-origin']).to.equal('*');
      const preflight = await send(url, 'OPTIONS', '/.well-known/nostr.json', { Origin: origin, 'Access-Control-Request-Method': 'GET' });
      expect(preflight.names.filter((name) => name === 'access-control-allow-origin')).to.have.length(1);
      expect(preflight.headers['access-control-allow-origin']).to.equal('*');
      expect(preflight.headers['access-control-max-age']).to.equal('86400');
    }
  });

  it('refuses anything but exact origins, with a hint; empty means off', () => {
    const problems: string[] = [];
    expect(corsFromEnv({ CORS_ORIGINS: '' }, problems)).to.equal(undefined);
    expect(corsFromEnv({}, problems)).to.equal(undefined);
    expect(problems).to.deep.equal([]);
    const settings = corsFromEnv({ CORS_ORIGINS: `${ALLOWED},${ALLOWED}/,*,https://Wallet.example.test,https://x.test/app,ftp://x.test,${ALLOWED}` }, problems);
    expect(settings).to.deep.equal({ origins: [ALLOWED] });
    expect(problems).to.have.length(5);
    expect(problems[0]).to.match(/^CORS_ORIGINS: "https:\/\/wallet\.example\.test\/" is not an exact origin.*did you mean https:\/\/wallet\.example\.test\?/);
    expect(problems[1]).to.match(/^CORS_ORIGINS: "\*" is not an exact origin/);
    expect(problems[2]).to.include('did you mean https://wallet.example.test?');
    expect(problems[3]).to.include('did you mean https://x.test?');
    expect(problems[4]).to.match(/^CORS_ORIGINS: "ftp:\/\/x\.test" is not an exact origin/);
  });

  it('a malformed CORS_ORIGINS refuses the boot', async () => {
    const refused = await start({ CORS_ORIGINS: '*' }).then(
      () => expect.fail('booted'),
      (err: unknown) => err as { problems: string[] },
    );
    expect(refused.problems[0]).to.match(/^CORS_ORIGINS: "\*" is not an exact origin/);
  });
});
