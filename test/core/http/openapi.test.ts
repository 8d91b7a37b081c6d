import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute, type WalletPlugin } from '@wallet/backend-core';
import { eachDialect, TEST_PUBLIC_API_URL, useTestBackend } from '../../harness/index.js';

/** One internal route (served, undocumented) and one public route with a path parameter. */
function demoPlugin(): WalletPlugin {
  return {
    name: 'demo',
    setup(ctx) {
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/demo-internal/ping',
          operationId: 'pingDemoInternal',
          summary: 'Internal probe',
          auth: 'none',
          openapi: 'internal',
          handler: () => ({ pong: true }),
        }),
      );
      ctx.routes.add(
        defineRoute({
          method: 'GET',
          path: '/demo/{item_id}',
          operationId: 'getDemoItem',
          summary: 'One demo item',
          tags: ['demo'],
          auth: 'none',
          params: v.object({ item_id: v.pipe(v.string(), v.regex(/^[a-z0-9]{1,16}$/)) }),
          response: v.object({ item_id: v.string() }),
          handler: ({ params }) => ({ item_id: params.item_id }),
        }),
      );
    },
  };
}

type Json = Record<string, any>;

eachDialect('OpenAPI document', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [demoPlugin()] });

  async function served(): Promise<Json> {
    const res = await t.client.get('/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    return res.body as Json;
  }

  it('is OpenAPI 3.1 with the API version, licence, server and bearer scheme', async () => {
    const doc = await served();
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('0.3.0');
    expect(doc.info.license.name).to.equal('MIT');
    expect(doc.info.title).to.be.a('string').and.not.equal('');
    expect(doc.servers).to.deep.equal([{ url: TEST_PUBLIC_API_URL }]);
    expect(doc.components.securitySchemes.bearer_auth).to.deep.include({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorResponse.required).to.deep.equal(['error']);
  });

  it('documents the core routes with their security', async () => {
    const { paths } = await served();
    for (const [path, method] of [
      ['/api/v1/health', 'get'],
      ['/api/v1/capabilities', 'get'],
      ['/api/v1/wallet/heights', 'get'],
      ['/api/v1/auth/refresh', 'post'],
      ['/api/v1/auth/logout', 'post'],
      ['/api/v1/auth/me', 'get'],
    ] as const) {
      expect(paths, path).to.have.property(path);
      expect(paths[path], `${method} ${path}`).to.have.property(method);
      expect(paths[path][method].responses, `${method} ${path}`).to.be.an('object').that.is.not.empty;
    }
    expect(paths['/api/v1/wallet/heights'].get.security).to.deep.equal([{ bearer_auth: [] }]);
    expect(paths['/api/v1/auth/me'].get.security).to.deep.equal([{ bearer_auth: [] }]);
    expect(paths['/api/v1/auth/me'].get.responses).to.have.property('401');
    expect(paths['/api/v1/health'].get.security).to.deep.equal([]);
    expect(paths['/api/v1/auth/logout'].post.security).to.deep.equal([]);
    // Only rate-limited unauthenticated routes document 429.
    expect(paths['/api/v1/auth/logout'].post.responses).to.have.property('429');
    expect(paths['/api/v1/health'].get.responses).to.not.have.property('429');
    expect(paths['/api/v1/wallet/heights'].get.responses['200'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/ChainHeights' });
    const heights = (await served()).components.schemas.ChainHeights;
    expect(Object.keys(heights.properties).sort()).to.deep.equal(['btc', 'grin', 'ltc', 'wow', 'xmr']);
  });

  it('documents every identity, gate and directory route with its security and statuses', async () => {
    const { paths } = await served();
    const routes: Array<[string, 'get' | 'post', boolean, string[]]> = [
      ['/api/v1/auth/extension', 'post', false, ['200', '400', '401', '409']],
      ['/api/v1/auth/check-restore', 'post', false, ['200', '429']],
      ['/api/v1/auth/nostr', 'post', false, ['200', '401']],
      ['/api/v1/auth/nostr/link-challenge', 'get', true, ['200', '401']],
      ['/api/v1/auth/nostr/link', 'post', true, ['200', '401', '409']],
      ['/api/v1/auth/nostr/register-challenge', 'get', false, ['200']],
      ['/api/v1/auth/nostr/register', 'post', false, ['200', '401', '409']],
      ['/api/v1/auth/website/challenge', 'post', false, ['200', '400']],
      ['/api/v1/auth/website/verify', 'post', false, ['200', '400', '401']],
      ['/api/v1/auth/pow-challenge', 'post', false, ['200']],
      ['/api/v1/auth/payment-invoice', 'post', false, ['200', '400', '503']],
      ['/api/v1/keys', 'post', true, ['200', '400', '401']],
      ['/api/v1/users/{user_id}/keys', 'get', false, ['200', '400']],
      ['/api/v1/users/{user_id}/keys/{asset}', 'get', false, ['200', '400', '404']],
      ['/api/v1/usernames/{username}', 'get', false, ['200', '400', '429']],
      ['/api/v1/users/me/username', 'get', true, ['200', '401']],
      ['/api/v1/users/me/username', 'post', true, ['200', '401', '409']],
      ['/api/v1/wallet/grin/address/{addr}/user', 'get', true, ['200', '401']],
      ['/api/v1/.well-known/nostr.json', 'get', false, ['200']],
      ['/.well-known/nostr.json', 'get', false, ['200']],
      ['/api/v1/prices', 'get', false, ['200', '404']],
      ['/api/v1/landing', 'get', false, ['200']],
      ...['register', 'balance', 'history', 'unspent_outs', 'random_outs', 'submit_tx', 'height', 'confirmations'].map((name): [string, 'post', boolean, string[]] => [`/api/v1/wallet/lws/${name}`, 'post', true, ['200', '400', '401', '503']]),
      ['/api/v1/wallet/grin/height', 'get', true, ['200', '400', '401', '503']],
      ...['balance', 'history', 'utxos', 'fee', 'tip', 'broadcast'].map((name): [string, 'post', boolean, string[]] => [`/api/v1/wallet/utxo/${name}`, 'post', true, ['200', '400', '401', '503']]),
      ['/api/v1/wallet/grin/scan', 'post', true, ['200', '400', '401', '503']],
      ['/api/v1/wallet/grin/broadcast', 'post', true, ['200', '400', '401', '503']],
    ];
    for (const [path, method, bearer, statuses] of routes) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).to.be.an('object');
      expect(operation.security, `${method} ${path}`).to.deep.equal(bearer ? [{ bearer_auth: [] }] : []);
      expect(operation.responses, `${method} ${path}`).to.include.keys(...statuses);
    }
    expect(paths['/.well-known/nostr.json'].get.responses).to.not.have.property('429');
    // The lookup's first path is served but undocumented: it is ambiguous with /users/{user_id}/keys.
    expect(paths).to.not.have.property('/api/v1/users/by-username/{username}');
  });

  it('documents the 400 of a route without input, which the kit really answers (a NUL in the query)', async () => {
    const { paths } = await served();
    expect(paths['/api/v1/health'].get.responses['400'].description).to.match(/NUL character in the query string/);
    const res = await t.client.get('/api/v1/health?probe=%00');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it('serves the lookup of a user named like a path segment (keys) at both of its paths', async () => {
    for (const path of ['/api/v1/usernames/keys', '/api/v1/users/by-username/keys']) {
      const res = await t.client.get(path);
      expect(res.status, path).to.equal(200);
      expect(res.body, path).to.deep.include({ registered: false, username: 'keys' });
    }
  });

  it('describes the refresh body from the same schema that validates it', async () => {
    const { paths } = await served();
    const refresh = paths['/api/v1/auth/refresh'].post;
    expect(refresh.requestBody.required).to.equal(true);
    expect(refresh.requestBody.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/RefreshTokenRequest' });
    const schema = (await served()).components.schemas.RefreshTokenRequest;
    expect(schema.type).to.equal('object');
    expect(schema.required).to.include('refresh_token');
    expect(schema.properties.refresh_token.type).to.equal('string');
    expect(refresh.responses).to.include.keys('200', '400', '401', '413', '415', '429');
    expect(refresh.responses['400'].content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/ErrorResponse' });
  });

  it('leaves out itself and internal routes, which are still served', async () => {
    const { paths } = await served();
    expect(paths).to.not.have.property('/api/v1/openapi.json');
    expect(paths).to.not.have.property('/api/v1/demo-internal/ping');
    expect(JSON.stringify(paths)).to.not.include('demo-internal');
    expect(Object.keys(paths).filter((path) => path.startsWith('/api/v1/admin')), 'the admin API is internal').to.deep.equal([]);
    const internal = await t.client.get('/api/v1/demo-internal/ping');
    expect(internal.status).to.equal(200);
    expect(internal.body).to.deep.equal({ pong: true });
  });

  it('documents a public plugin route with its path parameter', async () => {
    const { paths } = await served();
    const item = paths['/api/v1/demo/{item_id}'];
    expect(item).to.have.property('get');
    expect(item.get.tags).to.deep.equal(['demo']);
    const parameters = item.get.parameters as Json[];
    expect(parameters).to.have.length(1);
    expect(parameters[0]).to.deep.include({ name: 'item_id', in: 'path', required: true });
    expect(parameters[0]!.schema.type).to.equal('string');
    expect(item.get.responses).to.have.property('400');
    // And the route answers through the router's `:item_id` form.
    const res = await t.client.get('/api/v1/demo/abc123');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ item_id: 'abc123' });
    const bad = await t.client.get('/api/v1/demo/NOT-OK');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('invalid_request');
    expect(bad.body.error.details[0].path).to.equal('params.item_id');
  });

  it('every operation id is unique', async () => {
    const { paths } = await served();
    const ids = Object.values(paths).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(ids.every((id) => typeof id === 'string' && id !== '')).to.equal(true);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('backend.openapi() is the served document', async () => {
    const doc = await served();
    expect(t.backend.openapi()).to.deep.equal(doc);
    // Served twice, it is the same document.
    expect(await served()).to.deep.equal(doc);
  });
});
