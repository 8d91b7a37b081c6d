import { expect } from 'chai';
import { eachDialect } from '../harness/index.js';
import { SHARE_BASE, tipBody, useChainFakes, useTipsWorld } from './harness.js';

eachDialect('tips smoke', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  it('creates a draft and a funded tip', async () => {
    const draft = await w.t.client.post('/api/v1/tips/social', tipBody('btc', { draft: true }), { token: w.sender.token });
    expect(draft.status, draft.text).to.equal(200);
    expect(draft.body.share_url).to.equal(SHARE_BASE + draft.body.tip_id);
    const funded = await w.t.client.post('/api/v1/tips/social', tipBody('grin', { recipient: w.recipient.username }), { token: w.sender.token });
    expect(funded.status, funded.text).to.equal(200);
    const caps = await w.t.client.get('/api/v1/capabilities');
    expect(caps.body).to.include({ tips: true, targeted_tips: true });
  });
});
