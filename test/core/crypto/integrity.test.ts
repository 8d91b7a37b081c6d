import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { createIntegrity } from '../../../packages/core/src/crypto/index.js';

/** Domain-separated HMAC seals. Pure: no storage, so no dialect. */
const SECRET = 'integrity-test-secret-0123456789abcdef0123456789';
const integrity = createIntegrity(SECRET);
const known = (parts: string[]) => createHmac('sha256', SECRET).update(parts.join('\u001f'), 'utf8').digest('hex');

describe('crypto: integrity seals', () => {
  it('seal is HMAC-SHA256(secret, domain ␟ field₁ ␟ …) in lower-case hex (known answer computed with node:crypto)', () => {
    expect(integrity.seal('d', ['a', 'ü', ''])).to.equal(known(['d', 'a', 'ü', '']));
    expect(integrity.seal('d', [])).to.equal(known(['d']));
  });

  it('refuses to seal when the domain or any single field contains the separator', () => {
    for (const [domain, fields] of [
      ['d\u001f', ['a', 'b']],
      ['d', ['a\u001fb', 'c']],
      ['d', ['a', 'b', '\u001f']],
    ] as const) {
      expect(() => integrity.seal(domain, [...fields]), JSON.stringify([domain, fields])).to.throw('a sealed field contains the separator');
    }
  });

  it('verify accepts exactly the seal of the same domain and fields', () => {
    const seal = integrity.seal('d', ['a', 'b']);
    expect(integrity.verify('d', ['a', 'b'], seal)).to.equal(true);
    expect(integrity.verify('e', ['a', 'b'], seal)).to.equal(false);
    expect(integrity.verify('d', ['a', 'c'], seal)).to.equal(false);
    // Moving the boundary between fields changes the seal (the separator is in the MAC input).
    expect(integrity.verify('d', ['a\u0000', 'b'], seal)).to.equal(false);
    expect(createIntegrity(`${SECRET}x`).verify('d', ['a', 'b'], seal)).to.equal(false);
  });

  it('verify answers false, never throws, for anything but 64 lower-case hex characters', () => {
    const seal = integrity.seal('d', ['a']);
    for (const stored of [seal.toUpperCase(), `zz${seal}`, `${seal}00`, `${seal}zz`, seal.slice(2), ` ${seal}`, '', null, undefined, 42, [seal], { toString: () => seal }, Buffer.from(seal, 'hex')]) {
      expect(() => integrity.verify('d', ['a'], stored), String(stored)).to.not.throw();
      expect(integrity.verify('d', ['a'], stored), String(stored)).to.equal(false);
    }
  });
});
