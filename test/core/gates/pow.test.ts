import { expect } from 'chai';
import { BtcKey, eachDialect, extensionBody, NostrKey, useTestBackend, type TestBackend } from '../../harness/index.js';
import { solvePow } from './pow-solver.js';

async function solution(t: TestBackend): Promise<string> {
  const res = await t.client.post('/api/v1/auth/pow-challenge');
  expect(res.status).to.equal(200);
  expect(res.body.parameters).to.include.keys('algorithm', 'nonce', 'salt', 'keyPrefix');
  expect(res.body.signature).to.match(/^[0-9a-f]{64}$/);
  return solvePow(res.body);
}

eachDialect('gates: proof of work (ALTCHA)', (dialect) => {
  const t = useTestBackend(dialect, { settings: { registrationRequirePow: true, powDifficulty: 2_000 } });
  const register = (btc: BtcKey, fields: Record<string, unknown> = {}) => t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), fields));

  it('a new wallet needs a solved challenge; with one it registers', async () => {
    const missing = await register(new BtcKey());
    expect(missing.status).to.equal(400);
    expect(missing.body.error.code).to.equal('pow_required');
    expect((await register(new BtcKey(), { altcha_solution: Buffer.from('{}').toString('base64') })).body.error.code).to.equal('pow_invalid');
    expect((await register(new BtcKey(), { altcha_solution: 'not base64 json' })).body.error.code).to.equal('pow_invalid');
    expect((await register(new BtcKey(), { altcha_solution: await solution(t) })).status).to.equal(200);
  });

  it('a solution is accepted once, and a tampered one never', async () => {
    const solved = await solution(t);
    expect((await register(new BtcKey(), { altcha_solution: solved })).status).to.equal(200);
    const replay = await register(new BtcKey(), { altcha_solution: solved });
    expect(replay.status).to.equal(400);
    expect(replay.body.error.code).to.equal('pow_invalid');
    const payload = JSON.parse(Buffer.from(await solution(t), 'base64').toString());
    payload.solution.derivedKey = payload.solution.derivedKey.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a'));
    expect((await register(new BtcKey(), { altcha_solution: Buffer.from(JSON.stringify(payload)).toString('base64') })).body.error.code).to.equal('pow_invalid');
    const forged = JSON.parse(Buffer.from(await solution(t), 'base64').toString());
    forged.challenge.parameters.data.expires += 3600;
    expect((await register(new BtcKey(), { altcha_solution: Buffer.from(JSON.stringify(forged)).toString('base64') })).body.error.code).to.equal('pow_invalid');
  });

  it('an expired challenge is refused (by the injected clock)', async () => {
    const solved = await solution(t);
    t.clock.advance(301_000);
    expect((await register(new BtcKey(), { altcha_solution: solved })).body.error.code).to.equal('pow_invalid');
  });

  it('returning wallets bypass the gate; Nostr registration is gated too', async () => {
    const btc = new BtcKey();
    expect((await register(btc, { altcha_solution: await solution(t) })).status).to.equal(200);
    t.clock.advance(1000);
    expect((await register(btc)).status).to.equal(200);

    const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const nostr = new NostrKey();
    const body = { nostr_token: nostr.signedAction('/api/v1/auth/nostr/register', nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '77777777' };
    expect((await t.client.post('/api/v1/auth/nostr/register', body)).body.error.code).to.equal('pow_required');
    const again = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
    const solved = { nostr_token: nostr.signedAction('/api/v1/auth/nostr/register', again, 'nostr_register', t.clock.now()), nonce: again, seed_fingerprint: '77777777', altcha_solution: await solution(t) };
    expect((await t.client.post('/api/v1/auth/nostr/register', solved)).status).to.equal(200);
  });

  it('capabilities advertise proof of work', async () => {
    const caps = (await t.client.get('/api/v1/capabilities')).body;
    expect(caps).to.include({ proof_of_work: true, invite_required: false, payment_required: false, registration_price: null });
  });
});
