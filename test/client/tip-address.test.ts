import { expect } from 'chai';
import { assertKeySpendsTip, openPublicTip, sealPublicTip, tipAddress, tipClaim, TipEnvelopeError } from '@wallet/client';

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

describe('@wallet/client: an opened tip’s key must spend its address', () => {
  const key = 'ab'.repeat(32);
  const other = 'cd'.repeat(32);

  it('a public tip sealed with a key that spends another address is refused with tip_claim_invalid; the right address opens', () => {
    const sealed = sealPublicTip(tipClaim('btc', key));
    const claimed = { ciphertext: sealed.ciphertext, secret_hash: sealed.secret_hash, asset: 'btc' as const };
    expect(openPublicTip({ ...claimed, tip_address: tipAddress(key, 'bc') }, sealed.fragment).key).to.equal(key);
    expect(openPublicTip({ ...claimed, tip_address: tipAddress(key, 'bc').toUpperCase() }, sealed.fragment).key, 'bech32 in upper case is the same address').to.equal(key);
    const refused = (() => {
      try {
        openPublicTip({ ...claimed, tip_address: tipAddress(other, 'bc') }, sealed.fragment);
        return null;
      } catch (err) {
        return err as TipEnvelopeError;
      }
    })();
    expect(refused).to.be.instanceOf(TipEnvelopeError);
    expect(refused!.code).to.equal('tip_claim_invalid');
  });

  it('checks LTC keys against ltc1 addresses, and leaves other assets’ keys alone', () => {
    expect(() => assertKeySpendsTip(tipClaim('ltc', key), tipAddress(other, 'ltc'))).to.throw(TipEnvelopeError);
    expect(() => assertKeySpendsTip(tipClaim('ltc', key), tipAddress(key, 'ltc'))).to.not.throw();
    expect(() => assertKeySpendsTip(tipClaim('xmr', key), '4AdUndXHHZ6cfufTMvppY6JwXNouMBzSkbLYfpAV5Usx')).to.not.throw();
  });
});
