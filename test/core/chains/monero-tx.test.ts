import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseMoneroTransaction } from '../../../packages/core/src/chains/lws/index.js';

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/monero-regtest-tx.json', import.meta.url), 'utf8')) as { tx_hash: string; tx_blob: string; fee: number };

function varintHex(value: bigint): string {
  let hex = '';
  do {
    const low = Number(value & 0x7fn);
    value >>= 7n;
    hex += (value > 0n ? low | 0x80 : low).toString(16).padStart(2, '0');
  } while (value > 0n);
  return hex;
}

describe('chains: Monero transaction parsing', () => {
  it('walks a transaction monero-wallet-rpc signed to the txid the wallet reported', () => {
    const parsed = parseMoneroTransaction(fixture.tx_blob);
    expect(parsed).to.deep.equal({ txid: fixture.tx_hash, inputs: 2, outputs: 2, rctType: 6, feeAtomic: BigInt(fixture.fee) });
    expect(parseMoneroTransaction(fixture.tx_blob.toUpperCase())?.txid).to.equal(fixture.tx_hash);
  });

  it('refuses every truncation and any trailing byte', () => {
    const blob = fixture.tx_blob;
    for (let cut = 2; cut < blob.length; cut += 2) expect(parseMoneroTransaction(blob.slice(0, cut)), `cut at ${cut}`).to.equal(null);
    expect(parseMoneroTransaction(`${blob}00`)).to.equal(null);
  });

  it('refuses version 1, coinbase inputs and every RingCT type but the one signed', () => {
    const blob = fixture.tx_blob;
    expect(blob.slice(0, 4)).to.equal('0200'); // version 2, unlock_time 0
    expect(parseMoneroTransaction(`01${blob.slice(2)}`)).to.equal(null);
    expect(blob.slice(6, 8)).to.equal('02'); // first input: txin_to_key
    expect(parseMoneroTransaction(`${blob.slice(0, 6)}ff${blob.slice(8)}`)).to.equal(null);
    // The RingCT type byte sits right before the fee varint: find "06 <fee>" in the blob.
    const at = blob.indexOf(`06${varintHex(BigInt(fixture.fee))}`);
    expect(at).to.be.greaterThan(0);
    for (const type of [0, 1, 2, 7, 255]) {
      expect(parseMoneroTransaction(`${blob.slice(0, at)}${type.toString(16).padStart(2, '0')}${blob.slice(at + 2)}`), `type ${type}`).to.equal(null);
    }
    // Types 3–5 lay out their proofs differently: the same bytes cannot parse as them either.
    for (const type of [3, 4, 5]) expect(parseMoneroTransaction(`${blob.slice(0, at)}0${type}${blob.slice(at + 2)}`), `type ${type}`).to.equal(null);
  });

  it('refuses junk that a hex regex would let through', () => {
    for (const junk of ['ab'.repeat(200), '00'.repeat(500), `02${'ff'.repeat(300)}`, 'zz'.repeat(200), '0'.repeat(201)]) expect(parseMoneroTransaction(junk), junk.slice(0, 12)).to.equal(null);
  });
});
