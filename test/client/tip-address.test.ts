import { expect } from 'chai';
import { tipAddress, TipEnvelopeError } from '@wallet/client';

describe('@wallet/client: a BTC/LTC tip’s address', () => {
  it('is the P2WPKH address of the key’s compressed public key (BIP-173’s example: the key 1, whose public key is the generator)', () => {
    const one = `${'0'.repeat(63)}1`;
    expect(tipAddress(one, 'bc')).to.equal('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(tipAddress(one, 'tb')).to.equal('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
  });

  it('refuses a key that is not 64 hex characters', () => {
    expect(() => tipAddress('12', 'bc')).to.throw(TipEnvelopeError);
  });
});
