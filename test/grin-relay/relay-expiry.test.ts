import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { createTestBackend, eachDialect, seedSession, type TestBackend } from '../harness/index.js';

const REAL = JSON.parse(readFileSync(new URL('../fixtures/grin-slatepacks.json', import.meta.url), 'utf8')) as { owner_rpc: string; user_s1: string };
const SLATEPACK = REAL.owner_rpc;
const RESPONSE = REAL.user_s1;
const TX_HASH = 'ef'.repeat(32);
/** The harness clock starts at 2026-01-01T00:00:00.000Z; with a 24-hour expiry an entry created then expires at this instant. */
const CREATED_AT = '2026-01-01T00:00:00.000Z';
const EXPIRES_AT = '2026-01-02T00:00:00.000Z';

interface Party {
  id: string;
  token: string;
}

/** The expiry instant of every step: open just before it, closed exactly at it, and why a step is refused after it. */
eachDialect('grin-relay: the expiry instant', (dialect) => {
  const t = {} as TestBackend;
  let sender: Party;
  let recipient: Party;
  beforeEach(async () => {
    Object.assign(t, await createTestBackend(dialect, { plugins: [grinRelayPlugin({ expiryHours: 24 })] }));
    const party = async () => {
      const { userId, auth } = await seedSession(t.backend);
      return { id: userId, token: auth.access_token };
    };
    [sender, recipient] = [await party(), await party()];
  });
  afterEach(() => t.close());

  /** Sets the clock; sessions outlive no access-token lifetime, so the parties sign in again. */
  const at = async (iso: string) => {
    t.clock.set(iso);
    for (const party of [sender, recipient]) party.token = (await t.backend.sessions.start(party.id, 'extension')).access_token;
  };
  const post = (who: Party, step: string, body: unknown) => t.client.post(`/api/v1/wallet/grin/relay/${step}`, body, { token: who.token });
  const create = async () => {
    const res = await post(sender, 'create', { recipient_user_id: recipient.id, slate_id: randomUUID(), slatepack: SLATEPACK, amount_nanogrin: 3 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { slate_id: string; created_at: string; expires_at: string };
  };
  const respond = (slateId: string) => post(recipient, 'respond', { slate_id: slateId, response_slatepack: RESPONSE });
  const finalize = (slateId: string) => post(sender, 'finalize', { slate_id: slateId, tx_hash: TX_HASH });
  const pending = async () => ((await t.client.get('/api/v1/wallet/grin/relay/pending', { token: recipient.token })).body.relays as Array<{ slate_id: string }>).map((r) => r.slate_id);
  const status = async (slateId: string) => (await post(sender, 'get', { slate_id: slateId })).body.status as string;
  const sweep = async () => expect(await t.backend.scheduler.runNow('grin-relay.expiry-sweep')).to.equal(true);
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.code).to.equal(code);
  };

  it('an entry created at the clock’s start expires exactly 24 hours later', async () => {
    expect(await create()).to.include({ created_at: CREATED_AT, expires_at: EXPIRES_AT });
  });

  it('pending lists the entry until 1 ms before its expiry and not at it', async () => {
    const { slate_id } = await create();
    await at('2026-01-01T23:59:59.999Z');
    expect(await pending()).to.deep.equal([slate_id]);
    await at(EXPIRES_AT);
    expect(await pending()).to.deep.equal([]);
  });

  it('respond succeeds 1 ms before the expiry and is relay_expired exactly at it', async () => {
    const early = (await create()).slate_id;
    const late = (await create()).slate_id;
    await at('2026-01-01T23:59:59.999Z');
    expect((await respond(early)).body.status).to.equal('pending_sender');
    await at(EXPIRES_AT);
    expectError(await respond(late), 409, 'relay_expired');
    expect(await status(late)).to.equal('pending_recipient');
  });

  it('finalize succeeds 1 ms before the expiry and is relay_expired exactly at it', async () => {
    const early = (await create()).slate_id;
    const late = (await create()).slate_id;
    await respond(early);
    await respond(late);
    await at('2026-01-01T23:59:59.999Z');
    expect((await finalize(early)).body.status).to.equal('finalized');
    await at(EXPIRES_AT);
    expectError(await finalize(late), 409, 'relay_expired');
    expect(await status(late)).to.equal('pending_sender');
  });

  it('the sweep leaves an entry open 1 ms before its expiry and expires it exactly at it', async () => {
    const { slate_id } = await create();
    await at('2026-01-01T23:59:59.999Z');
    await sweep();
    expect(await status(slate_id)).to.equal('pending_recipient');
    await at(EXPIRES_AT);
    await sweep();
    expect(await status(slate_id)).to.equal('expired');
  });

  it('respond and finalize on an entry the sweep expired are relay_expired', async () => {
    const unanswered = (await create()).slate_id;
    const answered = (await create()).slate_id;
    await respond(answered);
    await at(EXPIRES_AT);
    await sweep();
    expect([await status(unanswered), await status(answered)]).to.deep.equal(['expired', 'expired']);
    expectError(await respond(unanswered), 409, 'relay_expired');
    expectError(await finalize(answered), 409, 'relay_expired');
  });

  it('a cancelled entry past its expiry is refused for its state, not as expired', async () => {
    const unanswered = (await create()).slate_id;
    const answered = (await create()).slate_id;
    await respond(answered);
    expect((await post(sender, 'cancel', { slate_id: unanswered })).body.status).to.equal('cancelled');
    expect((await post(sender, 'cancel', { slate_id: answered })).body.status).to.equal('cancelled');
    await at('2026-01-03T00:00:00.000Z');
    expectError(await respond(unanswered), 409, 'relay_not_awaiting_response');
    expectError(await finalize(answered), 409, 'relay_not_awaiting_finalization');
  });

  it('a step on an entry in another state before its expiry is refused for its state', async () => {
    const { slate_id } = await create();
    expectError(await finalize(slate_id), 409, 'relay_not_awaiting_finalization');
    await respond(slate_id);
    expectError(await respond(slate_id), 409, 'relay_not_awaiting_response');
  });
});
