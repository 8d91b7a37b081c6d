import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { erasurePlugin } from '@wallet/erasure';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { adminLogin, bootstrapAdmin, createTestBackend, eachDialect, seedSession, useFakes, sendRaw, type RawAnswer, type TestBackend } from '../../harness/index.js';
import { CoinGeckoFake } from '../../fakes/coingecko.js';
import { EsploraFake } from '../../fakes/esplora.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../../fakes/greenfield.js';
import { FAKE_GRIN_SECRET, GrinNodeFake } from '../../fakes/grin-node.js';
import { LwsFake, MonerodFake } from '../../fakes/lws.js';

/**
 * Dispatch parity: every route the backend serves answers the same bytes whichever way it is
 * served — (1) the backend's own listener (`start()`, `callback()`: the route table without a
 * Koa context), (2) Koa (`backend.app.callback()`: the table as app middleware), and (3) a host
 * app that mounts only the router (`host.use(backend.router.routes())`: each route with its own
 * boundary). The routes are read from the router itself, so a new route is covered without
 * touching this file. test/core/http/direct.test.ts compares (1) and (2) for hand-picked
 * requests; this one sweeps every declared route with requests that are refused before any
 * state changes (no credentials, a malformed body, a bad path parameter) plus the authenticated
 * GETs, which read.
 */


const REQUEST_ID = 'dispatch-parity-0001';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MALFORMED_JSON = '{not json';
const BAD_PARAM = 'not-a-uuid';
/** A path parameter nothing more specific fills: a well-formed id of nothing. */
const PLACEHOLDER_ID = '00000000-0000-4000-8000-000000000001';

/** One request on a fresh connection, with this test's request id (answers carry it). */
const send = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) => sendRaw(port, method, path, { 'x-request-id': REQUEST_ID, ...headers }, body);

async function listen(listener: RequestListener): Promise<Server> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function stop(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * The one allowance in the comparison: a 2xx that mints a challenge (a nonce, a PoW salt and
 * its signatures) carries fresh random values on every call, so two calls never match. In a
 * 2xx JSON body, a string of 32 or more lower-case hex digits is replaced by its length before
 * comparing; everything else, including the Content-Length, the keys, their order and every
 * other value, is compared byte for byte. An error answer is never masked.
 */
function comparable(answer: RawAnswer): RawAnswer {
  if (answer.status < 200 || answer.status >= 300) return answer;
  return { ...answer, body: answer.body.replace(/"([0-9a-f]{32,})"/g, (_whole, hex: string) => `"<random hex x${hex.length}>"`) };
}

/** A served route as the router holds it: a method and the router's path (`/api/v1/users/:user_id/keys`). */
interface ServedRoute {
  method: string;
  routerPath: string;
  /** The same path in OpenAPI form (`/api/v1/users/{user_id}/keys`). */
  openapiPath: string;
  paramNames: string[];
}

/** Every route the router serves, one per declared method (HEAD is the router's addition to GET, not declared). */
function servedRoutes(router: TestBackend['backend']['router']): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const layer of router.stack) {
    const routerPath = String(layer.path);
    const paramNames = (layer.paramNames ?? []).map((param) => String(param.name));
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, routerPath, openapiPath: routerPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), paramNames });
    }
  }
  return routes;
}

/** Router layers that answer at least one method (middleware layers from `router.use` have none). */
function routeLayerCount(router: TestBackend['backend']['router']): number {
  return router.stack.filter((layer) => layer.methods.length > 0).length;
}

eachDialect('dispatch parity: every route, three ways of serving (direct listener, Koa, router in a host app)', (dialect) => {
  // Every optional feature on (each upstream a fake that answers) and every shipped plugin: the most routes.
  const btc = new EsploraFake();
  const ltc = new EsploraFake();
  const xmrLws = new LwsFake();
  const monerod = new MonerodFake();
  const wowLws = new LwsFake();
  const wownerod = new MonerodFake();
  const grin = new GrinNodeFake();
  const prices = new CoinGeckoFake();
  const btcpay = new GreenfieldFake();
  useFakes(btc, ltc, xmrLws, monerod, wowLws, wownerod, grin, prices, btcpay);

  let t: TestBackend;
  let koaServer: Server | undefined;
  let hostServer: Server | undefined;

  before(async () => {
    t = await createTestBackend(dialect, {
      plugins: [
        grinRelayPlugin({}),
        tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }),
        premiumPlugin({ enabled: true, plans: 'month:30:0.0001,year:365:0.001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
        erasurePlugin({ enabled: true }),
      ],
      settings: {
        // Far above the ~1,000 requests sent here, so the limiters' counters never show.
        rateLimitMax: 1_000_000,
        restoreIpThreshold: 100_000,
        registrationRequireInvite: true,
        registrationRequirePow: true,
        powDifficulty: 2_000,
        registrationRequirePayment: true,
        registrationPrice: '0.0001',
        btcpayUrl: btcpay.url,
        btcpayStoreId: FAKE_STORE_ID,
        btcpayApiKey: FAKE_API_KEY,
        btcEsploraUrl: btc.url,
        ltcEsploraUrl: ltc.url,
        xmrLwsUrl: xmrLws.url,
        xmrDaemonUrl: monerod.url,
        wowLwsUrl: wowLws.url,
        wowDaemonUrl: wownerod.url,
        grinNodeUrl: grin.url,
        grinNodeApiSecret: FAKE_GRIN_SECRET,
        priceFeed: 'coingecko',
        priceFeedUrl: `${prices.url}/api/v3`,
        upstreamTimeoutMs: 1_000,
      },
    });
    // (2) Koa's own path to the same backend, as a host serving `backend.app` has it.
    koaServer = await listen(t.backend.app.callback());
    // (3) A host app of its own with only the backend's router mounted (docs/embedding.md).
    const host = new Koa();
    host.silent = true;
    host.use(t.backend.router.routes());
    hostServer = await listen(host.callback());
  });
  after(async () => {
    await stop(koaServer);
    await stop(hostServer);
    await t?.close();
  });

  it('answers every request to every declared route with the same status, status text, headers and body', async function () {
    this.timeout(120_000);
    const username = 'parity_alice';
    const { userId, auth } = await seedSession(t.backend, 'extension', { username });
    const { nostr } = await bootstrapAdmin(t);
    const adminToken = await adminLogin(t, nostr);
    const userBearer = { authorization: `Bearer ${auth.access_token}` };
    const adminBearer = { authorization: `Bearer ${adminToken}` };
    /** Plausible values, so a request with them reaches the route's real work; anything else gets a well-formed id. */
    const plausible: Record<string, string> = { user_id: userId, username, asset: 'btc', section: 'landing' };

    const servers: Array<[string, number]> = [
      ['direct listener (backend.callback())', Number(new URL(t.client.baseUrl).port)],
      ['Koa (backend.app.callback())', (koaServer!.address() as AddressInfo).port],
      ['host app (host.use(backend.router.routes()))', (hostServer!.address() as AddressInfo).port],
    ];

    const routes = servedRoutes(t.backend.router);
    const document = t.backend.openapi() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const exercised = new Set<string>();
    const divergences: string[] = [];
    const statuses = new Map<number, number>();
    let requests = 0;
    let divergent = 0;

    /** Sends one request through the three servers, in the same order every time, and records any divergence. */
    const same = async (route: ServedRoute, label: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> => {
      const answers: RawAnswer[] = [];
      for (const [, port] of servers) answers.push(await send(port, route.method, path, headers, body));
      requests++;
      const [first] = answers as [RawAnswer, ...RawAnswer[]];
      statuses.set(first.status, (statuses.get(first.status) ?? 0) + 1);
      const expected = JSON.stringify(comparable(first));
      if (answers.some((answer) => JSON.stringify(comparable(answer)) !== expected)) divergent++;
      answers.forEach((answer, i) => {
        if (i === 0 || JSON.stringify(comparable(answer)) === expected) return;
        divergences.push(
          `${route.method} ${path} [${label}]\n` +
            `    ${servers[0]![0]}: ${JSON.stringify(first)}\n` +
            `    ${servers[i]![0]}: ${JSON.stringify(answer)}`,
        );
      });
      return first;
    };

    for (const route of routes) {
      exercised.add(`${route.method} ${route.openapiPath}`);
      const fill = (bad?: string) =>
        route.routerPath.replace(/:([A-Za-z0-9_]+)/g, (_whole, name: string) => encodeURIComponent(name === bad ? BAD_PARAM : (plausible[name] ?? PLACEHOLDER_ID)));
      const path = fill();
      const carriesBody = BODY_METHODS.has(route.method);
      const malformed: [Record<string, string>, string] = [{ 'content-type': 'application/json' }, MALFORMED_JSON];

      // (a) No credentials, no body.
      const anonymous = await same(route, 'no auth, no body', path, {});

      // Which credentials the route takes: the document's security, or (for routes left out of
      // it, such as the admin API) a refusal of the anonymous request for want of a token.
      const documented = document.paths[route.openapiPath]?.[route.method.toLowerCase()];
      const anonymousCode = anonymous.status === 401 ? (JSON.parse(anonymous.body) as { error?: { code?: string } }).error?.code : undefined;
      const tokens: Array<[string, Record<string, string>]> = [];
      if ((documented?.security ?? []).length > 0 || anonymous.status === 401) tokens.push(['user token', userBearer]);
      if (anonymousCode === 'admin_unauthorized') tokens.push(['admin token', adminBearer]);
      const credentials: Array<[string, Record<string, string>]> = tokens.length > 0 ? tokens : [['no auth', {}]];

      for (const [who, bearer] of credentials) {
        // (b) With the token: a GET reads; a body is malformed, so nothing past the parser runs.
        if (carriesBody) await same(route, `${who}, malformed JSON body`, path, { ...bearer, ...malformed[0] }, malformed[1]);
        else if (tokens.length > 0) await same(route, who, path, bearer);
        // (c) Each path parameter bad in turn (with a malformed body where the method carries
        // one: parameters are checked first, and the body stops any handler that takes the value).
        for (const name of route.paramNames) {
          const label = `${who}, bad ${name}`;
          if (carriesBody) await same(route, `${label}, malformed JSON body`, fill(name), { ...bearer, ...malformed[0] }, malformed[1]);
          else await same(route, label, fill(name), bearer);
        }
      }
    }

    // Every route is covered: all the router's layers, and every operation of the document.
    expect(exercised.size, 'routes exercised vs router layers').to.be.at.least(routeLayerCount(t.backend.router));
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect([...exercised]).to.include.members(operations);
    // The sweep reaches success, no content, each refusal layer and the routes' own answers.
    expect([...statuses.keys()]).to.include.members([200, 204, 400, 401, 404]);
    if (process.env.WALLET_PARITY_STATS === '1') console.log(`    ${dialect}: ${exercised.size} routes, ${requests} requests x ${servers.length} servers, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);

    expect(divergences, `${divergent} of ${requests} requests answered differently (each line pair: the direct listener's answer, then the other's):\n\n${divergences.join('\n\n')}\n`).to.deep.equal([]);
  });
});
