import { createHash } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { expect } from 'chai';
import { verifyNip98 } from '../../../packages/core/src/crypto/index.js';

/**
 * NIP-98 event shape (issue 13 item 6): events that are CORRECTLY SIGNED over an odd shape, so
 * that only the shape checks stand between them and acceptance; junk around the header; the
 * exact header size limit; the "never throws" fallback.
 */

const URL = 'https://wallet.example.test/api/v1/auth/nostr';
const NOW_SEC = 1_735_689_600;
const NOW = new Date(NOW_SEC * 1000);
const SECRET = hexToBytes('71e7da8e54c96d8530f8c87c96ab7af5367e9ceb6438d776de1c24e16742fa2a');
const PUBKEY = bytesToHex(schnorr.getPublicKey(SECRET));
const TAGS = [['u', URL], ['method', 'POST']];

/**
 * An event of any shape with a valid id and signature: the id is NIP-01's sha256 over
 * `[0, pubkey, created_at, kind, tags, content]` serialised by JSON.stringify exactly as the
 * fields are (a string stays a string), computed here with node:crypto, and signed BIP-340.
 */
function signedEvent(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const e: Record<string, unknown> = { pubkey: PUBKEY, created_at: NOW_SEC, kind: 27235, tags: TAGS, content: '', ...fields };
  const id = createHash('sha256').update(JSON.stringify([0, e.pubkey, e.created_at, e.kind, e.tags, e.content]), 'utf8').digest('hex');
  const sig = 'sig' in fields ? fields.sig : bytesToHex(schnorr.sign(hexToBytes(id), SECRET));
  return { ...e, id, sig };
}

const header = (event: unknown) => `Nostr ${Buffer.from(JSON.stringify(event)).toString('base64')}`;
const check = (authorization: string, overrides: Partial<Parameters<typeof verifyNip98>[0]> = {}) =>
  verifyNip98({ authorization, url: URL, method: 'POST', body: new Uint8Array(), now: NOW, ...overrides });

describe('NIP-98: a correctly signed event of the wrong shape is refused', () => {
  it('the builder makes valid events (control)', () => {
    const result = check(header(signedEvent()));
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    if (result.ok) expect(result.pubkey).to.equal(PUBKEY);
    // A content string and an extra ignored tag of strings are fine.
    expect(check(header(signedEvent({ content: 'hi', tags: [...TAGS, ['x', 'y', 'z'], ['k']] }))).ok).to.equal(true);
  });

  const cases: Array<[string, Record<string, unknown>]> = [
    ['created_at as a string', { created_at: String(NOW_SEC) }],
    ['created_at as a fraction', { created_at: NOW_SEC + 0.5 }],
    ['created_at beyond a safe integer', { created_at: 2 ** 53 }],
    ['created_at null', { created_at: null }],
    ['kind as a string', { kind: '27235' }],
    ['kind as a fraction', { kind: 27235.5 }],
    ['content a number', { content: 0 }],
    ['content null', { content: null }],
    ['content an object', { content: {} }],
    ['content an array of strings', { content: ['x'] }],
    ['a tag holding a number', { tags: [...TAGS, ['x', 1]] }],
    ['a tag holding a nested array', { tags: [...TAGS, ['x', ['y']]] }],
    ['a tag holding an object', { tags: [...TAGS, ['x', {}]] }],
    ['a tag holding null', { tags: [...TAGS, ['x', null]] }],
    ['a tag that is a string', { tags: [...TAGS, 'x'] }],
    ['a tag that is an object', { tags: [...TAGS, { 0: 'x', 1: 'y' }] }],
    ['a tag that is null', { tags: [...TAGS, null] }],
    ['the u tag value a number', { tags: [['u', 1], ['method', 'POST']] }],
    ['tags an object', { tags: { 0: ['u', URL], 1: ['method', 'POST'] } }],
    ['tags a string', { tags: 'u' }],
  ];
  for (const [label, fields] of cases) {
    it(`${label} → malformed event`, () => {
      expect(check(header(signedEvent(fields)))).to.deep.equal({ ok: false, reason: 'malformed event' });
    });
  }

  it('id, pubkey or sig as a one-element array of the right hex (RegExp.test would coerce it) → malformed event', () => {
    const good = signedEvent();
    expect(check(header({ ...good, id: [good.id] }))).to.deep.equal({ ok: false, reason: 'malformed event' });
    // The id is made over the odd pubkey, so only the shape check refuses it.
    expect(check(header(signedEvent({ pubkey: [PUBKEY] })))).to.deep.equal({ ok: false, reason: 'malformed event' });
    expect(check(header({ ...good, sig: [good.sig] }))).to.deep.equal({ ok: false, reason: 'malformed event' });
  });

  it('id, pubkey or sig with one character too many, before or after → malformed event', () => {
    const good = signedEvent();
    for (const field of ['id', 'sig'] as const) {
      for (const value of [`0${String(good[field])}`, `${String(good[field])}0`, `x${String(good[field])}`]) {
        expect(check(header({ ...good, [field]: value })), `${field}=${value}`).to.deep.equal({ ok: false, reason: 'malformed event' });
      }
    }
    for (const pubkey of [`0${PUBKEY}`, `${PUBKEY}0`, `x${PUBKEY}`]) {
      expect(check(header(signedEvent({ pubkey }))), pubkey).to.deep.equal({ ok: false, reason: 'malformed event' });
    }
  });

  it('the JSON value is not an object → malformed event', () => {
    for (const json of ['null', '5', '"x"', 'true', '[]']) {
      expect(check(`Nostr ${Buffer.from(json).toString('base64')}`), json).to.deep.equal({ ok: false, reason: 'malformed event' });
    }
  });

  it('a missing field → malformed event', () => {
    for (const field of ['id', 'pubkey', 'created_at', 'kind', 'tags', 'content', 'sig']) {
      const event = signedEvent();
      delete event[field];
      expect(check(header(event)), field).to.deep.equal({ ok: false, reason: 'malformed event' });
    }
  });

  it('upper-case hex id, pubkey or sig → malformed event (NIP-01: lowercase hex)', () => {
    const event = signedEvent();
    for (const field of ['id', 'pubkey', 'sig']) {
      expect(check(header({ ...event, [field]: String(event[field]).toUpperCase() })), field).to.deep.equal({ ok: false, reason: 'malformed event' });
    }
  });

  it('a pubkey off the curve, or a sig with r ≥ p or s ≥ n, is a bad signature, not a throw', () => {
    expect(check(header(signedEvent({ pubkey: 'f'.repeat(64) })))).to.deep.equal({ ok: false, reason: 'bad signature' });
    expect(check(header(signedEvent({ sig: 'f'.repeat(128) })))).to.deep.equal({ ok: false, reason: 'bad signature' });
    const good = signedEvent();
    const highS = `${String(good.sig).slice(0, 64)}${'f'.repeat(64)}`;
    expect(check(header({ ...good, sig: highS }))).to.deep.equal({ ok: false, reason: 'bad signature' });
  });
});

describe('NIP-98: the header is exactly `Nostr <base64>`', () => {
  const valid = header(signedEvent());
  const b64 = valid.slice('Nostr '.length);

  it('the valid header is accepted (control)', () => {
    expect(check(valid).ok).to.equal(true);
  });

  for (const [label, value] of [
    ['junk before', `x${valid}`],
    ['a space before', ` ${valid}`],
    ['another scheme word before', `Bearer ${valid}`],
    ['a space after', `${valid} `],
    ['junk after a space', `${valid} x`],
    ['a newline after', `${valid}\n`],
    ['a non-base64 character after', `${valid}!`],
    ['a second token after', `${valid} ${b64}`],
    ['three padding characters', `${valid}===`.replace(/=+$/, '===')],
    ['two spaces after the scheme', `Nostr  ${b64}`],
    ['a tab for the space', `Nostr\t${b64}`],
    ['no space', `Nostr${b64}`],
  ] as const) {
    it(`${label} → not a Nostr authorization header`, () => {
      expect(check(value)).to.deep.equal({ ok: false, reason: 'not a Nostr authorization header' });
    });
  }
});

describe('NIP-98: each refusal names its reason', () => {
  const at = (fields: Record<string, unknown>, overrides: Partial<Parameters<typeof verifyNip98>[0]> = {}) => check(header(signedEvent(fields)), overrides);

  it('base64 of something that is not JSON', () => {
    expect(check(`Nostr ${Buffer.from('{not json').toString('base64')}`)).to.deep.equal({ ok: false, reason: 'authorization is not base64 JSON' });
  });
  it('wrong kind, id, signature, window', () => {
    expect(at({ kind: 1 })).to.deep.equal({ ok: false, reason: 'wrong kind' });
    const good = signedEvent();
    expect(check(header({ ...good, content: 'changed' }))).to.deep.equal({ ok: false, reason: 'event id does not match its content' });
    expect(at({}, { now: new Date((NOW_SEC + 61) * 1000) })).to.deep.equal({ ok: false, reason: 'created_at outside the accepted window' });
  });
  it('url, method (wrong or missing tag), payload', () => {
    expect(at({}, { url: `${URL}/x` })).to.deep.equal({ ok: false, reason: 'url does not match' });
    expect(at({}, { method: 'GET' })).to.deep.equal({ ok: false, reason: 'method does not match' });
    expect(at({ tags: [['u', URL]] })).to.deep.equal({ ok: false, reason: 'method does not match' });
    expect(at({}, { body: new Uint8Array([1]) })).to.deep.equal({ ok: false, reason: 'payload tag required for a request with a body' });
    expect(at({ tags: [...TAGS, ['payload', '00'.repeat(32)]] })).to.deep.equal({ ok: false, reason: 'payload does not match the body' });
  });
});

describe('NIP-98: the header size limit (16384 characters, `Nostr ` included)', () => {
  const LIMIT = 16_384;

  /** A valid header of exactly `length` characters: an ignored padding tag sized to fit, unpadded base64. */
  function headerOfLength(length: number): string {
    const base64Length = length - 'Nostr '.length;
    // Unpadded base64 of n bytes has ceil(4n / 3) characters; a length ≡ 1 (mod 4) is impossible.
    expect(base64Length % 4).not.to.equal(1);
    const bytes = Math.floor((base64Length * 3) / 4);
    const bare = JSON.stringify(signedEvent({ tags: [...TAGS, ['padding', '']] }));
    const event = signedEvent({ tags: [...TAGS, ['padding', 'a'.repeat(bytes - bare.length)]] });
    const json = JSON.stringify(event);
    expect(Buffer.byteLength(json)).to.equal(bytes);
    const value = `Nostr ${Buffer.from(json).toString('base64').replace(/=+$/, '')}`;
    expect(value.length).to.equal(length);
    return value;
  }

  it('a correctly signed header of exactly the limit is accepted', () => {
    const result = check(headerOfLength(LIMIT));
    expect(result.ok, JSON.stringify(result)).to.equal(true);
  });

  it('a correctly signed header one character over the limit is refused', () => {
    expect(check(headerOfLength(LIMIT + 1))).to.deep.equal({ ok: false, reason: 'authorization header too long' });
  });
});

describe('NIP-98: "never throws"', () => {
  const valid = header(signedEvent());

  // Nothing in the header can make the code under the outer try throw: JSON.parse and base64 have
  // their own catch, the shape check admits only strings, safe integers and arrays of strings, the
  // hex fields are checked before hexToBytes, and schnorr.verify answers false for any 32/64-byte
  // input. What reaches the fallback is a caller breaking the request contract (untyped JS).
  for (const [label, overrides] of [
    ['now not a Date', { now: 'now' as unknown as Date }],
    ['body not bytes', { body: undefined as unknown as Uint8Array }],
    ['method missing', { method: undefined as unknown as string }],
  ] as const) {
    it(`${label} (after every header check passed) → verification failed, not a throw`, () => {
      expect(check(valid, overrides)).to.deep.equal({ ok: false, reason: 'verification failed' });
    });
  }
});
