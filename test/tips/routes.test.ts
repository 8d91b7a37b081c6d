import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CryptonoteKey, eachDialect } from '../harness/index.js';
import { hex, SHARE_BASE, TIP_ASSET_LIST, tipAddress, tipBody, txidOf, useChainFakes, useTipsWorld, type Asset, type TipsWorld } from './harness.js';

const TIPS = '/api/v1/tips/social';

function api(w: TipsWorld) {
  const as = (who: { token: string }) => ({
    create: (body: Record<string, unknown>) => w.t.client.post(TIPS, body, { token: who.token }),
    sent: () => w.t.client.get(`${TIPS}/sent`, { token: who.token }),
    inbox: () => w.t.client.get(`${TIPS}/inbox`, { token: who.token }),
    claimable: () => w.t.client.get(`${TIPS}/claimable`, { token: who.token }),
    attach: (id: string, body: Record<string, unknown>) => w.t.client.post(`${TIPS}/${id}/attach-funding`, body, { token: who.token }),
    cancel: (id: string) => w.t.client.post(`${TIPS}/${id}/cancel`, undefined, { token: who.token }),
    claim: (id: string) => w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: who.token }),
    clawback: (id: string) => w.t.client.post(`${TIPS}/${id}/clawback`, undefined, { token: who.token }),
    confirmSweep: (id: string, sweep_txid: string) => w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid }, { token: who.token }),
  });
  return { sender: as(w.sender), recipient: as(w.recipient), other: as(w.other), publicInfo: (id: string) => w.t.client.get(`${TIPS}/${id}/public`) };
}

/** The row as stored, for checking that a refusal changed nothing. */
const rowOf = async (w: TipsWorld, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown> | undefined;
const countTips = async (w: TipsWorld) => Number(((await w.t.backend.db.knex('social_tips').count({ n: '*' }).first()) as { n: number | string }).n);

/**
 * Stands in for the funding worker (a later part of the issue): moves a tip to the status the
 * chain would give it. Only tests do this; the service never writes a status unconditionally.
 */
async function setStatus(w: TipsWorld, id: string, status: string) {
  await w.t.backend.db.knex('social_tips').where({ id }).update({ status });
}

const codeOf = (response: { body: { error?: { code?: string } } }) => response.body.error?.code;

eachDialect('tips: routes', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);

  describe('create', () => {
    it('makes a public draft, and a funded public or targeted tip, in every asset; the share URL is TIP_SHARE_BASE + id', async () => {
      const a = api(w);
      for (const asset of TIP_ASSET_LIST) {
        const draft = await a.sender.create(tipBody(asset, { draft: true }));
        expect(draft.status, draft.text).to.equal(200);
        expect(draft.body).to.deep.equal({ tip_id: draft.body.tip_id, status: 'draft', share_url: `${SHARE_BASE}${draft.body.tip_id}` });
        expect(draft.body.tip_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const funded = await a.sender.create(tipBody(asset));
        expect([funded.status, funded.body.status], funded.text).to.deep.equal([200, 'pending_confirmation']);
        const targeted = await a.sender.create(tipBody(asset, { recipient: w.recipient.username.toUpperCase() }));
        expect([targeted.status, targeted.body.status], targeted.text).to.deep.equal([200, 'pending_confirmation']);
        const stored = await rowOf(w, targeted.body.tip_id);
        expect(stored).to.include({ recipient_user_id: w.recipient.userId, sender_user_id: w.sender.userId, asset });
        expect([false, 0]).to.include(stored!.is_public);
      }
    });

    it('stores what the wallet sent, lower-cased where it is hex; is_public comes from the recipient and cannot be supplied', async () => {
      const a = api(w);
      const body = tipBody('xmr');
      const upper = { ...body, funding_txid: String(body.funding_txid).toUpperCase(), funding_tx_key: String(body.funding_tx_key).toUpperCase(), secret_hash: String(body.secret_hash).toUpperCase() };
      const created = await a.sender.create(upper);
      expect(created.status, created.text).to.equal(200);
      expect(await rowOf(w, created.body.tip_id)).to.include({
        amount: '1000000000',
        tip_address: body.tip_address,
        funding_txid: body.funding_txid,
        funding_tx_key: body.funding_tx_key,
        secret_hash: body.secret_hash,
        ciphertext: null,
        recipient_user_id: null,
        sweep_txid: null,
      });
      const before = await countTips(w);
      for (const field of [{ is_public: false }, { status: 'pending' }, { tip_id: randomUUID() }]) {
        const refused = await a.sender.create({ ...tipBody('btc'), ...field });
        expect([refused.status, codeOf(refused)], JSON.stringify(field)).to.deep.equal([400, 'invalid_request']);
      }
      expect(await countTips(w)).to.equal(before);
    });

    it('refuses each malformed request with 400 and stores nothing', async () => {
      const a = api(w);
      const btcOfLtc = tipAddress('ltc');
      const wowAddress = tipAddress('wow');
      const testnetXmr = new CryptonoteKey('xmr').address('testnet');
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['btc tip to an ltc address', tipBody('btc', { tip_address: btcOfLtc }), 'tip_invalid'],
        ['xmr tip to a wow address', tipBody('xmr', { tip_address: wowAddress }), 'tip_invalid'],
        ['xmr tip to a testnet address', tipBody('xmr', { tip_address: testnetXmr }), 'tip_invalid'],
        ['btc tip without an address', tipBody('btc', { tip_address: undefined }), 'tip_invalid'],
        ['grin tip without a commitment', tipBody('grin', { grin_commitment: undefined }), 'tip_invalid'],
        ['grin tip with an address', tipBody('grin', { tip_address: tipAddress('btc') }), 'tip_invalid'],
        ['btc tip with a commitment', tipBody('btc', { grin_commitment: `08${hex(32)}` }), 'tip_invalid'],
        ['commitment of 64 hex', tipBody('grin', { grin_commitment: hex(32) }), 'invalid_request'],
        ['public tip without secret_hash', tipBody('btc', { secret_hash: undefined }), 'tip_invalid'],
        ['targeted tip without ciphertext', tipBody('btc', { recipient: w.recipient.username, ciphertext: undefined }), 'tip_invalid'],
        ['targeted draft', tipBody('btc', { recipient: w.recipient.username, draft: true }), 'tip_invalid'],
        ['funded tip without txid', tipBody('btc', { funding_txid: undefined }), 'tip_invalid'],
        ['draft with a txid', tipBody('btc', { draft: true, funding_txid: hex(32) }), 'tip_invalid'],
        ['btc txid of 66 hex', tipBody('btc', { funding_txid: `08${hex(32)}` }), 'tip_invalid'],
        ['grin kernel of 64 hex', tipBody('grin', { funding_txid: hex(32) }), 'tip_invalid'],
        ['empty txid', tipBody('btc', { funding_txid: '' }), 'invalid_request'],
        ['oversized txid', tipBody('btc', { funding_txid: hex(34) }), 'invalid_request'],
        ['xmr funding without tx key', tipBody('xmr', { funding_tx_key: undefined }), 'tip_invalid'],
        ['btc funding with a tx key', tipBody('btc', { funding_tx_key: hex(32) }), 'tip_invalid'],
        ['btc amount under 1000 sat', tipBody('btc', { amount: '999' }), 'tip_invalid'],
        ['btc amount over 21M BTC', tipBody('btc', { amount: '2100000000000001' }), 'tip_invalid'],
        ['zero amount', tipBody('xmr', { amount: '0' }), 'invalid_request'],
        ['negative amount', tipBody('xmr', { amount: -5 }), 'invalid_request'],
        ['amount over u64', tipBody('grin', { amount: '18446744073709551616' }), 'tip_invalid'],
        ['fractional amount', tipBody('xmr', { amount: 1.5 }), 'invalid_request'],
        ['unknown asset', tipBody('btc', { asset: 'doge' }), 'invalid_request'],
        ['unknown recipient', tipBody('btc', { recipient: 'nobody-here' }), 'tip_recipient_unknown'],
        ['malformed recipient', tipBody('btc', { recipient: 'a b' }), 'tip_recipient_unknown'],
        ['ciphertext with a space', tipBody('btc', { recipient: w.recipient.username, ciphertext: 'ab cd' }), 'invalid_request'],
        ['ciphertext over 4096', tipBody('btc', { recipient: w.recipient.username, ciphertext: 'a'.repeat(4097) }), 'invalid_request'],
      ];
      for (const [what, body, code] of cases) {
        const refused = await a.sender.create(body);
        expect([refused.status, codeOf(refused)], `${what}: ${refused.text}`).to.deep.equal([400, code]);
      }
      const self = await w.t.client.post(TIPS, tipBody('btc', { recipient: w.recipient.username }), { token: w.recipient.token });
      expect([self.status, codeOf(self)]).to.deep.equal([400, 'tip_recipient_self']);
      expect(await countTips(w)).to.equal(0);
      // The bounds themselves are accepted.
      for (const amount of ['1000', '2100000000000000']) expect((await a.sender.create(tipBody('btc', { amount }))).status, amount).to.equal(200);
      expect((await a.sender.create(tipBody('grin', { amount: '18446744073709551615' }))).status).to.equal(200);
      expect((await a.sender.create(tipBody('xmr', { amount: 1 }))).status).to.equal(200);
    });

    it('needs a session', async () => {
      expect((await w.t.client.post(TIPS, tipBody('btc'))).status).to.equal(401);
      expect((await w.t.client.get(`${TIPS}/sent`)).status).to.equal(401);
    });
  });

  describe('sent, inbox and claimable', () => {
    it('lists the sender’s tips newest first, and a recipient’s targeted tips by state', async () => {
      const a = api(w);
      const ids: string[] = [];
      for (const asset of ['btc', 'ltc', 'xmr'] as const) {
        ids.push((await a.sender.create(tipBody(asset, { recipient: w.recipient.username }))).body.tip_id);
        w.t.clock.advance(1_000);
      }
      ids.push((await a.sender.create(tipBody('wow', { draft: true }))).body.tip_id);
      const sent = (await a.sender.sent()).body.tips as Array<Record<string, unknown>>;
      expect(sent.map((tip) => tip.tip_id)).to.deep.equal([...ids].reverse());
      expect(sent[0]).to.include({ status: 'draft', is_public: true, recipient_user_id: null, share_url: `${SHARE_BASE}${ids[3]}`, funding_txid: null });
      expect(sent[1]).to.include({ asset: 'xmr', is_public: false, recipient_user_id: w.recipient.userId, status: 'pending_confirmation' });
      expect(sent[1]).not.to.have.property('ciphertext');
      expect(sent[1]).not.to.have.property('funding_tx_key');
      expect((await a.other.sent()).body.tips).to.deep.equal([]);

      // Awaiting claim: all three (newest first); claimable: only the one the chain funded.
      expect(((await a.recipient.inbox()).body.tips as Array<{ tip_id: string }>).map((tip) => tip.tip_id)).to.deep.equal([ids[2], ids[1], ids[0]]);
      expect((await a.recipient.claimable()).body.tips).to.deep.equal([]);
      await setStatus(w, ids[1]!, 'pending');
      const claimable = (await a.recipient.claimable()).body.tips as Array<Record<string, unknown>>;
      expect(claimable.map((tip) => tip.tip_id)).to.deep.equal([ids[1]]);
      expect(claimable[0]).to.include({ asset: 'ltc', amount: '50000', status: 'pending', sender_user_id: w.sender.userId, claimable: true });
      expect(claimable[0]).not.to.have.property('ciphertext');
      await setStatus(w, ids[0]!, 'claimed');
      expect(((await a.recipient.inbox()).body.tips as Array<{ tip_id: string }>).map((tip) => tip.tip_id)).to.deep.equal([ids[2], ids[1]]);
      expect((await a.other.inbox()).body.tips).to.deep.equal([]);
      expect((await a.sender.inbox()).body.tips).to.deep.equal([]);
    });
  });

  describe('attach-funding and cancel', () => {
    it('moves a draft to pending_confirmation once; the same txid again answers the tip; another txid is 400', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('btc', { draft: true }))).body.tip_id as string;
      const txid = hex(32);
      const first = await a.sender.attach(id, { funding_txid: txid.toUpperCase() });
      expect(first.body).to.deep.equal({ tip_id: id, status: 'pending_confirmation', share_url: `${SHARE_BASE}${id}` });
      expect((await rowOf(w, id))!.funding_txid).to.equal(txid);
      expect((await a.sender.attach(id, { funding_txid: txid })).body).to.deep.equal(first.body);
      const other = await a.sender.attach(id, { funding_txid: hex(32) });
      expect([other.status, codeOf(other)]).to.deep.equal([400, 'tip_funding_conflict']);
      // Idempotent in any later state too.
      await setStatus(w, id, 'pending');
      expect((await a.sender.attach(id, { funding_txid: txid })).body).to.deep.equal({ ...first.body, status: 'pending' });
      expect((await rowOf(w, id))!.funding_txid).to.equal(txid);
    });

    it('xmr and wow funding carries the tx key; grin funding is the 66-hex kernel excess', async () => {
      const a = api(w);
      for (const asset of ['xmr', 'wow', 'grin'] as const) {
        const id = (await a.sender.create(tipBody(asset, { draft: true }))).body.tip_id as string;
        if (asset !== 'grin') {
          const keyless = await a.sender.attach(id, { funding_txid: hex(32) });
          expect([keyless.status, codeOf(keyless)]).to.deep.equal([400, 'tip_invalid']);
        }
        const txid = txidOf(asset);
        const key = asset === 'grin' ? undefined : hex(32);
        const attached = await a.sender.attach(id, { funding_txid: txid, ...(key ? { funding_tx_key: key } : {}) });
        expect(attached.status, attached.text).to.equal(200);
        expect(await rowOf(w, id)).to.include({ funding_txid: txid, funding_tx_key: key ?? null });
      }
    });

    it('refuses empty, oversized and malformed txids, a non-draft, another user’s or an unknown tip, changing nothing', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('btc', { draft: true }))).body.tip_id as string;
      for (const [funding_txid, code] of [['', 'invalid_request'], [hex(34), 'invalid_request'], ['zz'.repeat(32), 'invalid_request'], [hex(31), 'tip_invalid']] as const) {
        const refused = await a.sender.attach(id, { funding_txid });
        expect([refused.status, codeOf(refused)], funding_txid).to.deep.equal([400, code]);
      }
      const notOwner = await a.other.attach(id, { funding_txid: hex(32) });
      expect([notOwner.status, codeOf(notOwner)]).to.deep.equal([404, 'tip_not_found']);
      const unknown = await a.sender.attach(randomUUID(), { funding_txid: hex(32) });
      expect([unknown.status, codeOf(unknown)]).to.deep.equal([404, 'tip_not_found']);
      expect((await a.sender.attach('not-a-uuid', { funding_txid: hex(32) })).status).to.equal(400);
      expect(await rowOf(w, id)).to.include({ status: 'draft', funding_txid: null });
      expect((await a.sender.cancel(id)).body).to.deep.equal({ tip_id: id, status: 'cancelled' });
      const cancelled = await a.sender.attach(id, { funding_txid: hex(32) });
      expect([cancelled.status, codeOf(cancelled)]).to.deep.equal([400, 'tip_not_draft']);
    });

    it('cancel: the owner’s draft only; anything else is 404', async () => {
      const a = api(w);
      const draft = (await a.sender.create(tipBody('ltc', { draft: true }))).body.tip_id as string;
      const funded = (await a.sender.create(tipBody('ltc'))).body.tip_id as string;
      for (const [who, id] of [[a.other, draft], [a.sender, funded], [a.sender, randomUUID()]] as const) {
        const refused = await who.cancel(id);
        expect([refused.status, codeOf(refused)]).to.deep.equal([404, 'tip_not_found']);
      }
      expect((await rowOf(w, draft))!.status).to.equal('draft');
      expect((await a.sender.cancel(draft)).body).to.deep.equal({ tip_id: draft, status: 'cancelled' });
      expect((await a.sender.cancel(draft)).status).to.equal(404);
    });
  });

  describe('claim', () => {
    it('hands a public tip’s holder the encrypted claim key and the address, again until the sweep confirms', async () => {
      const a = api(w);
      const body = tipBody('btc', { ciphertext: 'b64:AAAA' });
      const id = (await a.sender.create(body)).body.tip_id as string;
      const early = await a.other.claim(id);
      expect([early.status, codeOf(early)]).to.deep.equal([400, 'tip_not_funded']);
      await setStatus(w, id, 'pending');
      const claimed = await a.other.claim(id);
      expect(claimed.body).to.deep.equal({
        tip_id: id,
        asset: 'btc',
        amount: '50000',
        status: 'claiming',
        tip_address: body.tip_address,
        grin_commitment: null,
        ciphertext: 'b64:AAAA',
        secret_hash: body.secret_hash,
        sweep_txid: null,
      });
      expect((await a.recipient.claim(id)).body.status).to.equal('claiming');
      expect((await a.other.claim(id)).status).to.equal(200);
    });

    it('a targeted tip: only its recipient; to anyone else it does not exist', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('grin', { recipient: w.recipient.username }))).body.tip_id as string;
      await setStatus(w, id, 'pending');
      for (const who of [a.other, a.sender]) {
        const refused = await who.claim(id);
        expect([refused.status, codeOf(refused)]).to.deep.equal([400, 'tip_unknown']);
      }
      expect((await rowOf(w, id))!.status).to.equal('pending');
      const claimed = await a.recipient.claim(id);
      expect(claimed.body).to.include({ status: 'claiming', tip_address: null });
      expect(claimed.body.grin_commitment).to.match(/^09[0-9a-f]{64}$/);
    });

    it('refuses a missing, unfunded, underfunded, cancelled, clawed-back or swept tip with 400 naming why', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('ltc'))).body.tip_id as string;
      for (const [status, code] of [
        ['pending_confirmation', 'tip_not_funded'],
        ['funding_mismatch', 'tip_underfunded'],
        ['cancelled', 'tip_cancelled'],
        ['clawed_back', 'tip_clawed_back'],
        ['claimed', 'tip_swept'],
      ] as const) {
        await setStatus(w, id, status);
        const refused = await a.other.claim(id);
        expect([refused.status, codeOf(refused)], status).to.deep.equal([400, code]);
        expect((await rowOf(w, id))!.status).to.equal(status);
      }
      const draft = (await a.sender.create(tipBody('btc', { draft: true }))).body.tip_id as string;
      expect(codeOf(await a.other.claim(draft))).to.equal('tip_not_funded');
      const missing = await a.other.claim(randomUUID());
      expect([missing.status, codeOf(missing)]).to.deep.equal([400, 'tip_unknown']);
    });
  });

  describe('clawback', () => {
    it('the sender takes back a tip from every clawable state; a draft, a settled tip or someone else’s is 400', async () => {
      const a = api(w);
      for (const status of ['pending_confirmation', 'pending', 'claiming', 'funding_mismatch', 'cancelled']) {
        const body = tipBody('wow');
        const id = (await a.sender.create(body)).body.tip_id as string;
        await setStatus(w, id, status);
        const other = await a.other.clawback(id);
        expect([other.status, codeOf(other)], status).to.deep.equal([400, 'tip_unknown']);
        const back = await a.sender.clawback(id);
        expect(back.body, status).to.deep.equal({ tip_id: id, asset: 'wow', amount: '1000000000', status: 'clawed_back', tip_address: body.tip_address, grin_commitment: null, funding_txid: body.funding_txid });
        expect((await rowOf(w, id))!.settled_at).not.to.equal(null);
        const again = await a.sender.clawback(id);
        expect([again.status, codeOf(again)], status).to.deep.equal([400, 'tip_settled']);
        expect(codeOf(await a.other.claim(id))).to.equal('tip_clawed_back');
      }
      const claimed = (await a.sender.create(tipBody('btc'))).body.tip_id as string;
      await setStatus(w, claimed, 'claimed');
      expect(codeOf(await a.sender.clawback(claimed))).to.equal('tip_settled');
      const draft = (await a.sender.create(tipBody('btc', { draft: true }))).body.tip_id as string;
      expect(codeOf(await a.sender.clawback(draft))).to.equal('tip_not_clawable');
      expect(codeOf(await a.sender.clawback(randomUUID()))).to.equal('tip_unknown');
      expect((await rowOf(w, draft))!.status).to.equal('draft');
      expect((await rowOf(w, claimed))!.status).to.equal('claimed');
    });
  });

  describe('confirm-sweep', () => {
    it('records the first sweep txid of a claimed tip, never another; idempotent; the tip stays claiming', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('btc'))).body.tip_id as string;
      await setStatus(w, id, 'pending');
      const early = await a.other.confirmSweep(id, hex(32));
      expect([early.status, codeOf(early)]).to.deep.equal([400, 'tip_not_claiming']);
      await a.other.claim(id);
      const first = hex(32);
      expect((await a.other.confirmSweep(id, first.toUpperCase())).body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: first, recorded: true });
      expect((await a.other.confirmSweep(id, first)).body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: first, recorded: true });
      expect((await a.recipient.claim(id)).status).to.equal(200);
      expect((await a.recipient.confirmSweep(id, hex(32))).body).to.deep.equal({ tip_id: id, status: 'claiming', sweep_txid: first, recorded: false });
      expect(await rowOf(w, id)).to.include({ sweep_txid: first, status: 'claiming' });
    });

    it('refuses an empty, oversized or wrong-length txid, an unknown tip, and a targeted tip to a non-recipient, recording nothing', async () => {
      const a = api(w);
      const pub = (await a.sender.create(tipBody('grin'))).body.tip_id as string;
      await setStatus(w, pub, 'pending');
      await a.other.claim(pub);
      for (const [txid, code] of [['', 'invalid_request'], [hex(34), 'invalid_request'], [hex(32), 'tip_invalid'], ['g'.repeat(66), 'invalid_request']] as const) {
        const refused = await a.other.confirmSweep(pub, txid);
        expect([refused.status, codeOf(refused)], txid).to.deep.equal([400, code]);
      }
      expect((await rowOf(w, pub))!.sweep_txid).to.equal(null);
      const targeted = (await a.sender.create(tipBody('btc', { recipient: w.recipient.username }))).body.tip_id as string;
      await setStatus(w, targeted, 'pending');
      await a.recipient.claim(targeted);
      const stranger = await a.other.confirmSweep(targeted, hex(32));
      expect([stranger.status, codeOf(stranger)]).to.deep.equal([400, 'tip_unknown']);
      expect((await rowOf(w, targeted))!.sweep_txid).to.equal(null);
      expect(codeOf(await a.other.confirmSweep(randomUUID(), hex(32)))).to.equal('tip_unknown');
      const sweep = txidOf('grin');
      expect((await a.other.confirmSweep(pub, sweep)).body).to.include({ sweep_txid: sweep, recorded: true });
    });
  });

  describe('public', () => {
    it('shows a public tip to anyone without a token; a targeted or unknown tip is 404 alike', async () => {
      const a = api(w);
      const id = (await a.sender.create(tipBody('xmr'))).body.tip_id as string;
      const info = await a.publicInfo(id);
      expect(info.body).to.deep.equal({ tip_id: id, asset: 'xmr', amount: '1000000000', status: 'pending_confirmation', claimable: false, created_at: info.body.created_at });
      expect(new Date(info.body.created_at).getTime()).to.equal(w.t.clock.now().getTime());
      await setStatus(w, id, 'pending');
      expect((await a.publicInfo(id)).body).to.include({ status: 'pending', claimable: true });
      expect(JSON.stringify((await a.publicInfo(id)).body)).not.to.match(/tip_address|ciphertext|secret_hash|funding/);
      const targeted = (await a.sender.create(tipBody('btc', { recipient: w.recipient.username }))).body.tip_id as string;
      for (const unknown of [targeted, randomUUID()]) {
        const refused = await a.publicInfo(unknown);
        expect([refused.status, codeOf(refused)]).to.deep.equal([404, 'tip_public_not_found']);
      }
      expect((await a.publicInfo('1234')).status).to.equal(400);
    });
  });
});

describe('tips: targeted tips switch', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(`[${dialect}]`, () => {
      const chains = useChainFakes();
      const w = useTipsWorld(dialect, chains, { enabled: true, targeted: false, shareBase: SHARE_BASE });
      it('refuses a targeted request while targeted tips are off, never turning it into a public tip', async () => {
        for (const asset of TIP_ASSET_LIST as readonly Asset[]) {
          const refused = await w.t.client.post(TIPS, tipBody(asset, { recipient: w.recipient.username, secret_hash: hex(32) }), { token: w.sender.token });
          expect([refused.status, codeOf(refused)], asset).to.deep.equal([400, 'targeted_tips_off']);
        }
        expect(await countTips(w)).to.equal(0);
        expect((await w.t.client.post(TIPS, tipBody('btc'), { token: w.sender.token })).status).to.equal(200);
        expect((await w.t.client.get('/api/v1/capabilities')).body).to.include({ tips: true, targeted_tips: false });
      });
    });
  }
});
