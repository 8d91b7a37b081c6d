import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { eachDialect, NostrKey, REPO_ROOT, type TestBackend, type TestResponse } from '../harness/index.js';
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

/** The rows of docs/erasure.md's "Answers, with and without an account" table: situation → [account cell, no-account cell]. */
function documentedAnswers(): Map<string, [string, string]> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'erasure.md'), 'utf8');
  const section = doc.split('## Answers, with and without an account')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Situation') && !line.startsWith('|---'));
  return new Map(
    rows.map((line) => {
      const [situation, account, absent] = line.slice(2, -2).split(' | ');
      return [situation!, [account!, absent!]];
    }),
  );
}

/** A cell's answer as the server would give it: the status and the first code or value in backticks. */
function cellAnswer(cell: string): [number, string] {
  const match = /^(\d{3}) `([^`]+)`/.exec(cell);
  if (match === null) throw new Error(`docs/erasure.md: a cell that does not start with "<status> \`<code>\`": ${cell}`);
  return [Number(match[1]), match[2]!];
}

const served = (res: TestResponse): [number, string] => [res.status, (res.body?.error?.code ?? res.body?.status ?? res.body?.format) as string];

type Scenario = (t: TestBackend, key: NostrKey, account: boolean) => Promise<TestResponse>;

const sendRequest = async (t: TestBackend, key: NostrKey) => t.client.post(REQUEST_PATH, await proof(t, key, 'erasure_request', REQUEST_PATH));
const sendConfirm = async (t: TestBackend, key: NostrKey, id: string) => t.client.post(confirmPath(id), await proof(t, key, 'erasure_confirm', confirmPath(id)));
const sendCancel = async (t: TestBackend, key: NostrKey, id: string) => t.client.delete(cancelPath(id), await proof(t, key, 'erasure_cancel', cancelPath(id), 'DELETE'));
const nonceFor = async (t: TestBackend, purpose: string) => (await t.client.post(`${API}/account/erasure/challenge`, { purpose })).body.nonce as string;

/** Each documented situation, played with `key`; extra expectations (ids, nonces) checked inside. */
const SCENARIOS: Record<string, Scenario> = {
  'the proof does not verify: signature, time, `u`, method, `purpose` or `nonce` tag, descriptor': async (t, key) => {
    const nonce = await nonceFor(t, 'erasure_request');
    const now = t.clock.now();
    const wrong = [
      key.signedAction(EXPORT_PATH, nonce, 'erasure_request', now),
      key.signedAction(REQUEST_PATH, nonce, 'erasure_request', new Date(now.getTime() - 120_000)),
      key.signedAction(REQUEST_PATH, nonce, 'erasure_request', now, { method: 'DELETE' }),
      key.signedAction(REQUEST_PATH, nonce, 'erasure_export', now),
      key.signedAction(REQUEST_PATH, 'ab'.repeat(32), 'erasure_request', now),
      key.signedAction(REQUEST_PATH, nonce, 'erasure_request', now, { descriptorPath: EXPORT_PATH }),
      new NostrKey().signedAction(REQUEST_PATH, nonce, 'erasure_request', now).slice(0, -8) + 'AAAAAAA=',
    ];
    const answers = [];
    for (const nostr_token of wrong) answers.push(await t.client.post(REQUEST_PATH, { nostr_token, nonce }));
    expect(new Set(answers.map((res) => JSON.stringify(served(res)))).size, answers.map((res) => res.text).join('\n')).to.equal(1);
    // nothing used up: the same nonce still carries a good proof
    expect((await t.client.post(REQUEST_PATH, { nostr_token: key.signedAction(REQUEST_PATH, nonce, 'erasure_request', now), nonce })).status).to.equal(200);
    return answers[0]!;
  },
  'the nonce was used, has expired, is unknown, or was issued for another purpose': async (t, key) => {
    const used = await proof(t, key, 'erasure_request', REQUEST_PATH);
    expect((await t.client.post(REQUEST_PATH, used)).status).to.equal(200);
    const replayed = await t.client.post(REQUEST_PATH, used);
    const unknown = 'cd'.repeat(32);
    const unknownAnswer = await t.client.post(REQUEST_PATH, { nostr_token: key.signedAction(REQUEST_PATH, unknown, 'erasure_request', t.clock.now()), nonce: unknown });
    const other = await nonceFor(t, 'erasure_export');
    const otherAnswer = await t.client.post(REQUEST_PATH, { nostr_token: key.signedAction(REQUEST_PATH, other, 'erasure_request', t.clock.now()), nonce: other });
    const stale = await nonceFor(t, 'erasure_request');
    t.clock.advance(301_000);
    const expired = await t.client.post(REQUEST_PATH, { nostr_token: key.signedAction(REQUEST_PATH, stale, 'erasure_request', t.clock.now()), nonce: stale });
    for (const res of [unknownAnswer, otherAnswer, expired]) expect(served(res), res.text).to.deep.equal(served(replayed));
    return replayed;
  },
  request: (t, key) => sendRequest(t, key),
  'request again, while the first is live (*differs*)': async (t, key, account) => {
    const first = await sendRequest(t, key);
    const again = await sendRequest(t, key);
    expect(again.body.erasure_id === first.body.erasure_id, 'the same erasure_id').to.equal(account);
    return again;
  },
  'confirm your request': async (t, key) => sendConfirm(t, key, (await sendRequest(t, key)).body.erasure_id),
  'confirm an id that is not your request (*differs*)': (t, key) => sendConfirm(t, key, randomUUID()),
  'confirm a request that expired or was cancelled (*differs*)': async (t, key) => {
    const cancelled = (await sendRequest(t, key)).body.erasure_id as string;
    await sendCancel(t, key, cancelled);
    const afterCancel = await sendConfirm(t, key, cancelled);
    const expiring = (await sendRequest(t, key)).body.erasure_id as string;
    t.clock.advance(24 * 3_600_000);
    const afterExpiry = await sendConfirm(t, key, expiring);
    expect(served(afterExpiry), afterExpiry.text).to.deep.equal(served(afterCancel));
    return afterCancel;
  },
  'cancel within the grace period': async (t, key) => {
    const id = (await sendRequest(t, key)).body.erasure_id as string;
    await sendConfirm(t, key, id);
    t.clock.advance(72 * 3_600_000 - 60_000);
    return sendCancel(t, key, id);
  },
  'cancel an id that is not your request (*differs*)': (t, key) => sendCancel(t, key, randomUUID()),
  'cancel after the grace period, or a request that expired (*differs*)': async (t, key) => {
    const id = (await sendRequest(t, key)).body.erasure_id as string;
    await sendConfirm(t, key, id);
    t.clock.advance(72 * 3_600_000);
    const late = await sendCancel(t, key, id);
    const expiring = (await sendRequest(t, key)).body.erasure_id as string;
    t.clock.advance(24 * 3_600_000);
    const expired = await sendCancel(t, key, expiring);
    expect(served(expired), expired.text).to.deep.equal(served(late));
    return late;
  },
  export: async (t, key, account) => {
    const res = await t.client.post(EXPORT_PATH, await proof(t, key, 'erasure_export', EXPORT_PATH));
    expect(Object.keys(res.body.sections ?? {}).length > 0, 'sections').to.equal(account);
    return res;
  },
};

describe('erasure: docs/erasure.md answers table', () => {
  it('names exactly the situations this test plays', () => {
    expect([...documentedAnswers().keys()]).to.deep.equal(Object.keys(SCENARIOS));
  });
});

eachDialect('erasure: every documented answer, with and without an account', (dialect) => {
  const w = useErasureWorld(dialect);
  const documented = documentedAnswers();

  for (const [situation, play] of Object.entries(SCENARIOS)) {
    it(situation, async () => {
      const { t, user } = w;
      const [accountCell, absentCell] = documented.get(situation) ?? ['(row missing from docs/erasure.md)', ''];
      const present = await play(t, user.key, true);
      expect(served(present), `account: ${present.text}`).to.deep.equal(cellAnswer(accountCell));
      const stored = await counts(t);
      const absent = await play(t, new NostrKey(), false);
      expect(served(absent), `no account: ${absent.text}`).to.deep.equal(cellAnswer(absentCell));
      expect({ ...(await counts(t)), challenges: 0 }, 'nothing stored for a key without an account').to.deep.include({ requests: stored.requests, users: stored.users });
    });
  }
});
