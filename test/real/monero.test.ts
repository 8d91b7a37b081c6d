import { expect } from 'chai';
import { createTestBackend, eachDialect, loadVectors, seedSession, type TestBackend } from '../harness/index.js';
import { LwsFake } from '../fakes/lws.js';
import { parseMoneroTransaction } from '../../packages/core/src/chains/lws/index.js';
import { requireDaemon, startMonerod, startMoneroWallet, type Daemon } from './daemons.js';

const MINER = loadVectors<any>('xmr.json').wallets_public.mainnet.A.address as string;

eachDialect('real tier: monerod --regtest', (dialect) => {
  let monerod: Daemon;
  const lws = new LwsFake();
  before(async function () {
    this.timeout(90_000);
    requireDaemon('monerod', this);
    monerod = await startMonerod();
    await lws.start();
  });
  after(async function () {
    this.timeout(30_000);
    await lws.close();
    await monerod?.stop();
  });
  const t = {} as TestBackend;
  beforeEach(async () => {
    Object.assign(t, await createTestBackend(dialect, { settings: { chainNetwork: 'regtest', xmrLwsUrl: lws.url, xmrDaemonUrl: monerod.rpcUrl, upstreamTimeoutMs: 5_000 } }));
  });
  afterEach(() => t.close());

  it('height and coinbase confirmations through our endpoints match the daemon', async function () {
    this.timeout(60_000);
    const { auth } = await seedSession(t.backend);
    const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/lws/${path}`, body, { token: auth.access_token });
    const generated = await monerod.rpc('generateblocks', { amount_of_blocks: 5, wallet_address: MINER });
    const height = (await post('height', { asset: 'xmr' })).body.height;
    expect(height).to.equal(generated.height + 1);
    expect((await t.client.get('/api/v1/wallet/heights', { token: auth.access_token })).body.xmr).to.equal(height);

    const block = await monerod.rpc('get_block', { height: generated.height - 2 });
    const minerTx = block.miner_tx_hash as string;
    const first = (await post('confirmations', { asset: 'xmr', txid: minerTx })).body;
    expect(first).to.include({ found: true, in_pool: false, block_height: generated.height - 2 });
    await monerod.rpc('generateblocks', { amount_of_blocks: 2, wallet_address: MINER });
    const later = (await post('confirmations', { asset: 'xmr', txid: minerTx })).body;
    expect(later.confirmations).to.equal(first.confirmations + 2);
    expect((await post('confirmations', { asset: 'xmr', txid: 'ab'.repeat(32) })).body).to.include({ found: false, confirmations: 0 });
  });

  it('a transaction monero-wallet-rpc signs parses to its txid, is submitted, and its confirmations follow the daemon', async function () {
    this.timeout(120_000);
    requireDaemon('monero-wallet-rpc', this);
    const wallet = await startMoneroWallet(monerod);
    try {
      await wallet.rpc('create_wallet', { filename: 'w', language: 'English' });
      const { address } = await wallet.rpc('get_address', { account_index: 0 });
      // Coinbase outputs unlock after 60 blocks; 100 more give the ring its decoys.
      await monerod.rpc('generateblocks', { amount_of_blocks: 160, wallet_address: address });
      await wallet.rpc('refresh', {});
      const signed = await wallet.rpc('transfer', { destinations: [{ amount: 1_000_000_000_000, address: MINER }], do_not_relay: true, get_tx_hex: true });
      expect(parseMoneroTransaction(signed.tx_blob)?.txid).to.equal(signed.tx_hash);

      const { auth } = await seedSession(t.backend);
      const post = (path: string, body: unknown) => t.client.post(`/api/v1/wallet/lws/${path}`, body, { token: auth.access_token });
      expect((await post('submit_tx', { asset: 'xmr', tx: signed.tx_blob })).body).to.deep.equal({ ok: true });
      expect(lws.submitted.at(-1)).to.equal(signed.tx_blob);

      // The fake LWS does not relay; hand the same bytes to the real daemon and follow them.
      const relayed = await fetch(`${monerod.rpcUrl}/send_raw_transaction`, { method: 'POST', body: JSON.stringify({ tx_as_hex: signed.tx_blob }) }).then((r) => r.json() as Promise<{ status?: string }>);
      expect(relayed.status).to.equal('OK');
      expect((await post('confirmations', { asset: 'xmr', txid: signed.tx_hash })).body).to.include({ found: true, in_pool: true, confirmations: 0 });
      // monerod may mine a block from a template made before the transaction reached its pool;
      // mine until the daemon itself reports it in a block, then compare with the daemon's depth.
      let mined: { in_pool: boolean; block_height?: number } = { in_pool: true };
      for (let attempt = 0; attempt < 5 && mined.in_pool; attempt++) {
        await monerod.rpc('generateblocks', { amount_of_blocks: 1, wallet_address: MINER });
        const known = await fetch(`${monerod.rpcUrl}/get_transactions`, { method: 'POST', body: JSON.stringify({ txs_hashes: [signed.tx_hash] }) });
        mined = ((await known.json()) as { txs: Array<{ in_pool: boolean; block_height?: number }> }).txs[0]!;
      }
      expect(mined.in_pool, 'the daemon mined the transaction').to.equal(false);
      const { height } = (await fetch(`${monerod.rpcUrl}/get_height`, { method: 'POST', body: '{}' }).then((r) => r.json())) as { height: number };
      expect((await post('confirmations', { asset: 'xmr', txid: signed.tx_hash })).body).to.include({
        found: true,
        in_pool: false,
        confirmations: height - mined.block_height!,
      });
    } finally {
      await wallet.stop();
    }
  });
});
