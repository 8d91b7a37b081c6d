import { expect } from 'chai';
import * as v from 'valibot';
import { defineRoute, requestDescriptorHash, type WalletPlugin } from '@wallet/backend-core';
import { eachDialect, NostrKey, useTestBackend } from '../../harness/index.js';

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
});
