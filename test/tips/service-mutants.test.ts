import { expect } from 'chai';
import type { ChainAccess, Database, Knex } from '@wallet/backend-core';
import { TIP_ASSETS } from '@wallet/tips';
import { TipsService } from '../../packages/tips/src/service.js';
import { eachDialect } from '../harness/index.js';
import { hex, SHARE_BASE, tipAddress, tipBody, txidOf, useChainFakes, useTipsWorld, type TipsWorld } from './harness.js';

/**
 * The tips service's refusals with their literal messages, the states confirm-sweep names, a
 * disabled asset, and the answers of attach-funding and confirm-sweep when the tip moves between
 * their steps (held by wrapping the database's conditional update, never timed).
 */
const TIPS = '/api/v1/tips/social';
const errorOf = (response: { status: number; body: { error?: { code?: string; message?: string } } }) => [response.status, response.body.error?.code, response.body.error?.message];
const rowOf = async (w: TipsWorld, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;
const setStatus = (w: TipsWorld, id: string, status: string) => w.t.backend.db.knex('social_tips').where({ id }).update({ status });
const countTips = async (w: TipsWorld) => Number(((await w.t.backend.db.knex('social_tips').count({ n: '*' }).first()) as { n: number | string }).n);

/** A service over the world's database whose conditional updates run `before` and `after` around the real one. */
/** `after` is given the update's executor: inside the service's transaction a write on another connection would wait for it. */
function heldService(w: TipsWorld, hooks: { before?: () => Promise<unknown>; after?: (executor: Knex) => Promise<unknown> }) {
  const real = w.t.backend.db;
  const db: Database = {
    ...real,
    transitionOne: async (...args: Parameters<Database['transitionOne']>) => {
      await hooks.before?.();
      const row = await real.transitionOne(...args);
      await hooks.after?.(args[3] ?? real.knex);
      return row;
    },
  } as Database;
  const users = { idByUsername: async () => null, lock: async () => true } as unknown as ConstructorParameters<typeof TipsService>[0]['users'];
  return new TipsService({
    db,
    clock: w.t.clock,
    users,
    network: 'mainnet',
    enabled: true,
    targeted: true,
    assets: () => TIP_ASSETS,
    shareBase: SHARE_BASE,
    // Neither call here reads a chain.
    chains: {} as ChainAccess,
    maxUnconfirmedPerSender: 25,
  });
}

eachDialect('tips service: messages and in-between states', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  const create = (body: Record<string, unknown>) => w.t.client.post(TIPS, body, { token: w.sender.token });

  it('each create refusal is tip_invalid with its own message, and stores nothing', async () => {
    const wow = tipAddress('wow');
    const cases: Array<[Record<string, unknown>, string]> = [
      [tipBody('btc', { amount: '999' }), 'amount must be between 1000 and 2100000000000000 for btc'],
      [tipBody('ltc', { amount: '8400000000000001' }), 'amount must be between 1000 and 8400000000000000 for ltc'],
      [tipBody('grin', { grin_commitment: undefined }), 'a grin tip needs grin_commitment (66 hex)'],
      [tipBody('grin', { tip_address: tipAddress('btc') }), 'a grin tip has no tip_address (its output is named by grin_commitment)'],
      [tipBody('btc', { grin_commitment: `08${hex(32)}` }), 'only a grin tip carries grin_commitment'],
      [tipBody('btc', { tip_address: undefined }), 'tip_address is required'],
      [tipBody('xmr', { tip_address: wow }), 'tip_address is not a xmr address of this network'],
      [tipBody('btc', { recipient: w.recipient.username, ciphertext: undefined }), 'a targeted tip needs ciphertext (the claim key encrypted to the recipient)'],
      [tipBody('btc', { recipient: w.recipient.username, draft: true }), 'a targeted tip cannot be a draft: create it with its funding'],
      [tipBody('btc', { secret_hash: undefined }), 'a public tip needs secret_hash (SHA-256 of the share URL secret)'],
      [tipBody('btc', { draft: true, funding_txid: hex(32) }), 'a draft is funded later with attach-funding'],
      // A tx key alone, without a txid, is refused on a draft as well.
      [tipBody('xmr', { draft: true, funding_tx_key: hex(32) }), 'a draft is funded later with attach-funding'],
      [tipBody('btc', { funding_txid: undefined }), 'funding_txid is required unless the tip is a draft'],
      [tipBody('btc', { funding_txid: `08${hex(32)}` }), 'funding_txid must be 64 hex characters for btc'],
      [tipBody('grin', { funding_txid: hex(32) }), 'funding_txid must be 66 hex characters for grin'],
      [tipBody('xmr', { funding_tx_key: undefined }), "a xmr tip's funding needs funding_tx_key (the transaction's secret key)"],
      [tipBody('wow', { funding_tx_key: undefined }), "a wow tip's funding needs funding_tx_key (the transaction's secret key)"],
      [tipBody('btc', { funding_tx_key: hex(32) }), 'funding_tx_key is only for xmr and wow tips'],
      [tipBody('grin', { funding_tx_key: hex(32) }), 'funding_tx_key is only for xmr and wow tips'],
    ];
    for (const [body, message] of cases) {
      expect(errorOf(await create(body)), message).to.deep.equal([400, 'tip_invalid', message]);
    }
    expect(await countTips(w)).to.equal(0);
  });

  it('attach-funding refusals carry the same messages', async () => {
    const xmr = (await create(tipBody('xmr', { draft: true }))).body.tip_id as string;
    expect(errorOf(await w.t.client.post(`${TIPS}/${xmr}/attach-funding`, { funding_txid: hex(32) }, { token: w.sender.token }))).to.deep.equal([
      400,
      'tip_invalid',
      "a xmr tip's funding needs funding_tx_key (the transaction's secret key)",
    ]);
    expect(errorOf(await w.t.client.post(`${TIPS}/${xmr}/attach-funding`, { funding_txid: txidOf('grin'), funding_tx_key: hex(32) }, { token: w.sender.token }))).to.deep.equal([
      400,
      'tip_invalid',
      'funding_txid must be 64 hex characters for xmr',
    ]);
    expect((await rowOf(w, xmr)).status).to.equal('draft');
  });

  it('confirm-sweep: a txid of the wrong length names the length for the asset', async () => {
    for (const [asset, wrong, length] of [['grin', hex(32), 66], ['btc', txidOf('grin'), 64]] as const) {
      const id = (await create(tipBody(asset))).body.tip_id as string;
      await setStatus(w, id, 'pending');
      expect((await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token })).status).to.equal(200);
      const refused = await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: wrong }, { token: w.other.token });
      expect(errorOf(refused)).to.deep.equal([400, 'tip_invalid', `sweep_txid must be ${length} hex characters for ${asset}`]);
      expect((await rowOf(w, id)).sweep_txid).to.equal(null);
    }
  });

  it('confirm-sweep on a tip that is not claiming says why, as claim does; only pending is tip_not_claiming', async () => {
    const id = (await create(tipBody('ltc'))).body.tip_id as string;
    for (const [status, code] of [
      ['pending', 'tip_not_claiming'],
      ['pending_confirmation', 'tip_not_funded'],
      ['funding_mismatch', 'tip_underfunded'],
      ['cancelled', 'tip_cancelled'],
      ['clawed_back', 'tip_clawed_back'],
      ['claimed', 'tip_swept'],
    ] as const) {
      await setStatus(w, id, status);
      const refused = await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: hex(32) }, { token: w.other.token });
      expect([refused.status, refused.body.error?.code], status).to.deep.equal([400, code]);
      expect(await rowOf(w, id), status).to.include({ status, sweep_txid: null });
    }
    const draft = (await create(tipBody('ltc', { draft: true }))).body.tip_id as string;
    const refused = await w.t.client.post(`${TIPS}/${draft}/confirm-sweep`, { sweep_txid: hex(32) }, { token: w.other.token });
    expect([refused.status, refused.body.error?.code]).to.deep.equal([400, 'tip_not_funded']);
  });

  it('attach-funding answers with the row its update wrote, not a later read (the tip moved right after)', async () => {
    const id = (await create(tipBody('btc', { draft: true }))).body.tip_id as string;
    const txid = hex(32);
    const service = heldService(w, { after: (executor) => executor('social_tips').where({ id }).update({ status: 'pending' }) });
    expect(await service.attachFunding(w.sender.userId, id, { funding_txid: txid })).to.deep.equal({ tip_id: id, status: 'pending_confirmation', share_url: `${SHARE_BASE}${id}` });
    expect(await rowOf(w, id)).to.include({ status: 'pending', funding_txid: txid });
  });

  it('confirm-sweep: a targeted tip whose recipient is erased between the read and the update is tip_unknown, recording nothing', async () => {
    const id = (await create(tipBody('btc', { recipient: w.recipient.username }))).body.tip_id as string;
    await setStatus(w, id, 'pending');
    expect((await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.recipient.token })).status).to.equal(200);
    const service = heldService(w, {
      before: () => w.t.backend.db.transaction((trx) => heldService(w, {}).eraseUser(trx, w.recipient.userId)),
    });
    let refused: unknown;
    try {
      await service.confirmSweep(w.recipient.userId, id, hex(32));
    } catch (err) {
      refused = err;
    }
    expect(refused).to.include({ code: 'tip_unknown', status: 400 });
    expect(await rowOf(w, id)).to.include({ sweep_txid: null, recipient_user_id: null, status: 'claiming' });
  });
});

eachDialect('tips service: an asset whose chain access is off', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, { settings: () => ({ btcEsploraUrl: chains.settings().btcEsploraUrl }) });

  it('refuses a tip in any other asset with tip_asset_disabled and stores nothing; btc is made', async () => {
    for (const asset of ['ltc', 'xmr', 'wow', 'grin'] as const) {
      const refused = await w.t.client.post(TIPS, tipBody(asset), { token: w.sender.token });
      expect([refused.status, refused.body.error?.code], asset).to.deep.equal([400, 'tip_asset_disabled']);
    }
    expect(await countTips(w)).to.equal(0);
    expect((await w.t.client.post(TIPS, tipBody('btc'), { token: w.sender.token })).status).to.equal(200);
  });
});
