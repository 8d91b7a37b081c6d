import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { armorSlatepack, grinRelayPlugin, MAX_SLATEPACK_BYTES } from '@wallet/grin-relay';
import { createTestBackend, eachDialect, seedSession, type TestBackend } from '../harness/index.js';

const REAL = JSON.parse(readFileSync(new URL('../fixtures/grin-slatepacks.json', import.meta.url), 'utf8')) as { owner_rpc: string; user_s1: string };
const SLATEPACK = REAL.owner_rpc;
const RESPONSE = REAL.user_s1;
const HOUR = 3_600_000;
const TX_HASH = 'AB'.repeat(32);

/** Hands the test the plugin context, to run the erasure and export hooks as the erasure feature will. */
function hookProbe(): WalletPlugin & { ctx?: PluginContext } {
  const probe: WalletPlugin & { ctx?: PluginContext } = { name: 'hook-probe', setup: (ctx) => void (probe.ctx = ctx) };
  return probe;
}

interface Party {
  id: string;
  token: string;
}

eachDialect('grin-relay: the slatepack mailbox', (dialect) => {
  const t = {} as TestBackend;
  const probe = hookProbe();
  let sender: Party;
  let recipient: Party;
  let stranger: Party;
  beforeEach(async () => {
    Object.assign(t, await createTestBackend(dialect, { plugins: [grinRelayPlugin({ expiryHours: 24 }), probe] }));
    const party = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { id: userId, token: auth.access_token };
    };
    [sender, recipient, stranger] = [await party(), await party(), await party()];
  });
  afterEach(() => t.close());

  /** Moves the clock; sessions outlive no access-token lifetime, so the parties sign in again. */
  const advance = async (ms: number) => {
    t.clock.advance(ms);
    for (const party of [sender, recipient, stranger]) party.token = (await t.backend.sessions.start(party.id, 'extension')).access_token;
  };

  const call = (who: Party | null, step: string, body?: unknown) =>
    step === 'pending'
      ? t.client.get('/api/v1/wallet/grin/relay/pending', who ? { token: who.token } : {})
      : t.client.post(`/api/v1/wallet/grin/relay/${step}`, body ?? {}, who ? { token: who.token } : {});
  const create = (slateId: string = randomUUID(), overrides: Record<string, unknown> = {}) =>
    call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: SLATEPACK, amount_nanogrin: 1_500_000_000, ...overrides });
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.code).to.equal(code);
  };

  describe('create', () => {
    it('stores the entry in the initial state with its expiry', async () => {
      const slateId = randomUUID();
      const res = await create(slateId.toUpperCase());
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({
        slate_id: slateId,
        sender_user_id: sender.id,
        recipient_user_id: recipient.id,
        amount_nanogrin: '1500000000',
        status: 'pending_recipient',
        slatepack: SLATEPACK,
        response_slatepack: null,
        tx_hash: null,
      });
      expect(new Date(res.body.expires_at).getTime() - new Date(res.body.created_at).getTime()).to.equal(24 * HOUR);
    });

    it('takes the whole u64 range as a decimal string', async () => {
      expect((await create(randomUUID(), { amount_nanogrin: '18446744073709551615' })).body.amount_nanogrin).to.equal('18446744073709551615');
    });

    it('refuses invalid input with 400 and stores nothing', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ recipient_user_id: randomUUID() }, 'relay_recipient_unknown'],
        [{ recipient_user_id: sender.id }, 'relay_recipient_self'],
        [{ recipient_user_id: 'nope' }, 'invalid_request'],
        [{ slate_id: 'not-a-uuid' }, 'invalid_request'],
        [{ slatepack: SLATEPACK.replace('8GQ', '9GQ') }, 'invalid_request'],
        [{ slatepack: 'hello' }, 'invalid_request'],
        [{ slatepack: armorSlatepack(new Uint8Array(48_000).fill(9)) }, 'invalid_request'],
        [{ amount_nanogrin: 0 }, 'invalid_request'],
        [{ amount_nanogrin: -5 }, 'invalid_request'],
        [{ amount_nanogrin: 1.5 }, 'invalid_request'],
        [{ amount_nanogrin: '18446744073709551616' }, 'invalid_request'],
        [{ amount_nanogrin: '007' }, 'invalid_request'],
        [{ amount_nanogrin: 2 ** 60 }, 'invalid_request'],
        [{ extra: true }, 'invalid_request'],
      ];
      for (const [overrides, code] of cases) expectError(await create(randomUUID(), overrides), 400, code);
      expect(await t.backend.db.knex('grin_relay_entries').count({ n: '*' }).first()).to.satisfy((row: { n: unknown }) => Number(row.n) === 0);
    });

    it('an oversized body is 413 before anything is parsed', async () => {
      const huge = `BEGINSLATEPACK. ${'a'.repeat(3 * MAX_SLATEPACK_BYTES)}. ENDSLATEPACK.`;
      expect((await create(randomUUID(), { slatepack: huge })).status).to.equal(413);
    });

    it('a used slate_id is 409, also when many create it at once', async () => {
      const slateId = randomUUID();
      expect((await create(slateId)).status).to.equal(200);
      expectError(await create(slateId), 409, 'relay_slate_exists');
      const raced = randomUUID();
      const statuses = (await Promise.all(Array.from({ length: 8 }, () => create(raced)))).map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(7);
    });

    it('needs a token', async () => {
      expect((await call(null, 'create', { recipient_user_id: recipient.id, slate_id: randomUUID(), slatepack: SLATEPACK, amount_nanogrin: 1 })).status).to.equal(401);
    });
  });

  describe('reading', () => {
    it('pending lists what awaits the caller’s response, oldest first, and nothing else', async () => {
      const first = (await create()).body.slate_id;
      await advance(1_000);
      const second = (await create()).body.slate_id;
      const answered = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: answered, response_slatepack: RESPONSE });
      expect((await call(recipient, 'pending')).body.relays.map((r: { slate_id: string }) => r.slate_id)).to.deep.equal([first, second]);
      expect((await call(sender, 'pending')).body.relays).to.deep.equal([]);
      await advance(25 * HOUR);
      expect((await call(recipient, 'pending')).body.relays).to.deep.equal([]);
    });

    it('get answers the two parties and is 404 for anyone else, as for an unknown slate', async () => {
      const slateId = (await create()).body.slate_id;
      expect((await call(sender, 'get', { slate_id: slateId })).body.status).to.equal('pending_recipient');
      expect((await call(recipient, 'get', { slate_id: slateId })).body.slatepack).to.equal(SLATEPACK);
      expectError(await call(stranger, 'get', { slate_id: slateId }), 404, 'relay_not_found');
      expectError(await call(sender, 'get', { slate_id: randomUUID() }), 404, 'relay_not_found');
      expect((await call(null, 'get', { slate_id: slateId })).status).to.equal(401);
    });
  });

  describe('transitions', () => {
    it('respond → pending_sender, finalize → finalized with the hash recorded', async () => {
      const slateId = (await create()).body.slate_id;
      const responded = await call(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
      expect(responded.body).to.deep.include({ status: 'pending_sender', response_slatepack: RESPONSE });
      const finalized = await call(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH });
      expect(finalized.body).to.deep.include({ status: 'finalized', tx_hash: TX_HASH.toLowerCase() });
    });

    it('respond is refused for the sender (409), a stranger (404), twice (409), after expiry (409) and with a bad slatepack (400)', async () => {
      const slateId = (await create()).body.slate_id;
      expectError(await call(sender, 'respond', { slate_id: slateId, response_slatepack: RESPONSE }), 409, 'relay_wrong_party');
      expectError(await call(stranger, 'respond', { slate_id: slateId, response_slatepack: RESPONSE }), 404, 'relay_not_found');
      expectError(await call(recipient, 'respond', { slate_id: slateId, response_slatepack: 'BEGINSLATEPACK. x. ENDSLATEPACK.' }), 400, 'invalid_request');
      expect((await call(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE })).status).to.equal(200);
      expectError(await call(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE }), 409, 'relay_not_awaiting_response');
      const late = (await create()).body.slate_id;
      await advance(24 * HOUR);
      expectError(await call(recipient, 'respond', { slate_id: late, response_slatepack: RESPONSE }), 409, 'relay_expired');
      expect((await call(sender, 'get', { slate_id: late })).body).to.deep.include({ status: 'pending_recipient', response_slatepack: null });
    });

    it('finalize is refused before the response (409), for the recipient (409), a stranger (404), a bad hash (400) and after expiry (409)', async () => {
      const slateId = (await create()).body.slate_id;
      expectError(await call(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }), 409, 'relay_not_awaiting_finalization');
      await call(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
      expectError(await call(recipient, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }), 409, 'relay_wrong_party');
      expectError(await call(stranger, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }), 404, 'relay_not_found');
      for (const tx_hash of ['ab'.repeat(31), 'zz'.repeat(32), '', 42]) expectError(await call(sender, 'finalize', { slate_id: slateId, tx_hash }), 400, 'invalid_request');
      await advance(24 * HOUR + 1);
      expectError(await call(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }), 409, 'relay_expired');
      expect((await call(sender, 'get', { slate_id: slateId })).body).to.deep.include({ status: 'pending_sender', tx_hash: null });
    });

    it('either party cancels anything but a finalized entry; a stranger gets 404', async () => {
      const byRecipient = (await create()).body.slate_id;
      expect((await call(recipient, 'cancel', { slate_id: byRecipient })).body.status).to.equal('cancelled');
      expect((await call(sender, 'cancel', { slate_id: byRecipient })).body.status).to.equal('cancelled');
      const bySender = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: bySender, response_slatepack: RESPONSE });
      expectError(await call(stranger, 'cancel', { slate_id: bySender }), 404, 'relay_not_found');
      expect((await call(sender, 'cancel', { slate_id: bySender })).body.status).to.equal('cancelled');
      expectError(await call(sender, 'finalize', { slate_id: bySender, tx_hash: TX_HASH }), 409, 'relay_not_awaiting_finalization');
      const done = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: done, response_slatepack: RESPONSE });
      await call(sender, 'finalize', { slate_id: done, tx_hash: TX_HASH });
      expectError(await call(recipient, 'cancel', { slate_id: done }), 409, 'relay_finalized');
      expect((await call(sender, 'get', { slate_id: done })).body.status).to.equal('finalized');
    });

    it('concurrent responds have exactly one winner', async () => {
      const slateId = (await create()).body.slate_id;
      const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => call(recipient, 'respond', { slate_id: slateId, response_slatepack: i % 2 ? RESPONSE : SLATEPACK })));
      const winners = responses.filter((res) => res.status === 200);
      expect(winners).to.have.length(1);
      expect(responses.filter((res) => res.status === 409)).to.have.length(5);
      expect((await call(sender, 'get', { slate_id: slateId })).body.response_slatepack).to.equal(winners[0]!.body.response_slatepack);
    });

    it('finalize racing cancel has exactly one winner, and the stored state is the winner’s', async () => {
      for (let round = 0; round < 6; round += 1) {
        const slateId = (await create()).body.slate_id;
        await call(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
        const [finalized, cancelled] = await Promise.all([
          call(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH }),
          call(round % 2 ? recipient : sender, 'cancel', { slate_id: slateId }),
        ]);
        expect([finalized.status, cancelled.status].sort()).to.deep.equal([200, 409]);
        const stored = (await call(sender, 'get', { slate_id: slateId })).body.status;
        expect(stored).to.equal(finalized.status === 200 ? 'finalized' : 'cancelled');
      }
    });
  });

  describe('expiry sweep', () => {
    it('moves open entries past expiry to expired and leaves the rest', async () => {
      const waiting = (await create()).body.slate_id;
      const responded = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: responded, response_slatepack: RESPONSE });
      const finalized = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: finalized, response_slatepack: RESPONSE });
      await call(sender, 'finalize', { slate_id: finalized, tx_hash: TX_HASH });
      await advance(12 * HOUR);
      const fresh = (await create()).body.slate_id;
      await advance(12 * HOUR);
      expect(await t.backend.scheduler.runNow('grin-relay.expiry-sweep')).to.equal(true);
      const status = async (slateId: string) => (await call(sender, 'get', { slate_id: slateId })).body.status;
      expect(await status(waiting)).to.equal('expired');
      expect(await status(responded)).to.equal('expired');
      expect(await status(finalized)).to.equal('finalized');
      expect(await status(fresh)).to.equal('pending_recipient');
      expect((await call(sender, 'cancel', { slate_id: waiting })).body.status).to.equal('cancelled');
    });
  });

  describe('erasure and export hooks', () => {
    it('erasing a user deletes what they sent and detaches them from what they were sent', async () => {
      const sent = (await create()).body.slate_id;
      const toErase = (await call(recipient, 'create', { recipient_user_id: sender.id, slate_id: randomUUID(), slatepack: SLATEPACK, amount_nanogrin: 5 })).body.slate_id;
      await call(sender, 'respond', { slate_id: toErase, response_slatepack: RESPONSE });
      const open = (await create()).body.slate_id;
      await call(recipient, 'respond', { slate_id: open, response_slatepack: RESPONSE });

      await t.backend.db.transaction((trx) => probe.ctx!.hooks.runUserErasure(trx, sender.id));

      const rows = await t.backend.db.knex('grin_relay_entries').select('slate_id', 'sender_user_id', 'recipient_user_id', 'response_slatepack', 'status');
      expect(rows.map((row) => row.slate_id)).to.deep.equal([toErase]);
      expect(rows[0]).to.deep.include({ sender_user_id: recipient.id, recipient_user_id: null, response_slatepack: null, status: 'cancelled' });
      expectError(await call(recipient, 'get', { slate_id: sent }), 404, 'relay_not_found');
      expectError(await call(recipient, 'get', { slate_id: open }), 404, 'relay_not_found');
    });

    it('a user export lists their entries with their role and without slatepacks', async () => {
      const slateId = (await create()).body.slate_id;
      const exported = await probe.ctx!.hooks.collectUserExport(recipient.id);
      const entries = (exported['grin-relay'] as { entries: Array<Record<string, unknown>> }).entries;
      expect(entries).to.have.length(1);
      expect(entries[0]).to.include({ slate_id: slateId, role: 'recipient', status: 'pending_recipient' });
      expect(entries[0]).to.not.have.any.keys('slatepack', 'response_slatepack');
    });
  });

  it('advertises itself in /capabilities and documents its routes in OpenAPI', async () => {
    expect((await t.client.get('/api/v1/capabilities')).body.grin_relay).to.deep.equal({ enabled: true, expiry_hours: 24, max_slatepack_bytes: MAX_SLATEPACK_BYTES });
    const paths = Object.keys((await t.client.get('/api/v1/openapi.json')).body.paths);
    for (const step of ['create', 'pending', 'get', 'respond', 'finalize', 'cancel']) expect(paths).to.include(`/api/v1/wallet/grin/relay/${step}`);
  });
});

eachDialect('grin-relay: FEATURE_GRIN_RELAY off', (dialect) => {
  const t = {} as TestBackend;
  beforeEach(async () => Object.assign(t, await createTestBackend(dialect, { plugins: [grinRelayPlugin({ enabled: false })] })));
  afterEach(() => t.close());

  it('every relay route is 404 with or without a token, and the sweep is not registered', async () => {
    const { auth } = await seedSession(t.backend);
    for (const token of [auth.access_token, undefined]) {
      const options = token ? { token } : {};
      expect((await t.client.get('/api/v1/wallet/grin/relay/pending', options)).status).to.equal(404);
      for (const step of ['create', 'get', 'respond', 'finalize', 'cancel']) {
        expect((await t.client.post(`/api/v1/wallet/grin/relay/${step}`, { slate_id: randomUUID() }, options)).status, step).to.equal(404);
      }
    }
    await t.backend.scheduler.runNow('grin-relay.expiry-sweep').then(
      () => expect.fail('the sweep ran'),
      (err: Error) => expect(err.message).to.match(/no scheduler task/),
    );
    expect((await t.client.get('/api/v1/capabilities')).body.grin_relay).to.deep.equal({ enabled: false });
    // The table exists, so turning the relay on later needs no migration.
    expect(await t.backend.db.knex.schema.hasTable('grin_relay_entries')).to.equal(true);
  });
});
