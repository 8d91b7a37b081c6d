import { expect } from 'chai';
import * as v from 'valibot';
import { BootError, defineRoute, type AnyRoute, type WalletPlugin } from '@wallet/backend-core';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { buildOpenApiDocument } from '../../../packages/core/src/http/index.js';
import { createTestBackend, eachDialect, everyFeatureConfig, extensionWallet, fullOpenApiDocument, rejectionOf, useTestBackend } from '../../harness/index.js';

/** The document fit for generated clients (issue 33): operationIds, named bodies, typed capabilities, error codes, per-server paths. */
type Json = Record<string, any>;

function operations(document: Json): Array<[string, Json]> {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) => Object.entries<Json>(item).map(([method, op]): [string, Json] => [`${method.toUpperCase()} ${path}`, op]));
}

describe('OpenAPI for generated clients: the full document', () => {
  let document: Json;
  before(async () => {
    document = await fullOpenApiDocument();
  });

  it('gives every operation an explicit, unique, camelCase verb-first operationId', () => {
    const ids = operations(document).map(([, op]) => op.operationId as string);
    for (const id of ids) expect(id).to.match(/^[a-z][A-Za-z0-9]*$/).and.not.match(/^(get|post|put|delete)ApiV1/);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(document.paths['/api/v1/capabilities'].get.operationId).to.equal('getCapabilities');
    expect(document.paths['/api/v1/auth/nostr'].post.operationId).to.equal('loginWithNostr');
    expect(document.paths['/api/v1/tips/social'].post.operationId).to.equal('createTip');
  });

  it('names every request and JSON response body (no inline body schema)', () => {
    for (const [where, op] of operations(document)) {
      if (op.requestBody) expect(op.requestBody.content['application/json'].schema, `${where} body`).to.have.all.keys('$ref');
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (response.content) expect(response.content['application/json'].schema, `${where} ${status}`).to.have.all.keys('$ref');
      }
    }
  });

  it('lists error codes on every error response, each a known code of its status', () => {
    for (const [where, op] of operations(document)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response['x-error-codes'], `${where} ${status}`).to.be.an('array');
      }
    }
    const codes = (path: string, method: string, status: string) => document.paths[path][method].responses[status]['x-error-codes'];
    expect(codes('/api/v1/users/me/username', 'post', '409')).to.deep.equal(['username_unavailable']);
    expect(codes('/api/v1/users/me/username', 'post', '400')).to.include.members(['invalid_request', 'invalid_json', 'username_invalid']);
    expect(codes('/api/v1/auth/me', 'get', '401')).to.deep.equal(['unauthorized']);
    expect(codes('/api/v1/auth/refresh', 'post', '429')).to.deep.equal(['rate_limited']);
    expect(codes('/api/v1/tips/social', 'post', '400')).to.include('tips_off');
  });

  const route = (path: string, operationId?: string): AnyRoute =>
    defineRoute({ method: 'GET', path, ...(operationId === undefined ? {} : { operationId }), summary: path, auth: 'none', response: v.pipe(v.object({}), v.title('Empty')), handler: () => ({}) });

  it('documents a route that declares no operationId (an outside plugin’s) under one derived from its path; refuses one declared twice or not camelCase', () => {
    const build = (...routes: AnyRoute[]) => buildOpenApiDocument(routes, { title: 't', version: '0' }) as { paths: Record<string, { get: { operationId: string } }> };
    expect(build(route('/things/{id}/parts')).paths['/api/v1/things/{id}/parts']!.get.operationId).to.equal('getApiV1ThingsIdParts');
    expect(() => build(route('/a', 'getThing'), route('/b', 'getThing'))).to.throw(/operationId "getThing" is declared by both GET \/api\/v1\/a and GET \/api\/v1\/b/);
    expect(() => build(route('/a', 'Get-thing'))).to.throw(/not camelCase/);
  });

  it('refuses the boot when a plugin declares an operationId core already uses', async () => {
    const clash: WalletPlugin = { name: 'clash', version: '1.0.0', routes: ['GET /api/v1/clash'], setup: (ctx) => ctx.routes.add(route('/clash', 'getCapabilities')) };
    const refused = await rejectionOf(createTestBackend('sqlite', { plugins: [clash] }));
    expect(refused).to.be.instanceOf(BootError);
    expect((refused as Error).message).to.include('operationId "getCapabilities" is declared by both GET /api/v1/capabilities and GET /api/v1/clash');
  });
});

eachDialect('OpenAPI for generated clients: a live server', (dialect) => {
  describe('with tips and premium off', () => {
    const t = useTestBackend(dialect, { plugins: [tipsPlugin({ enabled: false }), premiumPlugin({ enabled: false })] });

    it('serves a document without tips or premium paths, though the routes still answer', async () => {
      const doc = (await t.client.get('/api/v1/openapi.json')).body as Json;
      expect(Object.keys(doc.paths).filter((path) => /^\/api\/v1\/(tips|premium)\//.test(path))).to.deep.equal([]);
      const off = await t.client.get('/api/v1/premium/status');
      expect(off.status).to.not.equal(404);
    });

    it('names in CapabilitiesResponse every key /capabilities returns', async () => {
      const doc = (await t.client.get('/api/v1/openapi.json')).body as Json;
      expect(doc.paths['/api/v1/capabilities'].get.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/CapabilitiesResponse' });
      const schema = doc.components.schemas.CapabilitiesResponse;
      const live = (await t.client.get('/api/v1/capabilities')).body as Json;
      expect(Object.keys(schema.properties)).to.include.members(Object.keys(live));
      expect(Object.keys(live)).to.include.members(schema.required);
    });
  });

  describe('with tips and premium on', () => {
    it('serves a document with the tips and premium paths, and names every live capability', async () => {
      const { databaseUrl: _db, publicApiUrl: _url, ...settings } = await everyFeatureConfig();
      const t = await createTestBackend(dialect, {
        settings,
        plugins: [
          tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }),
          premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
        ],
      });
      try {
        const doc = (await t.client.get('/api/v1/openapi.json')).body as Json;
        expect(doc.paths).to.include.keys('/api/v1/tips/social', '/api/v1/premium/status');
        const live = (await t.client.get('/api/v1/capabilities')).body as Json;
        expect(live).to.include.keys('tips', 'premium_relay', 'premium', 'registration_price');
        expect(Object.keys(doc.components.schemas.CapabilitiesResponse.properties)).to.include.members(Object.keys(live));
      } finally {
        await t.close();
      }
    });
  });

  describe('a real error is listed on its route', () => {
    const t = useTestBackend(dialect);

    it('a taken username (username_unavailable) and a missing token (unauthorized)', async () => {
      const doc = (await t.client.get('/api/v1/openapi.json')).body as Json;
      const listed = (path: string, method: string, status: number) => doc.paths[path][method].responses[String(status)]?.['x-error-codes'] ?? [];
      const first = await extensionWallet(t);
      const second = await extensionWallet(t);
      expect((await t.client.post('/api/v1/users/me/username', { username: 'taken_name' }, { token: first.token })).status).to.equal(200);
      const taken = await t.client.post('/api/v1/users/me/username', { username: 'taken_name' }, { token: second.token });
      expect(taken.body.error.code).to.equal('username_unavailable');
      expect(listed('/api/v1/users/me/username', 'post', taken.status)).to.include(taken.body.error.code);
      const bad = await t.client.post('/api/v1/users/me/username', { username: '!' }, { token: first.token });
      expect(listed('/api/v1/users/me/username', 'post', bad.status)).to.include(bad.body.error.code);
      const anonymous = await t.client.get('/api/v1/auth/me');
      expect(listed('/api/v1/auth/me', 'get', anonymous.status)).to.include(anonymous.body.error.code);
      const refresh = await t.client.post('/api/v1/auth/refresh', { refresh_token: 'a.b.c' });
      expect(listed('/api/v1/auth/refresh', 'post', refresh.status)).to.include(refresh.body.error.code);
    });
  });
});
