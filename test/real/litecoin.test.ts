import { expect } from 'chai';
import { outputScriptOf, parseTransactionHex } from '../../packages/core/src/chains/utxo/index.js';
import { createTestBackend, seedSession, type TestBackend } from '../harness/index.js';
import { EsploraFake } from '../fakes/esplora.js';
import { requireDaemon, startLitecoind, type Daemon } from './daemons.js';

describe('real tier: litecoind -regtest addresses and transactions', () => {
  let litecoind: Daemon;
  const made: { addresses: Record<string, string>; txHex: string; txid: string } = { addresses: {}, txHex: '', txid: '' };
  before(async function () {
    this.timeout(120_000);
    requireDaemon('litecoind', this);
    litecoind = await startLitecoind();
    await litecoind.rpc('createwallet', ['w']);
    for (const type of ['legacy', 'p2sh-segwit', 'bech32']) made.addresses[type] = await litecoind.rpc('getnewaddress', ['', type]);
    await litecoind.rpc('generatetoaddress', [101, made.addresses.bech32]);
    made.txid = await litecoind.rpc('sendtoaddress', [made.addresses.legacy, 1.25]);
    made.txHex = await litecoind.rpc('getrawtransaction', [made.txid]);
  });
  after(async function () {
    this.timeout(30_000);
    await litecoind?.stop();
  });

  it('every address type Litecoin Core makes decodes as regtest LTC; segwit ones never as BTC', () => {
    for (const [type, address] of Object.entries(made.addresses)) {
      expect(outputScriptOf(address, 'ltc', 'regtest'), `${type} ${address}`).to.not.equal(null);
      expect(outputScriptOf(address, 'ltc', 'mainnet'), `${type} ${address}`).to.equal(null);
      // Legacy test-network P2PKH shares version byte 0x6f with Bitcoin's; the P2SH (0x3a) and bech32 (rltc) forms do not.
      if (type !== 'legacy') expect(outputScriptOf(address, 'btc', 'regtest'), `${type} ${address}`).to.equal(null);
    }
  });

  it('a transaction Litecoin Core signed parses to the txid it reports', () => {
    expect(parseTransactionHex(made.txHex)).to.deep.equal({ txid: made.txid });
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(`through the HTTP routes [${dialect}]`, () => {
      const esplora = new EsploraFake();
      const t = {} as TestBackend;
      before(() => esplora.start());
      after(() => esplora.close());
      beforeEach(async () => {
        Object.assign(t, await createTestBackend(dialect, { settings: { chainNetwork: 'regtest', ltcEsploraUrl: esplora.url } }));
      });
      afterEach(() => t.close());

      it('accepts litecoind addresses and relays its transaction, answering its txid', async () => {
        const { auth } = await seedSession(t.backend);
        for (const address of Object.values(made.addresses)) {
          expect((await t.client.post('/api/v1/wallet/utxo/balance', { asset: 'ltc', address }, { token: auth.access_token })).status, address).to.equal(200);
        }
        const res = await t.client.post('/api/v1/wallet/utxo/broadcast', { asset: 'ltc', tx_hex: made.txHex }, { token: auth.access_token });
        expect(res.body).to.deep.equal({ asset: 'ltc', txid: made.txid });
        expect(esplora.broadcasts).to.deep.equal([made.txHex]);
      });
    });
  }
});
