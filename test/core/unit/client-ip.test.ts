import { expect } from 'chai';
import { createClientIpResolver } from '@wallet/backend-core';

describe('createClientIpResolver', () => {
  describe('with no trusted proxies', () => {
    const resolve = createClientIpResolver([]);

    it('is the socket address, whatever X-Forwarded-For says', () => {
      expect(resolve('192.0.2.10', undefined)).to.equal('192.0.2.10');
      expect(resolve('192.0.2.10', '203.0.113.9')).to.equal('192.0.2.10');
      expect(resolve('127.0.0.1', '203.0.113.9, 198.51.100.1')).to.equal('127.0.0.1');
      expect(resolve('2001:db8::1', '203.0.113.9')).to.equal('2001:db8::1');
    });

    it('normalises an IPv4-mapped IPv6 socket address and upper-case IPv6', () => {
      expect(resolve('::ffff:203.0.113.7', undefined)).to.equal('203.0.113.7');
      expect(resolve('::FFFF:203.0.113.7', undefined)).to.equal('203.0.113.7');
      expect(resolve('2001:DB8::A', undefined)).to.equal('2001:db8::a');
    });

    it('answers "unknown" without a socket address', () => {
      expect(resolve(undefined, '203.0.113.9')).to.equal('unknown');
      expect(resolve('', undefined)).to.equal('unknown');
    });
  });

  describe('with a trusted proxy 127.0.0.1', () => {
    const resolve = createClientIpResolver(['127.0.0.1']);

    it('is the rightmost untrusted hop when the socket is the proxy', () => {
      expect(resolve('127.0.0.1', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('127.0.0.1', ' 203.0.113.9 ')).to.equal('203.0.113.9');
      expect(resolve('127.0.0.1', '198.51.100.1, 203.0.113.9')).to.equal('203.0.113.9');
    });

    it('ignores spoofed entries left of the real client', () => {
      for (const header of ['1.1.1.1, 203.0.113.9', '127.0.0.1, 203.0.113.9', '10.0.0.1,192.0.2.1,203.0.113.9', 'garbage, 203.0.113.9']) {
        expect(resolve('127.0.0.1', header), header).to.equal('203.0.113.9');
      }
    });

    it('skips trusted hops and empty entries', () => {
      expect(resolve('127.0.0.1', '203.0.113.9, 127.0.0.1')).to.equal('203.0.113.9');
      expect(resolve('127.0.0.1', '203.0.113.9,, ,')).to.equal('203.0.113.9');
    });

    it('is the socket address when the socket is not a trusted proxy', () => {
      expect(resolve('192.0.2.50', '203.0.113.9')).to.equal('192.0.2.50');
      expect(resolve('127.0.0.2', '203.0.113.9')).to.equal('127.0.0.2');
    });

    it('is the proxy itself when it sends no (or an empty) header', () => {
      expect(resolve('127.0.0.1', undefined)).to.equal('127.0.0.1');
      expect(resolve('127.0.0.1', '')).to.equal('127.0.0.1');
      expect(resolve('127.0.0.1', ' , ')).to.equal('127.0.0.1');
    });

    it('normalises an IPv4-mapped socket address before checking trust, and mapped hops too', () => {
      expect(resolve('::ffff:127.0.0.1', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('::ffff:127.0.0.1', '::ffff:203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('::ffff:192.0.2.50', '203.0.113.9')).to.equal('192.0.2.50');
    });
  });

  describe('with CIDR ranges', () => {
    it('trusts every address of an IPv4 block', () => {
      const resolve = createClientIpResolver(['10.0.0.0/8']);
      expect(resolve('10.1.2.3', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('10.255.255.255', '203.0.113.9, 10.9.9.9')).to.equal('203.0.113.9');
      expect(resolve('11.0.0.1', '203.0.113.9')).to.equal('11.0.0.1');
      expect(resolve('10.1.2.3', '203.0.113.9, 11.0.0.1')).to.equal('11.0.0.1');
    });

    it('trusts IPv6 loopback and IPv6 blocks', () => {
      const resolve = createClientIpResolver(['::1', 'fd00::/8']);
      expect(resolve('::1', '2001:db8::5')).to.equal('2001:db8::5');
      expect(resolve('::1', '2001:DB8::5, fd12:3456::1')).to.equal('2001:db8::5');
      expect(resolve('fd00::abcd', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('fe80::1', '203.0.113.9')).to.equal('fe80::1');
    });

    it('a /32 trusts exactly one address', () => {
      const resolve = createClientIpResolver(['192.0.2.1/32']);
      expect(resolve('192.0.2.1', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('192.0.2.2', '203.0.113.9')).to.equal('192.0.2.2');
    });
  });

  describe('with a chain of trusted proxies', () => {
    const resolve = createClientIpResolver(['10.0.0.0/8', '192.168.1.1', '::1']);

    it('walks past every trusted hop to the first untrusted one', () => {
      expect(resolve('192.168.1.1', '203.0.113.9, 10.0.0.2, 10.0.0.3')).to.equal('203.0.113.9');
      expect(resolve('::1', '203.0.113.9, 192.168.1.1, 10.0.0.3')).to.equal('203.0.113.9');
      expect(resolve('192.168.1.1', '198.51.100.1, 203.0.113.9, 10.0.0.2')).to.equal('203.0.113.9');
    });

    it('stops at the leftmost hop when every hop is trusted', () => {
      expect(resolve('192.168.1.1', '10.0.0.2, 10.0.0.3')).to.equal('10.0.0.2');
    });
  });

  describe('with a malformed entry', () => {
    const resolve = createClientIpResolver(['127.0.0.1', '10.0.0.0/8']);

    it('ends the walk at the last trusted hop, believing nothing left of it', () => {
      expect(resolve('127.0.0.1', '203.0.113.9, garbage, 10.0.0.5')).to.equal('10.0.0.5');
      expect(resolve('127.0.0.1', '203.0.113.9, 203.0.113.9:4711')).to.equal('127.0.0.1');
      expect(resolve('127.0.0.1', '203.0.113.9, unknown')).to.equal('127.0.0.1');
      expect(resolve('127.0.0.1', 'garbage')).to.equal('127.0.0.1');
      expect(resolve('127.0.0.1', '999.1.1.1')).to.equal('127.0.0.1');
    });
  });

  describe('with trusted entries written as IPv4-mapped IPv6 (accepted by settings validation)', () => {
    it('builds a resolver and trusts the proxy in either form', () => {
      // validateSettings accepts '::ffff:127.0.0.1' (isIP says 6), so the resolver must too.
      const build = () => createClientIpResolver(['::ffff:127.0.0.1']);
      expect(build).to.not.throw();
      const resolve = build();
      expect(resolve('127.0.0.1', '203.0.113.9')).to.equal('203.0.113.9');
      expect(resolve('::ffff:127.0.0.1', '203.0.113.9')).to.equal('203.0.113.9');
    });
  });
});
