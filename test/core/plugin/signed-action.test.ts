import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute, requestDescriptorHash, type WalletPlugin } from '@wallet/backend-core';
import { eachDialect, NostrKey, TEST_PUBLIC_API_URL, useTestBackend } from '../../harness/index.js';

/**
 * A plugin using core's signed-action verifier with its own purpose, as erasure and admin will:
 * one nonce endpoint, one action route whose descriptor binds a path parameter and a query.
 */
function demoActionPlugin(): WalletPlugin {
  return {
    name: 'demo-action',
    setup(ctx) {
      ctx.routes.add(defineRoute({
        method: 'POST',
        path: '/demo/challenge',
        summary: 'demo nonce',
        auth: 'none',
        handler: async () => ({ nonce: (await ctx.auth.challenges.issue('demo_action')).nonce }),
      }));
      ctx.routes.add(defineRoute({
        method: 'POST',
        path: '/demo/items/{item_id}/approve',
        summary: 'demo action',
        auth: 'none',
        params: v.object({ item_id: v.string() }),
        query: v.object({ mode: v.optional(v.string()) }),
        body: v.object({ proof: v.string(), nonce: v.string() }),
        handler: async ({ params, query, body }) => {
          const { pubkey } = await ctx.auth.signedActions.verify({
            token: body.proof,
            nonce: body.nonce,
            purpose: 'demo_action',
            path: `/demo/items/${params.item_id}/approve`,
            query: query.mode === undefined ? '' : `mode=${query.mode}`,
          });
          return { approved_by: pubkey, item: params.item_id };
        },
      }));
    },
  };
}

eachDialect('signed actions: reusable by plugins with their own purpose', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [demoActionPlugin()] });

  async function nonce(): Promise<string> {
    return (await t.client.post('/api/v1/demo/challenge')).body.nonce;
  }

  it('accepts an action bound to its path and query, once', async () => {
    const key = new NostrKey();
    const n = await nonce();
    const path = '/api/v1/demo/items/42/approve';
    const proof = key.event([
      ['u', `https://wallet.example.test${path}?mode=fast`],
      ['method', 'POST'],
      ['nonce', n],
      ['purpose', 'demo_action'],
      ['descriptor', requestDescriptorHash({ method: 'POST', path, query: 'mode=fast' })],
    ], Math.floor(t.clock.now().getTime() / 1000));
    const res = await t.client.post(`${path}?mode=fast`, { proof, nonce: n });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ approved_by: key.pubkey, item: '42' });
    expect((await t.client.post(`${path}?mode=fast`, { proof, nonce: n })).body.error.code).to.equal('nonce_invalid');
  });

  it('a proof for another item, another query or another purpose is refused and leaves the nonce', async () => {
    const key = new NostrKey();
    const n = await nonce();
    const forItem1 = key.signedAction('/api/v1/demo/items/1/approve', n, 'demo_action', t.clock.now());
    const other = await t.client.post('/api/v1/demo/items/2/approve', { proof: forItem1, nonce: n });
    expect(other.status).to.equal(401);
    expect(other.body.error.code).to.equal('signed_action_invalid');
    expect((await t.client.post('/api/v1/demo/items/1/approve?mode=x', { proof: forItem1, nonce: n })).status).to.equal(401);
    const linkPurpose = key.signedAction('/api/v1/demo/items/1/approve', n, 'nostr_link', t.clock.now());
    expect((await t.client.post('/api/v1/demo/items/1/approve', { proof: linkPurpose, nonce: n })).status).to.equal(401);
    expect((await t.client.post('/api/v1/demo/items/1/approve', { proof: forItem1, nonce: n })).status).to.equal(200);
  });

  it('a nonce issued for a core purpose does not serve a plugin purpose', async () => {
    const key = new NostrKey();
    const registerNonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const proof = key.signedAction('/api/v1/demo/items/1/approve', registerNonce, 'demo_action', t.clock.now());
    const res = await t.client.post('/api/v1/demo/items/1/approve', { proof, nonce: registerNonce });
    expect(res.body.error.code).to.equal('nonce_invalid');
  });

  const APPROVE = '/api/v1/demo/items/42/approve';
  /** A demo-action proof with these tags after `u` and `method` (for ?mode=fast when `query`). */
  function proofWith(key: NostrKey, tags: string[][], query = false): string {
    return key.event([['u', `${TEST_PUBLIC_API_URL}${APPROVE}${query ? '?mode=fast' : ''}`], ['method', 'POST'], ...tags], Math.floor(t.clock.now().getTime() / 1000));
  }
  async function refused(path: string, proof: string, n: string, message?: string): Promise<void> {
    const res = await t.client.post(path, { proof, nonce: n });
    expect(res.status, JSON.stringify(res.body)).to.equal(401);
    expect(res.body.error.code).to.equal('signed_action_invalid');
    if (message !== undefined) expect(res.body.error.message).to.equal(message);
  }
  const FOR_PURPOSE = 'The signed proof is for another purpose.';
  const FOR_NONCE = 'The signed proof does not carry this nonce.';
  const FOR_REQUEST = 'The signed proof is bound to another request.';

  it('the descriptor binds the query: the literal known answer for ?mode=fast is accepted, the one without the query is not', async () => {
    // POST\n/api/v1/demo/items/42/approve\nmode=fast\n<sha256hex('')> and the same without the query, by sha256sum.
    const withQuery = 'ff05e0451dcbeb243ac4a8433e2a63446c880010350fd778ee5ab0a1a7dff0f2';
    const withoutQuery = '7a8e45b20ceeb816199d3b0c91f3b38adcff2e0c267e5c1f07adb345bd7912ba';
    const key = new NostrKey();
    const n = await nonce();
    const base = [['nonce', n], ['purpose', 'demo_action']];
    await refused(`${APPROVE}?mode=fast`, proofWith(key, [...base, ['descriptor', withoutQuery]], true), n);
    const res = await t.client.post(`${APPROVE}?mode=fast`, { proof: proofWith(key, [...base, ['descriptor', withQuery]], true), nonce: n });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('a repeated nonce, purpose or descriptor tag is refused (401), even with the same value twice, and burns nothing', async () => {
    const key = new NostrKey();
    const n = await nonce();
    const descriptor = requestDescriptorHash({ method: 'POST', path: APPROVE });
    const good = { nonce: ['nonce', n], purpose: ['purpose', 'demo_action'], descriptor: ['descriptor', descriptor] };
    for (const name of ['nonce', 'purpose', 'descriptor'] as const) {
      const tags = [good.nonce, good.purpose, good.descriptor];
      await refused(APPROVE, proofWith(key, [...tags, good[name]]), n);
      // The same tag first with another value, then the right one (and the reverse): never resolved by position.
      const other = name === 'descriptor' ? descriptor.replace(/^./, (c) => (c === '0' ? '1' : '0')) : `${good[name][1]}x`;
      await refused(APPROVE, proofWith(key, [...tags, [name, other]]), n);
      await refused(APPROVE, proofWith(key, [[name, other], ...tags]), n);
    }
    const res = await t.client.post(APPROVE, { proof: proofWith(key, [good.nonce, good.purpose, good.descriptor]), nonce: n });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('a missing descriptor, nonce or purpose tag (or one without a value) is 401 signed_action_invalid, not 500', async () => {
    const key = new NostrKey();
    const n = await nonce();
    const descriptor = requestDescriptorHash({ method: 'POST', path: APPROVE });
    await refused(APPROVE, proofWith(key, [['nonce', n], ['purpose', 'demo_action']]), n, FOR_REQUEST);
    await refused(APPROVE, proofWith(key, [['nonce', n], ['purpose', 'demo_action'], ['descriptor']]), n, FOR_REQUEST);
    await refused(APPROVE, proofWith(key, [['purpose', 'demo_action'], ['descriptor', descriptor]]), n, FOR_NONCE);
    await refused(APPROVE, proofWith(key, [['nonce'], ['purpose', 'demo_action'], ['descriptor', descriptor]]), n, FOR_NONCE);
    await refused(APPROVE, proofWith(key, [['nonce', n], ['descriptor', descriptor]]), n, FOR_PURPOSE);
    await refused(APPROVE, proofWith(key, [['nonce', n], ['purpose'], ['descriptor', descriptor]]), n, FOR_PURPOSE);
    // A proof NIP-98 itself refuses names NIP-98's reason.
    await refused(APPROVE, key.event([['method', 'POST'], ['nonce', n], ['purpose', 'demo_action'], ['descriptor', descriptor]], Math.floor(t.clock.now().getTime() / 1000)), n,
      'The signed proof is invalid: url does not match.');
    expect((await t.client.post(APPROVE, { proof: proofWith(key, [['nonce', n], ['purpose', 'demo_action'], ['descriptor', descriptor]]), nonce: n })).status).to.equal(200);
  });

  it('the token may carry a leading "Nostr" and any run of whitespace; junk around it is refused', async () => {
    const key = new NostrKey();
    const descriptor = requestDescriptorHash({ method: 'POST', path: APPROVE });
    // The verifier strips /^Nostr\s+/ from the JSON field and checks the rest as the header `Nostr <b64>`.
    for (const prefix of ['', 'Nostr ', 'Nostr   ', 'Nostr\t', 'Nostr \t \n ']) {
      const n = await nonce();
      const proof = proofWith(key, [['nonce', n], ['purpose', 'demo_action'], ['descriptor', descriptor]]);
      for (const junk of [` ${prefix}${proof}`, `x${prefix}${proof}`, `${prefix}${proof} `, `${prefix}${proof} x`, `${prefix}${proof}Nostr `, `Nostr${proof}`, `nostr ${proof}`]) {
        await refused(APPROVE, junk, n);
      }
      const res = await t.client.post(APPROVE, { proof: `${prefix}${proof}`, nonce: n });
      expect(res.status, JSON.stringify({ prefix, body: res.body })).to.equal(200);
    }
  });
});

eachDialect('signed actions: PUBLIC_API_URL with trailing slashes', (dialect) => {
  for (const configured of [`${TEST_PUBLIC_API_URL}/`, `${TEST_PUBLIC_API_URL}///`]) {
    describe(`PUBLIC_API_URL=${configured}`, () => {
      const t = useTestBackend(dialect, { plugins: [demoActionPlugin()], settings: { publicApiUrl: configured } });

      it('`u` is the URL without the trailing slashes + /api/v1 + path; a doubled slash is refused', async () => {
        const key = new NostrKey();
        const path = '/api/v1/demo/items/7/approve';
        const n = (await t.client.post('/api/v1/demo/challenge')).body.nonce;
        const at = Math.floor(t.clock.now().getTime() / 1000);
        const proof = (u: string) => key.event([['u', u], ['method', 'POST'], ['nonce', n], ['purpose', 'demo_action'], ['descriptor', requestDescriptorHash({ method: 'POST', path })]], at);
        for (const u of [`${configured}${path}`, `${TEST_PUBLIC_API_URL}//${path.slice(1)}`, `${TEST_PUBLIC_API_URL}${path}/`]) {
          const res = await t.client.post(path, { proof: proof(u), nonce: n });
          expect(res.status, u).to.equal(401);
          expect(res.body.error.code).to.equal('signed_action_invalid');
        }
        const res = await t.client.post(path, { proof: proof(`https://wallet.example.test${path}`), nonce: n });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      });
    });
  }
});
