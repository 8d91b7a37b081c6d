import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute } from '@wallet/backend-core';
import { buildOpenApiDocument } from '../../../packages/core/src/http/index.js';
import { fullOpenApiDocument as fullDocument } from '../../harness/index.js';

type Json = Record<string, any>;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');
/** The NIP-05 lookups answer every request with 200 (redocly.yaml exempts exactly these from the 4XX rule). */
const NEVER_REFUSES = new Set(['/.well-known/nostr.json', '/api/v1/.well-known/nostr.json']);

interface LintResult {
  exitCode: number;
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
}

/** `redocly lint` with the repository's redocly.yaml, offline: no telemetry, no update check. */
async function lint(document: Json): Promise<LintResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const run = promisify(execFile)(REDOCLY, ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    let stdout: string;
    let exitCode = 0;
    try {
      ({ stdout } = await run);
    } catch (err) {
      const failed = err as { code?: number; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw err;
      exitCode = failed.code;
      stdout = failed.stdout ?? '';
      if (!stdout.includes('"totals"')) throw new Error(`redocly lint failed without a report: ${failed.stderr ?? ''}`);
    }
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as Omit<LintResult, 'exitCode'>;
    return { exitCode, ...report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function describeProblems(result: LintResult): string {
  return result.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`).join('\n');
}

function operations(document: Json): Array<[string, Json]> {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) => Object.entries<Json>(item).map(([method, op]): [string, Json] => [`${method} ${path}`, op]));
}

describe('OpenAPI document lint (redocly, recommended ruleset)', function () {
  this.timeout(60_000);
  let document: Json;

  before(async () => {
    document = await fullDocument();
  });

  it('lints clean: exit 0, no error, no warning', async () => {
    const result = await lint(document);
    expect(result.totals, describeProblems(result)).to.deep.include({ errors: 0, warnings: 0 });
    expect(result.exitCode, describeProblems(result)).to.equal(0);
  });

  it('fails the lint when an operation loses its only 4XX', async () => {
    const broken = structuredClone(document);
    const health = broken.paths['/api/v1/health'].get;
    expect(Object.keys(health.responses).sort()).to.deep.equal(['200', '400']);
    delete health.responses['400'];
    const result = await lint(broken);
    expect(result.exitCode).to.not.equal(0);
    expect(result.problems.map((p) => `${p.ruleId} ${p.location?.[0]?.pointer ?? ''}`)).to.include('rule/operation-4xx-response #/paths/~1api~1v1~1health/get/responses');
  });

  it('fails the lint when a header component goes missing', async () => {
    const broken = structuredClone(document);
    delete broken.components.headers['X-Request-Id'];
    const result = await lint(broken);
    expect(result.exitCode).to.not.equal(0);
    expect(result.problems.some((p) => p.ruleId === 'no-unresolved-refs')).to.equal(true);
  });

  it('gives every operation but the NIP-05 lookups a 4XX', () => {
    for (const [where, op] of operations(document)) {
      const has4xx = Object.keys(op.responses).some((status) => status.startsWith('4'));
      expect(has4xx, where).to.equal(!NEVER_REFUSES.has(where.split(' ')[1]!));
    }
  });

  it('declares X-Request-Id on every response and Retry-After on every 429, once, by $ref', () => {
    expect(document.components.headers['X-Request-Id'].schema.type).to.equal('string');
    expect(document.components.headers['Retry-After'].schema).to.deep.equal({ type: 'integer', minimum: 1 });
    let limited = 0;
    for (const [where, op] of operations(document)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).to.deep.equal({ $ref: '#/components/headers/X-Request-Id' });
        if (status === '429') {
          limited++;
          expect(response.headers['Retry-After'], `${where} 429`).to.deep.equal({ $ref: '#/components/headers/Retry-After' });
        } else expect(response.headers, `${where} ${status}`).to.not.have.property('Retry-After');
      }
    }
    expect(limited).to.be.greaterThan(5);
  });

  it('names the shared schemas once in components and $refs them wherever they are used', () => {
    const { schemas } = document.components;
    expect(schemas).to.include.keys('AuthResponse', 'UserInfo', 'OkResponse', 'NonceResponse', 'UserKeyInfo', 'Nip05Document', 'UtxoAddressRequest', 'LwsViewRequest', 'GrinRelayEntry', 'GrinRelaySlateIdRequest');
    expect(schemas.AuthResponse.required).to.include.members(['access_token', 'refresh_token', 'user_id']);
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (path: string, method: string, status = '200') => document.paths[path][method].responses[status].content['application/json'].schema;
    const body = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema;
    for (const path of ['/api/v1/auth/refresh', '/api/v1/auth/extension', '/api/v1/auth/nostr', '/api/v1/auth/nostr/register', '/api/v1/auth/website/verify']) {
      expect(json(path, 'post'), path).to.deep.equal(ref('AuthResponse'));
    }
    expect(json('/api/v1/auth/me', 'get')).to.deep.equal(ref('UserInfo'));
    for (const path of ['/api/v1/auth/logout', '/api/v1/wallet/grin/broadcast', '/api/v1/wallet/lws/register', '/api/v1/wallet/lws/submit_tx']) {
      expect(json(path, 'post'), path).to.deep.equal(ref('OkResponse'));
    }
    expect(body('/api/v1/wallet/utxo/balance')).to.deep.equal(ref('UtxoAddressRequest'));
    expect(body('/api/v1/wallet/grin/relay/cancel')).to.deep.equal(ref('GrinRelaySlateIdRequest'));
    // Nested too: a user's key list and the relay's pending list hold the named item type.
    expect(json('/api/v1/users/{user_id}/keys', 'get')).to.deep.equal(ref('UserKeysResponse'));
    expect(schemas.UserKeysResponse.properties.keys.items).to.deep.equal(ref('UserKeyInfo'));
    expect(json('/api/v1/wallet/grin/relay/pending', 'get')).to.deep.equal(ref('GrinRelayPendingResponse'));
    expect(schemas.GrinRelayPendingResponse.properties.relays.items).to.deep.equal(ref('GrinRelayEntry'));
    // Every reference resolves, and no component is left unused.
    const text = JSON.stringify(document.paths) + JSON.stringify(schemas);
    for (const name of Object.keys(schemas)) expect(text, name).to.include(`"#/components/schemas/${name}"`);
  });
});

describe('OpenAPI named schemas (v.title)', () => {
  const route = (path: string, response: v.GenericSchema) => defineRoute({ method: 'GET', path, operationId: `get${path.replace(/\W/g, '')}`, summary: path, auth: 'bearer', response, handler: () => ({}) });
  const build = (...routes: ReturnType<typeof route>[]) => buildOpenApiDocument(routes, { title: 't', version: '0' }) as Json;

  it('refuses two different schemas under one name, naming both routes', () => {
    const a = v.pipe(v.object({ a: v.string() }), v.title('Thing'));
    const b = v.pipe(v.object({ b: v.number() }), v.title('Thing'));
    expect(() => build(route('/a', a), route('/b', b))).to.throw(/two different schemas are named "Thing": GET \/api\/v1\/a .* and GET \/api\/v1\/b/);
  });

  it('keeps one component for the same shape declared twice, and refuses a name that is no type name', () => {
    const one = v.pipe(v.object({ ok: v.literal(true) }), v.title('Ok'));
    const two = v.pipe(v.object({ ok: v.literal(true) }), v.title('Ok'));
    expect(Object.keys(build(route('/a', one), route('/b', two)).components.schemas)).to.deep.equal(['Ok', 'ErrorResponse']);
    expect(() => build(route('/c', v.pipe(v.object({}), v.title('not a type'))))).to.throw(/is not a type name/);
    expect(() => build(route('/d', v.pipe(v.object({}), v.title('ErrorResponse'))))).to.throw(/generator's own/);
  });
});
