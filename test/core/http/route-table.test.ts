import Router from '@koa/router';
import { expect } from 'chai';
import fc from 'fast-check';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { RouteTable, toRouterPath, type HttpMethod } from '../../../packages/core/src/http/index.js';
import { createTestBackend, eachDialect, useTestBackend } from '../../harness/index.js';

type Layer = Router['stack'][number];

/** The route @koa/router itself picks for a request (the first layer matching path and method), and its params. */
function routerPick(router: Router, method: string, path: string): { layer: Layer; params: Record<string, string> } | undefined {
  const layer = router.match(path, method).pathAndMethod[0];
  if (layer === undefined) return undefined;
  return { layer, params: layer.params(path, layer.captures(path), {}) as Record<string, string> };
}

/** A table over the router's own layers, each layer its own handler. */
function tableOf(router: Router): RouteTable<Layer> {
  return new RouteTable(
    router.stack.map((layer) => ({
      method: layer.methods.find((m) => m !== 'HEAD') as HttpMethod,
      path: String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      handler: layer,
    })),
  );
}

function routerOf(routes: Array<[HttpMethod, string]>): Router {
  const router = new Router();
  for (const [method, path] of routes) router.register(toRouterPath(path), [method], [async () => undefined]);
  return router;
}

/** Wherever the table answers, it answers as the router would: same route, same params. */
function expectAgreement(router: Router, table: RouteTable<Layer>, method: string, path: string): boolean {
  const mine = table.find(method, path);
  if (mine === undefined) return false;
  const theirs = routerPick(router, method, path);
  expect(theirs, `${method} ${path}: the table picked ${String(mine.handler.path)}, the router nothing`).to.not.equal(undefined);
  expect(String(mine.handler.path), `${method} ${path}`).to.equal(String(theirs!.layer.path));
  expect(mine.params, `${method} ${path}`).to.deep.equal(theirs!.params);
  return true;
}

describe('route table: picks what @koa/router picks', () => {
  it('a static route registered after a pattern that covers it is left to the pattern, as the router does', () => {
    const router = routerOf([
      ['GET', '/a/{x}'],
      ['GET', '/a/b'],
      ['GET', '/c/d'],
      ['GET', '/c/{y}'],
    ]);
    const table = tableOf(router);
    expect(table.find('GET', '/a/b')!.handler.path).to.equal('/a/:x');
    expect(table.find('GET', '/a/b')!.params).to.deep.equal({ x: 'b' });
    expect(table.find('GET', '/c/d')!.handler.path).to.equal('/c/d');
    expect(table.find('GET', '/c/e')!.params).to.deep.equal({ y: 'e' });
    for (const path of ['/a/b', '/c/d', '/c/e', '/a/zz']) expectAgreement(router, table, 'GET', path);
  });

  it('leaves to the router what it does not model: upper case, trailing or doubled slashes, HEAD, a parameter inside a segment', () => {
    const router = routerOf([
      ['GET', '/files/{name}.json'],
      ['GET', '/files/{id}'],
      ['GET', '/Mixed/Case'],
      ['POST', '/x/{y}'],
      ['GET', '/g/{n}.json'],
      ['GET', '/g/list'],
    ]);
    const table = tableOf(router);
    expect(table.find('GET', '/files/a.json')).to.equal(undefined); // the router takes the first, opaque route
    expect(table.find('GET', '/files/abc')).to.equal(undefined); // the opaque route comes first in its bucket
    expect(table.find('GET', '/FILES/abc')).to.equal(undefined);
    expect(table.find('GET', '/mixed/case')!.handler.path).to.equal('/Mixed/Case'); // the router is case-insensitive
    expect(table.find('GET', '/Mixed/Case')).to.equal(undefined);
    expect(table.find('POST', '/x/y/')).to.equal(undefined);
    expect(table.find('POST', '/x//y')).to.equal(undefined);
    expect(table.find('POST', '/x/')).to.equal(undefined);
    expect(table.find('HEAD', '/mixed/case')).to.equal(undefined);
    expect(table.find('GET', '/x/y')).to.equal(undefined); // no such method: 405 is the router's
    expect(routerPick(router, 'GET', '/mixed/case')!.layer.path).to.equal('/Mixed/Case');
    // A path without parameters behind a route the table cannot judge is the router's, however it is spelled.
    expect(routerPick(router, 'GET', '/g/list')!.layer.path).to.equal('/g/list');
    expect(table.find('GET', '/g/list')).to.equal(undefined);
  });

  it('an upper-case segment is the router\'s even where a later pattern would take it (the router may match an earlier literal)', () => {
    const router = routerOf([
      ['GET', '/u/keys/x'],
      ['GET', '/u/{id}/x'],
      ['GET', '/g/v{n}'],
    ]);
    const table = tableOf(router);
    expect(routerPick(router, 'GET', '/u/KEYS/x')!.layer.path).to.equal('/u/keys/x');
    expect(table.find('GET', '/u/KEYS/x')).to.equal(undefined);
    expect(table.find('GET', '/u/keys/x')!.handler.path).to.equal('/u/keys/x');
    expect(table.find('GET', '/u/other/x')!.params).to.deep.equal({ id: 'other' });
    // A parameter inside a segment is not a parameter of the whole segment.
    expect(routerPick(router, 'GET', '/g/w1')).to.equal(undefined);
    expect(table.find('GET', '/g/w1')).to.equal(undefined);
    expect(table.find('GET', '/g/v1')).to.equal(undefined);
  });

  it('decodes parameters as the router does, a malformed escape left as it is', () => {
    const router = routerOf([['GET', '/u/{name}/keys']]);
    const table = tableOf(router);
    for (const path of ['/u/a%20b/keys', '/u/%2f/keys', '/u/%e2%82%ac/keys', '/u/%zz/keys', '/u/%/keys']) {
      expect(expectAgreement(router, table, 'GET', path), path).to.equal(true);
    }
    expect(table.find('GET', '/u/%e2%82%ac/keys')!.params).to.deep.equal({ name: '€' });
    expect(table.find('GET', '/u/%zz/keys')!.params).to.deep.equal({ name: '%zz' });
  });
});

eachDialect('route table over every route the backend serves', (dialect) => {
  const t = useTestBackend(dialect, () => ({ plugins: [grinRelayPlugin({})] }));

  it('agrees with the router on generated requests (fast-check), and answers for the common paths', () => {
    const router = t.backend.router;
    const table = tableOf(router);
    const templates = router.stack.map((layer) => ({ method: layer.methods.find((m) => m !== 'HEAD')!, path: String(layer.path) }));
    expect(templates.length).to.be.greaterThan(50);
    const segment = fc.oneof(
      fc.constantFrom('keys', 'me', 'username', 'by-username', 'health', 'ready', 'api', 'v1', 'users', 'usernames', 'a', '%41', '%2F', 'X', '.well-known', 'nostr.json', 'relay', 'grin'),
      fc.stringMatching(/^[a-z0-9%._~-]{1,12}$/),
      fc.uuid(),
    );
    const fromTemplate = fc.record({ template: fc.constantFrom(...templates), values: fc.array(segment, { minLength: 4, maxLength: 4 }), method: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH')) }).map(({ template, values, method }) => {
      let i = 0;
      return { method: method ?? template.method, path: template.path.replace(/:[A-Za-z0-9_]+/g, () => values[i++ % values.length]!) };
    });
    const mutated = fc.tuple(fromTemplate, fc.constantFrom('none', 'upper', 'trailing', 'double', 'cut')).map(([request, how]) => {
      const path =
        how === 'upper' ? request.path.toUpperCase() : how === 'trailing' ? `${request.path}/` : how === 'double' ? request.path.replace('/', '//') : how === 'cut' ? request.path.slice(0, request.path.lastIndexOf('/')) || '/' : request.path;
      return { method: request.method, path };
    });
    const random = fc.record({ method: fc.constantFrom('GET', 'POST'), path: fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`) });
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(fromTemplate, mutated, random), ({ method, path }) => {
        if (expectAgreement(router, table, method, path)) answered++;
      }),
      { numRuns: 3_000 },
    );
    // Enough of the runs must reach the table's own answer for the agreement to mean something.
    expect(answered).to.be.greaterThan(600);
    for (const [method, path] of [
      ['GET', '/api/v1/health'],
      ['GET', '/api/v1/auth/me'],
      ['GET', '/.well-known/nostr.json'],
      ['GET', '/api/v1/usernames/alice'],
      ['GET', '/api/v1/users/4a8f6a0e-7d1c-4b7a-9f55-2d8a1c3e5b60/keys'],
      ['POST', '/api/v1/auth/refresh'],
      ['POST', '/api/v1/auth/extension'],
      ['POST', '/api/v1/wallet/grin/relay/create'],
      ['POST', '/api/v1/wallet/grin/scan'],
    ] as const) {
      expect(expectAgreement(router, table, method, path), `${method} ${path}`).to.equal(true);
    }
  });

  it('a route a host adds to backend.router later is served by the backend app through the router', async () => {
    const own = await createTestBackend(dialect);
    try {
      own.backend.router.get('/host/own', (ctx) => {
        ctx.body = { own: true };
      });
      expect((await own.client.get('/host/own')).body).to.deep.equal({ own: true });
      expect((await own.client.get('/api/v1/health')).body).to.deep.equal({ status: 'ok' });
      expect((await own.client.get('/API/V1/HEALTH')).body).to.deep.equal({ status: 'ok' });
      expect((await own.client.get('/api/v1/health/')).body).to.deep.equal({ status: 'ok' });
      const wrongMethod = await own.client.request('DELETE', '/api/v1/health');
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.body.error.code).to.equal('method_not_allowed');
    } finally {
      await own.close();
    }
  });
});
