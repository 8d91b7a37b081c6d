import { expect } from 'chai';
import { verifyNip98 } from '../../../packages/core/src/crypto/index.js';
import { loadVectors } from '../../harness/index.js';

interface Nip98Case {
  id: string;
  public_key_hex: string;
  request: { url: string; method: string; body: string | null; verify_at_unix: number };
  authorization_header_value: string;
  expected_valid: boolean;
  negative_reason?: string;
}

const { cases } = loadVectors<{ cases: Nip98Case[] }>('nostr.json');

function check(c: Nip98Case, overrides: Partial<Parameters<typeof verifyNip98>[0]> = {}) {
  return verifyNip98({
    authorization: c.authorization_header_value,
    url: c.request.url,
    method: c.request.method,
    body: new TextEncoder().encode(c.request.body ?? ''),
    now: new Date(c.request.verify_at_unix * 1000),
    ...overrides,
  });
}

describe('NIP-98: every case of test/vectors/nostr.json (nostr-tools 2.25.2)', () => {
  it('has positive and negative cases', () => {
    expect(cases.filter((c) => c.expected_valid).length).to.be.greaterThan(3);
    expect(cases.filter((c) => !c.expected_valid).length).to.be.greaterThan(5);
  });

  for (const c of cases) {
    it(`${c.id}: ${c.expected_valid ? 'valid' : `invalid (${c.negative_reason})`}`, () => {
      const result = check(c);
      expect(result.ok, JSON.stringify(result)).to.equal(c.expected_valid);
      if (result.ok) expect(result.pubkey).to.equal(c.public_key_hex);
    });
  }
});

describe('NIP-98: the request binds the proof', () => {
  const valid = cases.find((c) => c.expected_valid && c.request.body === null)!;
  const withBody = cases.find((c) => c.expected_valid && c.request.body !== null)!;

  it('the clock window is ±60 s of the injected time', () => {
    const at = valid.request.verify_at_unix * 1000;
    const created = JSON.parse(Buffer.from(valid.authorization_header_value.slice(6), 'base64').toString()).created_at * 1000;
    expect(check(valid, { now: new Date(created + 60_000) }).ok).to.equal(true);
    expect(check(valid, { now: new Date(created + 61_000) }).ok).to.equal(false);
    expect(check(valid, { now: new Date(created - 61_000) }).ok).to.equal(false);
    expect(check(valid, { now: new Date(at) }).ok).to.equal(true);
  });

  it('another URL (say, taken from a Host header), method or body is refused', () => {
    expect(check(valid, { url: 'http://wallet.example.com/api/v1/auth/nostr' }).ok).to.equal(false);
    expect(check(valid, { url: valid.request.url + '?x=1' }).ok).to.equal(false);
    expect(check(valid, { method: valid.request.method === 'GET' ? 'POST' : 'GET' }).ok).to.equal(false);
    expect(check(valid, { body: new TextEncoder().encode('{"smuggled":true}') })).to.deep.equal({ ok: false, reason: 'payload tag required for a request with a body' });
    expect(check(withBody, { body: new TextEncoder().encode(withBody.request.body + ' ') }).ok).to.equal(false);
  });

  for (const [label, authorization] of [
    ['missing', undefined],
    ['empty', ''],
    ['another scheme', valid.authorization_header_value.replace(/^Nostr/, 'Bearer')],
    ['base64 of a JSON array', `Nostr ${Buffer.from('[]').toString('base64')}`],
    ['oversized', `Nostr ${'A'.repeat(20_000)}`],
  ] as const) {
    it(`${label} header → refused, without throwing`, () => {
      expect(check(valid, { authorization }).ok).to.equal(false);
    });
  }
});
