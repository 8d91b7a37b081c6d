import { expect } from 'chai';
import fc from 'fast-check';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import {
  adminLogin,
  ADMIN_TOKEN,
  bootstrapAdmin,
  describeRequest,
  eachDialect,
  hostileRequest,
  operationsOf,
  seedSession,
  snapshotTables,
  tableNames,
  useFakes,
  useTestBackend,
  USER_TOKEN,
  type FuzzOperation,
  type HostileRequest,
} from '../../harness/index.js';
import { CoinGeckoFake } from '../../fakes/coingecko.js';
import { EsploraFake } from '../../fakes/esplora.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../../fakes/greenfield.js';
import { FAKE_GRIN_SECRET, GrinNodeFake } from '../../fakes/grin-node.js';
import { LwsFake, MonerodFake } from '../../fakes/lws.js';

/**
 * Property-based hostile input (issue 12, item 13): for every operation of the generated OpenAPI
 * document, plus the admin API (served but undocumented), fast-check generates requests with
 * one hostile dimension each — body, query, path parameter, Authorization and other headers,
 * content type, method — and every answer must be: never a 5xx; a 4xx carries the documented
 * error body; and a refused request changed no row (every table is hashed before and after).
 *
 *   WALLET_FUZZ_RUNS  runs per operation (default 25)
 *   WALLET_FUZZ_SEED  replay a run (printed in the test title and on failure)
 *   WALLET_FUZZ_STATS=1  print each operation's answers by status (to see what the runs reach)
 */
const RUNS = Math.max(1, Number(process.env.WALLET_FUZZ_RUNS ?? 25) || 25);
const SEED = process.env.WALLET_FUZZ_SEED !== undefined && process.env.WALLET_FUZZ_SEED !== '' ? Number(process.env.WALLET_FUZZ_SEED) | 0 : (Math.random() * 0x7fffffff) | 0;
const RERUN = `WALLET_FUZZ_SEED=${SEED} WALLET_FUZZ_RUNS=${RUNS} npx mocha test/core/http/hostile-property.test.ts`;
/** Bounds one operation's runs plus shrinking, so a slow failure cannot hold CI. */
const OPERATION_TIME_LIMIT_MS = 20_000;
const STATS = process.env.WALLET_FUZZ_STATS === '1';
const ERROR_CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Tables nothing in a request writes, or that change on their own (scheduler leases, migrations). */
const UNWATCHED_TABLES = new Set(['wallet_migrations', 'worker_leases']);

eachDialect('hostile input, property-based (fast-check)', (dialect) => {
  const btc = new EsploraFake();
  const ltc = new EsploraFake();
  const lws = new LwsFake();
  const monerod = new MonerodFake();
  const grin = new GrinNodeFake();
  const prices = new CoinGeckoFake();
  const btcpay = new GreenfieldFake();
  useFakes(btc, ltc, lws, monerod, grin, prices, btcpay);
  // Every optional feature on, each upstream a fake that answers: the most routes, each reaching its real work.
  const t = useTestBackend(dialect, () => ({
    plugins: [grinRelayPlugin({}), tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }), premiumPlugin({ enabled: true, plans: 'month:30:0.0001,year:365:0.001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' })],
    settings: {
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
      xmrLwsUrl: lws.url,
      xmrDaemonUrl: monerod.url,
      grinNodeUrl: grin.url,
      grinNodeApiSecret: FAKE_GRIN_SECRET,
      priceFeed: 'coingecko',
      priceFeedUrl: `${prices.url}/api/v3`,
      upstreamTimeoutMs: 1_000,
    },
  }));

  it(`every operation answers hostile requests without a 5xx, with the error body, changing nothing when refused (seed ${SEED}, ${RUNS} runs per operation)`, async function () {
    this.timeout(600_000);
    const { userId, auth } = await seedSession(t.backend);
    const { nostr } = await bootstrapAdmin(t);
    let adminToken = await adminLogin(t, nostr);
    const context = { userId, bodyLimitBytes: t.backend.settings.bodyLimitBytes, hints: { section: 'landing' } };

    // The admin API as its own document describes it to admin sessions: core's routes and every plugin's.
    const adminDocument = await t.client.get('/api/v1/admin/openapi.json', { token: adminToken });
    expect(adminDocument.status, adminDocument.text).to.equal(200);
    const operations: FuzzOperation[] = [...operationsOf(t.backend.openapi()), ...operationsOf(adminDocument.body, { admin: true })];
    expect(operations.length).to.be.greaterThan(40);
    const tables = (await tableNames(t.backend)).filter((name) => !UNWATCHED_TABLES.has(name));
    expect(tables).to.include.members(['users', 'sessions', 'user_keys', 'challenges', 'invite_codes', 'admin_keys', 'admin_sessions', 'admin_audit', 'grin_relay_entries', 'social_tips']);
    let snapshot = await snapshotTables(t.backend, tables);

    const send = async (request: HostileRequest) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        headers[name] = value.replaceAll(USER_TOKEN, auth.access_token).replaceAll(ADMIN_TOKEN, adminToken);
      }
      return t.client.request(request.method, request.path, { headers, ...(request.body !== undefined ? { raw: request.body } : {}) });
    };

    let statuses: Record<string, number> = {};
    const check = async (request: HostileRequest): Promise<void> => {
      const res = await send(request);
      const seen = `${res.status}${res.status >= 400 ? ` ${String(res.body?.error?.code)}` : ''}`;
      statuses[seen] = (statuses[seen] ?? 0) + 1;
      const after = await snapshotTables(t.backend, tables);
      const changed = tables.filter((table) => after[table] !== snapshot[table]);
      const before = snapshot;
      snapshot = after;
      if (res.status >= 500) throw new Error(`answered ${res.status}: ${res.text.slice(0, 400)}`);
      if (res.status >= 400) {
        const error = res.body?.error;
        if (typeof error?.code !== 'string' || !ERROR_CODE.test(error.code) || typeof error.message !== 'string') {
          throw new Error(`answered ${res.status} without the error body {error:{code,message}}: ${JSON.stringify(res.text.slice(0, 400))}`);
        }
        if (changed.length > 0) {
          throw new Error(`refused with ${res.status} ${error.code}, but changed ${changed.map((table) => `${table} (rows:hash ${before[table]} → ${after[table]})`).join(', ')}`);
        }
      }
      // The admin session this run uses may be ended by a valid-shaped logout; sign in again.
      if (res.status < 300 && request.path.startsWith('/api/v1/admin/logout')) {
        adminToken = await adminLogin(t, nostr);
        snapshot = await snapshotTables(t.backend, tables);
      }
    };

    const failures: string[] = [];
    const started = Date.now();
    for (const [index, operation] of operations.entries()) {
      statuses = {};
      const details = await fc.check(fc.asyncProperty(hostileRequest(operation, context), check), {
        seed: (SEED + index) | 0,
        numRuns: RUNS,
        interruptAfterTimeLimit: OPERATION_TIME_LIMIT_MS,
      });
      if (STATS) console.log(`    ${operation.method} ${operation.path}: ${JSON.stringify(statuses)}`);
      if (!details.failed) continue;
      const [request] = details.counterexample ?? [];
      const reason = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      failures.push(
        `${operation.method} ${operation.path} (fast-check seed ${details.seed}, path "${details.counterexamplePath}", after ${details.numRuns} runs, ${details.numShrinks} shrinks)\n` +
          `  ${reason}\n  request: ${request ? describeRequest(request) : '(none)'}`,
      );
    }
    const elapsed = Date.now() - started;
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} of ${operations.length} operations failed on ${dialect} (seed ${SEED}, ${RUNS} runs each, ${elapsed} ms).\n` +
          `Rerun: ${RERUN}\n\n${failures.join('\n\n')}`,
      );
    }
  });
});
