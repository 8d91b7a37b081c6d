import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { requestDescriptorHash } from '@wallet/backend-core';
import { eachDialect, NostrKey, REPO_ROOT, seedSession, TEST_PUBLIC_API_URL, useTestBackend } from '../../harness/index.js';

/**
 * Known answers for the signed-action request descriptor
 * `sha256hex(METHOD "\n" PATH "\n" QUERY "\n" sha256hex(BODY))` (docs/wallet-integration.md
 * section 3). The expected values never come from `requestDescriptorHash` itself: they are
 * literal hex, computed once with a shell, e.g.
 *   printf 'POST\n/api/v1/auth/nostr/link\n\n%s' "$(printf '' | sha256sum | cut -d' ' -f1)" | sha256sum
 * and re-derived here with node:crypto on literal strings, so dropping the query, changing the
 * method's case or the separator in the product code fails these tests.
 */
const sha256hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** `POST\n/api/v1/auth/nostr/link\n\n<EMPTY_SHA256>` (the doc's worked example). */
const LINK = '8d6aaf2ed65252d1be6090415915736c40d775b9f12ade15c3af71bc02cdcc49';
/** `POST\n/api/v1/auth/nostr/register\n\n<EMPTY_SHA256>`. */
const REGISTER = 'b694a26ef66a1bd79328a7d3224ad10574c207ca85a40c0d2ac37ce759825089';
/** `POST\n/api/v1/demo/items/42/approve\nmode=fast\n<EMPTY_SHA256>`: a query. */
const WITH_QUERY = 'ff05e0451dcbeb243ac4a8433e2a63446c880010350fd778ee5ab0a1a7dff0f2';
/** The same request without its query. */
const WITHOUT_QUERY = '7a8e45b20ceeb816199d3b0c91f3b38adcff2e0c267e5c1f07adb345bd7912ba';
/** sha256hex of the body bytes `{"a":1}`. */
const BODY_SHA256 = '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862';
/** `DELETE\n/api/v1/demo/items/42\nmode=fast&x=1\n<BODY_SHA256>`: a body and a two-parameter query. */
const WITH_BODY = 'f98ffe2c0305c2d64bf300ea1c85dc4862d872072910b355d9d715a75027e5c3';
/** Wrong canonical forms of the link descriptor: what a broken implementation would produce. */
const LINK_LOWERCASE_METHOD = '3500c838b7086c98ef191f6c58954a006623c64ade4f86c02a1cd3d16732977c';
const LINK_CRLF = '13eb1705f5aa09833e2f175df65e9d7c4cbfb0652f60a4da7c7a86900d302fdf';
const LINK_NO_SEPARATOR = '24c51f392e034a8c93410b5af6e87d3ca32f7f9b21c01596b1fa7406c213091c';
const LINK_TRAILING_NEWLINE = 'd295efe03c637237e2ec01901a0778a2f61de96c461b8a513d9721e340c46568';

describe('signed actions: request descriptor known answers', () => {
  it('the literal values are what node:crypto makes of the literal canonical texts', () => {
    expect(sha256hex('')).to.equal(EMPTY_SHA256);
    expect(sha256hex('{"a":1}')).to.equal(BODY_SHA256);
    expect(sha256hex(`POST\n/api/v1/auth/nostr/link\n\n${EMPTY_SHA256}`)).to.equal(LINK);
    expect(sha256hex(`POST\n/api/v1/auth/nostr/register\n\n${EMPTY_SHA256}`)).to.equal(REGISTER);
    expect(sha256hex(`POST\n/api/v1/demo/items/42/approve\nmode=fast\n${EMPTY_SHA256}`)).to.equal(WITH_QUERY);
    expect(sha256hex(`POST\n/api/v1/demo/items/42/approve\n\n${EMPTY_SHA256}`)).to.equal(WITHOUT_QUERY);
    expect(sha256hex(`DELETE\n/api/v1/demo/items/42\nmode=fast&x=1\n${BODY_SHA256}`)).to.equal(WITH_BODY);
    expect(sha256hex(`post\n/api/v1/auth/nostr/link\n\n${EMPTY_SHA256}`)).to.equal(LINK_LOWERCASE_METHOD);
    expect(sha256hex(`POST\r\n/api/v1/auth/nostr/link\r\n\r\n${EMPTY_SHA256}`)).to.equal(LINK_CRLF);
    expect(sha256hex(`POST/api/v1/auth/nostr/link${EMPTY_SHA256}`)).to.equal(LINK_NO_SEPARATOR);
    expect(sha256hex(`POST\n/api/v1/auth/nostr/link\n\n${EMPTY_SHA256}\n`)).to.equal(LINK_TRAILING_NEWLINE);
  });

  it('link and register (empty query, empty body)', () => {
    expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/link' })).to.equal(LINK);
    expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/link', query: '', body: new Uint8Array() })).to.equal(LINK);
    expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/register' })).to.equal(REGISTER);
  });

  it('the query is part of the descriptor', () => {
    expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/demo/items/42/approve', query: 'mode=fast' })).to.equal(WITH_QUERY);
    expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/demo/items/42/approve' })).to.equal(WITHOUT_QUERY);
  });

  it('the body is hashed into the descriptor, after the query', () => {
    const body = new TextEncoder().encode('{"a":1}');
    expect(requestDescriptorHash({ method: 'DELETE', path: '/api/v1/demo/items/42', query: 'mode=fast&x=1', body })).to.equal(WITH_BODY);
  });

  it('the method is upper-cased: any letter case gives the upper-case answer', () => {
    for (const method of ['post', 'Post', 'POST']) {
      expect(requestDescriptorHash({ method, path: '/api/v1/auth/nostr/link' }), method).to.equal(LINK);
    }
    expect(requestDescriptorHash({ method: 'delete', path: '/api/v1/demo/items/42', query: 'mode=fast&x=1', body: new TextEncoder().encode('{"a":1}') })).to.equal(WITH_BODY);
  });

  it('is none of the near-miss canonical forms (lower-case method, CRLF, no separator, trailing newline)', () => {
    const got = requestDescriptorHash({ method: 'post', path: '/api/v1/auth/nostr/link' });
    expect([LINK_LOWERCASE_METHOD, LINK_CRLF, LINK_NO_SEPARATOR, LINK_TRAILING_NEWLINE]).not.to.include(got);
  });

  it('docs/wallet-integration.md: its worked example is this known answer, and self-consistent', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/wallet-integration.md'), 'utf8');
    const block = `\`\`\`\nPOST\n/api/v1/auth/nostr/link\n\n${EMPTY_SHA256}\n\`\`\``;
    expect(doc).to.include(block);
    expect(doc).to.include(`\`${LINK}\``);
    // The doc's canonical text (the fenced block without its final newline) hashes to the doc's value.
    expect(sha256hex(`POST\n/api/v1/auth/nostr/link\n\n${EMPTY_SHA256}`)).to.equal(LINK);
    // The doc's table of further known answers prints these same values.
    for (const value of [REGISTER, WITH_QUERY, WITHOUT_QUERY, BODY_SHA256, WITH_BODY]) expect(doc).to.include(`\`${value}\``);
  });
});

eachDialect('signed actions: the server accepts the known-answer descriptor', (dialect) => {
  const t = useTestBackend(dialect);

  it('link with the literal descriptor value → 200; with a near-miss value → 401 and the nonce survives', async () => {
    const { auth } = await seedSession(t.backend);
    const nonce = (await t.client.get('/api/v1/auth/nostr/link-challenge', { token: auth.access_token })).body.nonce as string;
    const key = new NostrKey();
    const at = Math.floor(t.clock.now().getTime() / 1000);
    const proof = (descriptor: string) => key.event([
      ['u', `${TEST_PUBLIC_API_URL}/api/v1/auth/nostr/link`],
      ['method', 'POST'],
      ['nonce', nonce],
      ['purpose', 'nostr_link'],
      ['descriptor', descriptor],
    ], at);
    for (const wrong of [LINK_LOWERCASE_METHOD, LINK_CRLF, LINK_NO_SEPARATOR, LINK_TRAILING_NEWLINE, REGISTER]) {
      const res = await t.client.post('/api/v1/auth/nostr/link', { nostr_token: proof(wrong), nonce }, { token: auth.access_token });
      expect(res.status, wrong).to.equal(401);
      expect(res.body.error.code).to.equal('signed_action_invalid');
    }
    // Any letter case of the descriptor hex is accepted (doc: "`descriptor` in any letter case").
    const res = await t.client.post('/api/v1/auth/nostr/link', { nostr_token: proof(LINK.toUpperCase()), nonce }, { token: auth.access_token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
});
