import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { createPeppers } from '../../../packages/core/src/crypto/index.js';
import { IP_HASHES_REMEMBERED } from '../../../packages/core/src/crypto/pepper.js';

/**
 * Peppers and IP hashes are HMAC-SHA256 in hex: stored values must keep matching whatever
 * library computes them, so they are checked against RFC 4231's published answers.
 */
describe('crypto: peppers (HMAC-SHA256, RFC 4231 known answers)', () => {
  it('test case 2: key "Jefe", data "what do ya want for nothing?"', () => {
    const peppers = createPeppers('Jefe', 'Jefe');
    const expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(peppers.pepper('what do ya want for nothing?')).to.equal(expected);
    expect(peppers.hashIp('what do ya want for nothing?')).to.equal(expected);
  });

  it('keys the two hashes apart, and takes text as UTF-8', () => {
    const peppers = createPeppers('pepper-secret', 'ip-salt');
    expect(peppers.pepper('203.0.113.7')).to.not.equal(peppers.hashIp('203.0.113.7'));
    // HMAC-SHA256(key "key", "The quick brown fox jumps over the lazy dog"), the widely published answer.
    expect(createPeppers('key', 'x').pepper('The quick brown fox jumps over the lazy dog')).to.equal('f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
    // Non-ASCII key and value as UTF-8 bytes (answer from Python's hmac module).
    expect(createPeppers('ключ', 'x').pepper('é')).to.equal('e4c4aaaf72dd2e06b6b8cd1791be87d4afbfc84dd6b4bf44da66a7ec5a0c2a6e');
  });

  it('remembers recent IP hashes without ever answering one IP with another’s hash, past the bound and after eviction', () => {
    const peppers = createPeppers('pepper-secret', 'ip-salt');
    const expected = (ip: string) => createHmac('sha256', Buffer.from('ip-salt')).update(ip).digest('hex');
    const ips = Array.from({ length: IP_HASHES_REMEMBERED * 2 + 7 }, (_, i) => `198.51.${i >> 8}.${i & 255}`);
    // Twice over more IPs than are remembered: every answer is that IP's own HMAC, whether
    // remembered, evicted or hashed again.
    for (let round = 0; round < 2; round++) for (const ip of ips) expect(peppers.hashIp(ip), ip).to.equal(expected(ip));
    // The most recent ones, asked again in reverse order.
    for (const ip of ips.slice(-IP_HASHES_REMEMBERED).reverse()) expect(peppers.hashIp(ip), ip).to.equal(expected(ip));
    // The pepper is never answered from the IP memory.
    expect(peppers.pepper(ips[ips.length - 1]!)).to.equal(createHmac('sha256', Buffer.from('pepper-secret')).update(ips[ips.length - 1]!).digest('hex'));
  });
});
