import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { address as addressCodec, networks, Transaction } from 'bitcoinjs-lib';
import { tipsPlugin } from '@wallet/tips';
import { tipsMigrations } from '../../packages/tips/src/migrations.js';
import { createTestBackend, eachDialect, freshDatabaseUrl, seedSession, type TestResponse } from '../harness/index.js';
import { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { freshBtcChain, hex, SHARE_BASE, tipAddress, tipBody, type TipsWorld, txidOf, useChainFakes, useTipsWorld } from './harness.js';

/**
 * Issue 29 (6): one funding output backs one tip. Two tips with the same address and funding
 * txid (Grin: the same commitment) both became claimable and one spend settled both. Unique
 * indexes now refuse the second (409 `tip_funding_taken`), also under a race, and a database
 * that already holds duplicates is migrated without failing: the oldest tip keeps the output.
 */

const TIPS = '/api/v1/tips/social';
type Answer = TestResponse<any>;
const rowOf = async (w: { t: { backend: TipsWorld['t']['backend'] } }, id: string) => (await w.t.backend.db.knex('social_tips').where({ id }).first()) as Record<string, unknown>;
const countTips = async (w: TipsWorld) => Number(((await w.t.backend.db.knex('social_tips').count({ n: '*' }).first()) as { n: number | string }).n);

/** A transaction paying 50,000 sat to `address` from a made-up input: its txid and hex. */
function paying(address: string): string {
  const tx = new Transaction();
  tx.addInput(randomBytes(32), 0);
  tx.addOutput(addressCodec.toOutputScript(address, networks.bitcoin), 50_000);
  return tx.toHex();
}

eachDialect('tips: one funding output backs one tip (issue 29, item 6)', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  let chain: FakeUtxoChain;
  beforeEach(() => (chain = freshBtcChain(chains)));
  const post = (who: { token: string }, path: string, body?: unknown) => w.t.client.post(`${TIPS}${path}`, body, { token: who.token }) as Promise<Answer>;

  it('the report: a second tip with the same address and funding txid is 409 tip_funding_taken, and the real funding worker funds the first only', async () => {
    const address = tipAddress('btc');
    const txid = chain.put(paying(address), 849_000);
    const first = await post(w.sender, '', tipBody('btc', { tip_address: address, funding_txid: txid }));
    expect(first.status, first.text).to.equal(200);
    const before = await countTips(w);
    for (const who of [w.sender, w.other]) {
      const second = await post(who, '', tipBody('btc', { tip_address: address, funding_txid: txid.toUpperCase() }));
      expect([second.status, second.body.error?.code], second.text).to.deep.equal([409, 'tip_funding_taken']);
    }
    expect(await countTips(w)).to.equal(before);
    await w.t.backend.scheduler.runNow('tips.funding-watch');
    expect((await rowOf(w, first.body.tip_id)).status).to.equal('pending');
    const pending = await w.t.backend.db.knex('social_tips').where({ funding_txid: txid, status: 'pending' }).count({ n: '*' }).first();
    expect(Number((pending as { n: number | string }).n)).to.equal(1);
  });

  it('what is one output: the same txid to another address, or another txid to the same address, is another tip; the same output in another asset is another chain', async () => {
    const address = tipAddress('btc');
    const txid = txidOf('btc');
    expect((await post(w.sender, '', tipBody('btc', { tip_address: address, funding_txid: txid }))).status).to.equal(200);
    expect((await post(w.sender, '', tipBody('btc', { funding_txid: txid }))).status, 'same txid, other address').to.equal(200);
    expect((await post(w.sender, '', tipBody('btc', { tip_address: address }))).status, 'same address, other txid').to.equal(200);
    expect((await post(w.sender, '', tipBody('ltc', { funding_txid: txid }))).status, 'ltc').to.equal(200);
  });

  it('grin: the output is the commitment, whatever kernel is named; drafts may share one until one is funded', async () => {
    const commitment = `09${hex(32)}`;
    expect((await post(w.sender, '', tipBody('grin', { grin_commitment: commitment }))).status).to.equal(200);
    const again = await post(w.other, '', tipBody('grin', { grin_commitment: commitment.toUpperCase() }));
    expect([again.status, again.body.error?.code], again.text).to.deep.equal([409, 'tip_funding_taken']);
    const other = `09${hex(32)}`;
    const drafts = [await post(w.sender, '', tipBody('grin', { grin_commitment: other, draft: true })), await post(w.sender, '', tipBody('grin', { grin_commitment: other, draft: true }))];
    for (const draft of drafts) expect(draft.status, draft.text).to.equal(200);
    expect((await post(w.sender, `/${drafts[0]!.body.tip_id}/attach-funding`, { funding_txid: txidOf('grin') })).status).to.equal(200);
    const taken = await post(w.sender, `/${drafts[1]!.body.tip_id}/attach-funding`, { funding_txid: txidOf('grin') });
    expect([taken.status, taken.body.error?.code], taken.text).to.deep.equal([409, 'tip_funding_taken']);
    expect(await rowOf(w, drafts[1]!.body.tip_id)).to.include({ status: 'draft', funding_txid: null });
  });

  it('two attach-funding calls at once naming one output, on two senders’ drafts (10 rounds): exactly one 200, the other 409 tip_funding_taken', async () => {
    const senders = [w.sender, w.other];
    await Promise.all(Array.from({ length: 12 }, (_, i) => w.t.client.get(`${TIPS}/sent`, { token: senders[i % 2]!.token })));
    for (let round = 0; round < 10; round++) {
      const address = tipAddress('btc');
      const drafts = await Promise.all(senders.map((who) => post(who, '', tipBody('btc', { tip_address: address, draft: true }))));
      const funding_txid = txidOf('btc');
      const answers = await Promise.all(senders.map((who, i) => post(who, `/${drafts[i]!.body.tip_id}/attach-funding`, { funding_txid })));
      const outcome = answers.map((answer) => (answer.status === 200 ? '200' : `${answer.status} ${answer.body.error?.code}`)).sort();
      expect(outcome, `round ${round}`).to.deep.equal(['200', '409 tip_funding_taken']);
      const rows = await Promise.all(drafts.map((draft) => rowOf(w, draft.body.tip_id)));
      expect(rows.map((row) => row.status).sort()).to.deep.equal(['draft', 'pending_confirmation']);
      expect(rows.filter((row) => row.funding_txid === funding_txid)).to.have.length(1);
    }
  });
});

eachDialect('tips: the one-output migration on a database that already holds duplicates (issue 29, item 6)', (dialect) => {
  const chains = useChainFakes();
  const options = { enabled: true, targeted: true, shareBase: SHARE_BASE };
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('does not fail; a claimed tip, else the oldest, keeps the output; the other unclaimed duplicates become funding_mismatch, claimed or settled ones keep their state; all are marked, and the worker funds the keeper only', async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    // The backend as it was before the migration: the tips plugin with its first three migrations.
    const older = await createTestBackend(dialect, { databaseUrl, settings: chains.settings(), plugins: [{ ...tipsPlugin(options), migrations: tipsMigrations.slice(0, 3) }] });
    closers.push(() => older.close());
    const { auth } = await seedSession(older.backend);
    const create = async (body: Record<string, unknown>, at: string) => {
      older.clock.set(at);
      const res = await older.client.post(TIPS, body, { token: auth.access_token });
      expect(res.status, res.text).to.equal(200);
      return res.body.tip_id as string;
    };
    const address = tipAddress('btc');
    const chain = new FakeUtxoChain(networks.bitcoin);
    chains.btc.chain = chain;
    chains.btc.mode = 'normal';
    chains.btc.tip = 850_000;
    const txid = chain.put(paying(address), 849_000);
    const btc = { tip_address: address, funding_txid: txid };
    // A second output, shared by tips of which an older one is still unclaimed and a newer one was claimed.
    const sweptAddress = tipAddress('btc');
    const sweptTxid = chain.put(paying(sweptAddress), 849_000);
    const swept = { tip_address: sweptAddress, funding_txid: sweptTxid };
    const commitment = `09${hex(32)}`;
    const ids = {
      // Made out of order in time: the oldest is not the first inserted.
      keeper: await create(tipBody('btc', btc), '2026-01-01T00:00:01.000Z'),
      later: await create(tipBody('btc', btc), '2026-01-01T00:00:02.000Z'),
      oldest: await create(tipBody('btc', btc), '2026-01-01T00:00:00.000Z'),
      settled: await create(tipBody('btc', btc), '2026-01-01T00:00:03.000Z'),
      grinFirst: await create(tipBody('grin', { grin_commitment: commitment }), '2026-01-01T00:00:00.000Z'),
      grinSecond: await create(tipBody('grin', { grin_commitment: commitment }), '2026-01-01T00:00:05.000Z'),
      alone: await create(tipBody('btc'), '2026-01-01T00:00:00.000Z'),
      unclaimedOlder: await create(tipBody('btc', swept), '2026-01-01T00:00:00.000Z'),
      claimingNewer: await create(tipBody('btc', swept), '2026-01-01T00:00:04.000Z'),
    };
    const knex = older.backend.db.knex;
    await knex('social_tips').where({ id: ids.keeper }).update({ status: 'pending' });
    await knex('social_tips').where({ id: ids.settled }).update({ status: 'clawed_back' });
    await knex('social_tips').where({ id: ids.grinSecond }).update({ status: 'pending' });
    await knex('social_tips').where({ id: ids.unclaimedOlder }).update({ status: 'pending' });
    await knex('social_tips').where({ id: ids.claimingNewer }).update({ status: 'claiming' });
    await older.close();
    closers.pop();

    const t = await createTestBackend(dialect, { databaseUrl, settings: chains.settings(), plugins: [tipsPlugin(options)] });
    closers.push(() => t.close());
    const after = async (id: string) => {
      const row = await rowOf({ t }, id);
      return [row.status, row.funding_duplicate === true || row.funding_duplicate === 1];
    };
    expect(await after(ids.oldest)).to.deep.equal(['pending_confirmation', false]);
    expect(await after(ids.keeper)).to.deep.equal(['funding_mismatch', true]);
    expect(await after(ids.later)).to.deep.equal(['funding_mismatch', true]);
    expect(await after(ids.settled)).to.deep.equal(['clawed_back', true]);
    // Claimed beats older: the older unclaimed tip must not stay claimable on an output a claimer may have swept.
    expect(await after(ids.claimingNewer)).to.deep.equal(['claiming', false]);
    expect(await after(ids.unclaimedOlder)).to.deep.equal(['funding_mismatch', true]);
    expect(await after(ids.grinFirst)).to.deep.equal(['pending_confirmation', false]);
    expect(await after(ids.grinSecond)).to.deep.equal(['funding_mismatch', true]);
    expect(await after(ids.alone)).to.deep.equal(['pending_confirmation', false]);

    await t.backend.scheduler.runNow('tips.funding-watch');
    expect((await rowOf({ t }, ids.oldest)).status).to.equal('pending');
    const funded = await t.backend.db.knex('social_tips').where({ funding_txid: txid }).whereIn('status', ['pending', 'pending_confirmation']).select('id');
    expect(funded).to.deep.equal([{ id: ids.oldest }]);
    // And from now on the index holds: a new tip on that output is refused.
    const { auth: fresh } = await seedSession(t.backend);
    const refused = await t.client.post(TIPS, tipBody('btc', btc), { token: fresh.access_token });
    expect([refused.status, refused.body.error?.code], refused.text).to.deep.equal([409, 'tip_funding_taken']);
  });
});
