import { expect } from 'chai';
import { eachDialect, NostrKey, type TestBackend, type TestResponse } from '../harness/index.js';
import { API, proof, useErasureWorld } from './harness.js';

const REQUEST_PATH = `${API}/account/erasure`;
const EXPORT_PATH = `${API}/account/export`;
const confirmPath = (id: string) => `${API}/account/erasure/${id}/confirm`;
const cancelPath = (id: string) => `${API}/account/erasure/${id}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The JSON shape of a value: keys and value kinds (uuid, iso, string, number, null, object, array). */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, k === 'sections' ? 'object' : shape(v)]));
  if (typeof value === 'string') return UUID.test(value) ? 'uuid' : ISO.test(value) ? 'iso' : `string:${value.length > 40 ? '…' : value}`;
  return typeof value;
}

const answer = (res: TestResponse) => ({ status: res.status, shape: shape(res.body) });

async function counts(t: TestBackend) {
  const knex = t.backend.db.knex;
  const n = async (table: string) => Number(((await knex(table).count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
  return { requests: await n('erasure_requests'), challenges: await n('challenges'), users: await n('users') };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

eachDialect('erasure: no existence oracle', (dialect) => {
  const w = useErasureWorld(dialect);

  /** request → confirm → cancel → export with `key`, each answer and how long it took. */
  async function cycle(t: TestBackend, key: NostrKey) {
    const timed = async (send: () => Promise<TestResponse>) => {
      const started = process.hrtime.bigint();
      const res = await send();
      return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 };
    };
    const requestBody = await proof(t, key, 'erasure_request', REQUEST_PATH);
    const request = await timed(() => t.client.post(REQUEST_PATH, requestBody));
    const id = request.res.body.erasure_id as string;
    const confirmBody = await proof(t, key, 'erasure_confirm', confirmPath(id));
    const confirm = await timed(() => t.client.post(confirmPath(id), confirmBody));
    const cancelBody = await proof(t, key, 'erasure_cancel', cancelPath(id), 'DELETE');
    const cancel = await timed(() => t.client.delete(cancelPath(id), cancelBody));
    const exportBody = await proof(t, key, 'erasure_export', EXPORT_PATH);
    const exported = await timed(() => t.client.post(EXPORT_PATH, exportBody));
    return { request, confirm, cancel, exported };
  }

  it('a key without an account gets the same statuses and JSON shapes as an account, and nothing is stored', async () => {
    const { t, user } = w;
    const stranger = new NostrKey();
    const present = await cycle(t, user.key);
    const afterPresent = await counts(t);
    expect(afterPresent).to.deep.equal({ requests: 1, challenges: 0, users: 1 });
    const absent = await cycle(t, stranger);
    expect(await counts(t), 'nothing stored for the stranger, its nonces consumed').to.deep.equal(afterPresent);

    const expected = {
      request: { status: 200, shape: { erasure_id: 'uuid', status: 'string:requested', confirm_by: 'iso', due_at: 'null' } },
      confirm: { status: 200, shape: { erasure_id: 'uuid', status: 'string:confirmed', confirm_by: 'null', due_at: 'iso' } },
      cancel: { status: 200, shape: { erasure_id: 'uuid', status: 'string:cancelled', confirm_by: 'null', due_at: 'null' } },
      exported: { status: 200, shape: { format: 'string:wallet-backend-export/1', exported_at: 'iso', sections: 'object' } },
    };
    for (const run of [present, absent]) {
      expect({ request: answer(run.request.res), confirm: answer(run.confirm.res), cancel: answer(run.cancel.res), exported: answer(run.exported.res) }).to.deep.equal(expected);
    }
    // the values too: the same clock gives the same times
    expect(absent.request.res.body.confirm_by).to.equal('2026-01-02T00:00:00.000Z');
    expect(present.request.res.body.confirm_by).to.equal('2026-01-02T00:00:00.000Z');
    expect(absent.confirm.res.body.due_at).to.equal(present.confirm.res.body.due_at);
    expect(absent.confirm.res.body.due_at).to.equal('2026-01-04T00:00:00.000Z');
    expect(absent.exported.res.body.exported_at).to.equal(present.exported.res.body.exported_at);
    // the documented difference: a key with no account has no sections
    expect(absent.exported.res.body.sections).to.deep.equal({});
    expect(Object.keys(present.exported.res.body.sections)).to.deep.equal(['core', 'erasure']);
    // response headers do not tell either
    for (const route of ['request', 'confirm', 'cancel', 'exported'] as const) {
      expect(absent[route].res.headers.get('content-type'), route).to.equal(present[route].res.headers.get('content-type'));
    }
  });

  it('a request by a key without an account stores nothing, and a stranger confirming or cancelling a real id changes nothing', async () => {
    const { t, user } = w;
    const real = await t.client.post(REQUEST_PATH, await proof(t, user.key, 'erasure_request', REQUEST_PATH));
    const id = real.body.erasure_id as string;
    const stranger = new NostrKey();
    const before = await t.backend.db.knex('erasure_requests');
    const confirm = await t.client.post(confirmPath(id), await proof(t, stranger, 'erasure_confirm', confirmPath(id)));
    expect([confirm.status, confirm.body]).to.deep.equal([200, { erasure_id: id, status: 'confirmed', confirm_by: null, due_at: '2026-01-04T00:00:00.000Z' }]);
    const cancel = await t.client.delete(cancelPath(id), await proof(t, stranger, 'erasure_cancel', cancelPath(id), 'DELETE'));
    expect([cancel.status, cancel.body]).to.deep.equal([200, { erasure_id: id, status: 'cancelled', confirm_by: null, due_at: null }]);
    expect(await t.backend.db.knex('erasure_requests')).to.deep.equal(before);
    expect((await t.client.get(`${API}/auth/me`, { token: user.token })).status).to.equal(200);
    expect(await t.backend.db.knex('admin_audit').count({ n: '*' })).to.deep.equal([{ n: dialect === 'sqlite' ? 0 : '0' }]);
  });

  it('present and absent answer in the same timing class (30 alternating runs per route, medians within 0.25×–4×)', async function () {
    this.timeout(180_000);
    const { t, user } = w;
    const stranger = new NostrKey();
    const times = { present: { request: [] as number[], confirm: [] as number[], cancel: [] as number[], exported: [] as number[] }, absent: { request: [] as number[], confirm: [] as number[], cancel: [] as number[], exported: [] as number[] } };
    for (let i = 0; i < 30; i++) {
      for (const [who, key] of (i % 2 === 0 ? [['present', user.key], ['absent', stranger]] : [['absent', stranger], ['present', user.key]]) as Array<['present' | 'absent', NostrKey]>) {
        const run = await cycle(t, key);
        for (const route of ['request', 'confirm', 'cancel', 'exported'] as const) {
          expect(run[route].res.status, `${who} ${route}: ${run[route].res.text}`).to.equal(200);
          times[who][route].push(run[route].ms);
        }
      }
    }
    const report: Record<string, string> = {};
    for (const route of ['request', 'confirm', 'cancel', 'exported'] as const) {
      const ratio = median(times.absent[route]) / median(times.present[route]);
      report[route] = ratio.toFixed(2);
      expect(ratio, `${route}: absent/present medians ${JSON.stringify(report)}`).to.be.within(0.25, 4);
    }
    expect(await counts(t)).to.deep.equal({ requests: 30, challenges: 0, users: 1 });
  });
});
