import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCryptonoteAddress } from '../../../packages/core/src/crypto/cryptonote-address.js';
import { receivedWithTxKey, txKeyOutputsOf } from '../../../packages/core/src/crypto/cryptonote-tx-key.js';
import { REPO_ROOT } from '../../harness/index.js';

/** The monero-wallet-rpc vector of cryptonote-tx-key.test.ts (test/vectors/README.md). */
const vector = JSON.parse(readFileSync(join(REPO_ROOT, 'test/vectors/xmr-tx-key.json'), 'utf8')) as {
  tx_key: string;
  paid_address: string;
  amounts: number[];
  as_json: string;
  check_tx_key: { paid: { received: number } };
};
type Decoded = { vout: Array<{ target: { tagged_key: { key: string } } }>; rct_signatures: { type: number; ecdhInfo: Array<{ amount: string }>; outPk: string[] } };
const decoded = () => JSON.parse(vector.as_json) as Decoded;
const paidKeys = () => {
  const parsed = decodeCryptonoteAddress(vector.paid_address, 'xmr')!;
  return [parsed.publicSpendKey, parsed.publicViewKey] as const;
};
const withRct = (fields: Partial<Decoded['rct_signatures']>) => {
  const tx = decoded();
  return { ...tx, rct_signatures: { ...tx.rct_signatures, ...fields } };
};
/** 64 hex that is not the encoding of an ed25519 point (y = 2 has no x). */
const NOT_A_POINT = '02'.padEnd(64, '0');

describe('crypto: tx-key proofs at their edges', () => {
  it('the vector as read: both paid outputs, check_tx_key total (the independent known answer)', () => {
    const receipt = receivedWithTxKey(vector.tx_key, ...paidKeys(), txKeyOutputsOf(decoded())!)!;
    expect(receipt.received).to.equal(1239567890123n);
    expect(receipt.received).to.equal(BigInt(vector.check_tx_key.paid.received));
    expect(receipt.outputs).to.have.length(2);
  });

  it('an output whose commitment is not a point counts nothing, and the others still count', () => {
    const outputs = txKeyOutputsOf(decoded())!;
    const paid = receivedWithTxKey(vector.tx_key, ...paidKeys(), outputs)!;
    const [first, second] = paid.outputs as [number, number];
    const broken = outputs.map((output, index) => (index === first ? { ...output, commitment: NOT_A_POINT } : output));
    const receipt = receivedWithTxKey(vector.tx_key, ...paidKeys(), broken)!;
    expect(receipt.outputs).to.deep.equal([second]);
    // What is left is exactly one of the two amounts the wallet sent.
    expect(vector.amounts.map(BigInt)).to.include(receipt.received);
    expect(receipt.received < paid.received).to.equal(true);
  });

  it('an amount and commitment that open count nothing under another output key (the key names the owner)', () => {
    const outputs = txKeyOutputsOf(decoded())!;
    const paid = receivedWithTxKey(vector.tx_key, ...paidKeys(), outputs)!;
    const [first, second] = paid.outputs as [number, number];
    // Output `first` keeps its own encrypted amount and commitment (they open with s_first) but carries another output's key.
    const moved = outputs.map((output, index) => (index === first ? { ...output, key: outputs[second]!.key } : output));
    const receipt = receivedWithTxKey(vector.tx_key, ...paidKeys(), moved)!;
    expect(receipt.outputs).to.deep.equal([second]);
  });

  it('ecdhInfo or outPk with an entry more than vout is not a transaction it can read', () => {
    const tx = decoded();
    expect(txKeyOutputsOf(withRct({ ecdhInfo: [...tx.rct_signatures.ecdhInfo, tx.rct_signatures.ecdhInfo[0]!] }))).to.equal(null);
    expect(txKeyOutputsOf(withRct({ outPk: [...tx.rct_signatures.outPk, tx.rct_signatures.outPk[0]!] }))).to.equal(null);
    expect(txKeyOutputsOf(withRct({ ecdhInfo: [...tx.rct_signatures.ecdhInfo, tx.rct_signatures.ecdhInfo[0]!], outPk: [...tx.rct_signatures.outPk, tx.rct_signatures.outPk[0]!] }))).to.equal(null);
  });

  it('null or empty entries are null, not a crash', () => {
    const tx = decoded();
    expect(txKeyOutputsOf({ ...tx, vout: tx.vout.map(() => ({})) })).to.equal(null);
    expect(txKeyOutputsOf({ ...tx, vout: tx.vout.map(() => null) })).to.equal(null);
    expect(txKeyOutputsOf(withRct({ ecdhInfo: tx.rct_signatures.ecdhInfo.map(() => null as unknown as { amount: string }) }))).to.equal(null);
  });

  it('a field that is not a string is refused even when it prints as valid hex (a one-element array)', () => {
    const tx = decoded();
    const keyArray = { ...tx, vout: tx.vout.map((out) => ({ target: { tagged_key: { key: [out.target.tagged_key.key] } } })) };
    expect(txKeyOutputsOf(keyArray)).to.equal(null);
    const untaggedKeyArray = { ...tx, vout: tx.vout.map((out) => ({ target: { key: [out.target.tagged_key.key] } })) };
    expect(txKeyOutputsOf(untaggedKeyArray)).to.equal(null);
    expect(txKeyOutputsOf(withRct({ ecdhInfo: tx.rct_signatures.ecdhInfo.map((e) => ({ amount: [e.amount] as unknown as string })) }))).to.equal(null);
    expect(txKeyOutputsOf(withRct({ outPk: tx.rct_signatures.outPk.map((c) => [c] as unknown as string) }))).to.equal(null);
  });

  it('each hex field is exactly its length: one more character before or after is refused', () => {
    const tx = decoded();
    for (const edit of [(text: string) => `0${text}`, (text: string) => `${text}0`]) {
      const keys = { ...tx, vout: tx.vout.map((out) => ({ target: { tagged_key: { key: edit(out.target.tagged_key.key) } } })) };
      expect(txKeyOutputsOf(keys)).to.equal(null);
      expect(txKeyOutputsOf(withRct({ ecdhInfo: tx.rct_signatures.ecdhInfo.map((e) => ({ amount: edit(e.amount) })) }))).to.equal(null);
      expect(txKeyOutputsOf(withRct({ outPk: tx.rct_signatures.outPk.map(edit) }))).to.equal(null);
    }
  });
});
