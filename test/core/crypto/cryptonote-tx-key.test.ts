import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCryptonoteAddress } from '../../../packages/core/src/crypto/cryptonote-address.js';
import { receivedWithTxKey, txKeyOutputsOf } from '../../../packages/core/src/crypto/cryptonote-tx-key.js';
import { REPO_ROOT } from '../../harness/index.js';

/** monero-wallet-rpc's transfer (with get_tx_key) and its own check_tx_key verdicts: see test/vectors/README.md. */
const vector = JSON.parse(readFileSync(join(REPO_ROOT, 'test/vectors/xmr-tx-key.json'), 'utf8')) as {
  tx_key: string;
  paid_address: string;
  sender_address: string;
  amounts: number[];
  as_json: string;
  check_tx_key: { paid: { received: number }; sender: { received: number } };
};
const decoded = () => JSON.parse(vector.as_json) as { vout: unknown[]; rct_signatures: { type: number; ecdhInfo: Array<{ amount: string }>; outPk: string[] } };
const keysOf = (address: string) => {
  const parsed = decodeCryptonoteAddress(address, 'xmr')!;
  return [parsed.publicSpendKey, parsed.publicViewKey] as const;
};
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le32 = (value: bigint) => Buffer.from(Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn))).toString('hex');

describe('crypto: Monero payments proven with the transaction secret key', () => {
  it('finds what check_tx_key found: both outputs to the paid address, the change to the sender', () => {
    const outputs = txKeyOutputsOf(decoded())!;
    expect(outputs).to.have.length(3);
    const paid = receivedWithTxKey(vector.tx_key, ...keysOf(vector.paid_address), outputs)!;
    expect(paid.received).to.equal(BigInt(vector.check_tx_key.paid.received));
    expect(paid.received).to.equal(BigInt(vector.amounts[0]! + vector.amounts[1]!));
    expect(paid.outputs).to.have.length(2);
    const change = receivedWithTxKey(vector.tx_key, ...keysOf(vector.sender_address), outputs)!;
    expect(change.received).to.equal(BigInt(vector.check_tx_key.sender.received));
    expect([...paid.outputs, ...change.outputs].sort()).to.deep.equal([0, 1, 2]);
    // Upper-case hex is the same key.
    expect(receivedWithTxKey(vector.tx_key.toUpperCase(), ...keysOf(vector.paid_address), outputs)!.received).to.equal(paid.received);
  });

  it('an encrypted amount the commitment does not open counts nothing (a sender cannot claim more than it paid)', () => {
    const outputs = txKeyOutputsOf(decoded())!;
    const paid = receivedWithTxKey(vector.tx_key, ...keysOf(vector.paid_address), outputs)!;
    const [first] = paid.outputs as [number];
    const tampered = outputs.map((output, index) => (index === first ? { ...output, encryptedAmount: (BigInt(`0x${output.encryptedAmount}`) ^ 0x01n).toString(16).padStart(16, '0') } : output));
    const after = receivedWithTxKey(vector.tx_key, ...keysOf(vector.paid_address), tampered)!;
    expect(after.outputs).to.deep.equal(paid.outputs.filter((index) => index !== first));
    expect(after.received < paid.received).to.equal(true);
    const otherCommitment = outputs.map((output, index) => (index === first ? { ...output, commitment: outputs[(first + 1) % 3]!.commitment } : output));
    expect(receivedWithTxKey(vector.tx_key, ...keysOf(vector.paid_address), otherCommitment)!.outputs).not.to.include(first);
  });

  it('another key proves nothing; a malformed, zero or unreduced key is refused', () => {
    const outputs = txKeyOutputsOf(decoded())!;
    const [spend, view] = keysOf(vector.paid_address);
    expect(receivedWithTxKey(le32(12345n), spend, view, outputs)).to.deep.equal({ received: 0n, outputs: [] });
    expect(receivedWithTxKey(le32(L - 1n), spend, view, outputs)).to.deep.equal({ received: 0n, outputs: [] });
    for (const bad of [le32(0n), le32(L), le32(L + 1n), 'ff'.repeat(32), vector.tx_key.slice(2), `${vector.tx_key}00`, `0x${vector.tx_key.slice(2)}`, 'zz'.repeat(32)]) {
      expect(receivedWithTxKey(bad, spend, view, outputs), bad).to.equal(null);
    }
    // A view key that is not a point.
    const notPoint = Uint8Array.from(Buffer.from('02'.padEnd(64, '0'), 'hex'));
    expect(receivedWithTxKey(vector.tx_key, spend, notPoint, outputs)).to.equal(null);
  });

  it('reads outputs of RingCT types 4 to 6 with compact amounts only; anything else is null', () => {
    const tx = decoded();
    for (const type of [4, 5, 6]) expect(txKeyOutputsOf({ ...tx, rct_signatures: { ...tx.rct_signatures, type } }), String(type)).to.have.length(3);
    for (const type of [0, 1, 2, 3, 7]) expect(txKeyOutputsOf({ ...tx, rct_signatures: { ...tx.rct_signatures, type } }), String(type)).to.equal(null);
    expect(txKeyOutputsOf({ ...tx, rct_signatures: { ...tx.rct_signatures, ecdhInfo: tx.rct_signatures.ecdhInfo.slice(1) } })).to.equal(null);
    expect(txKeyOutputsOf({ ...tx, rct_signatures: { ...tx.rct_signatures, outPk: tx.rct_signatures.outPk.slice(1) } })).to.equal(null);
    expect(txKeyOutputsOf({ ...tx, rct_signatures: { ...tx.rct_signatures, ecdhInfo: tx.rct_signatures.ecdhInfo.map(() => ({ amount: 'ab' })) } })).to.equal(null);
    expect(txKeyOutputsOf({ ...tx, vout: tx.vout.map(() => ({ target: {} })) })).to.equal(null);
    // The pre-view-tag form (target.key) reads the same.
    const untagged = { ...tx, vout: (tx.vout as Array<{ target: { tagged_key: { key: string } } }>).map((out) => ({ amount: 0, target: { key: out.target.tagged_key.key } })) };
    expect(txKeyOutputsOf(untagged)).to.deep.equal(txKeyOutputsOf(tx));
    for (const junk of [null, 'x', {}, { vout: [] }]) expect(txKeyOutputsOf(junk)).to.equal(null);
  });
});
