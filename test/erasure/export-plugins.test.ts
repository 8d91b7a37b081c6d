import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { erasurePlugin } from '@wallet/erasure';
import { grinRelayPlugin } from '@wallet/grin-relay';
import { premiumPlugin } from '@wallet/premium';
import { tipsPlugin } from '@wallet/tips';
import { createTestBackend, eachDialect, NostrKey, seedSession, seedUser, useFakes, type TestBackend } from '../harness/index.js';
import { FAKE_API_KEY, FAKE_STORE_ID, GreenfieldFake } from '../fakes/greenfield.js';
import { EsploraFake } from '../fakes/esplora.js';
import { shareSecret, tipAddress } from '../tips/harness.js';
import { API, proof } from './harness.js';

const SLATEPACK = (JSON.parse(readFileSync(new URL('../fixtures/grin-slatepacks.json', import.meta.url), 'utf8')) as { owner_rpc: string }).owner_rpc;
const HOUR_MS = 3_600_000;

/**
 * Export and erasure across every feature package: the user's Grin relay entries, tips and
 * premium invoices appear in the export (without slatepacks, ciphertexts or secret hashes) and
 * are gone or unlinked after the erasure, by each package's own rule; the other user keeps theirs.
 */
eachDialect('erasure: export and erasure across the feature packages', (dialect) => {
  const [btcpay, ltc] = useFakes(new GreenfieldFake(), new EsploraFake());
  let t: TestBackend;
  beforeEach(async () => {
    t = await createTestBackend(dialect, {
      plugins: [
        grinRelayPlugin({}),
        tipsPlugin({ enabled: true, shareBase: 'https://wallet.example.test/tip/' }),
        premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
        erasurePlugin({ enabled: true, gracePeriodHours: 1 }),
      ],
      settings: { ltcEsploraUrl: ltc.url, btcpayUrl: btcpay.url, btcpayStoreId: FAKE_STORE_ID, btcpayApiKey: FAKE_API_KEY, upstreamTimeoutMs: 2_000 },
    });
  });
  afterEach(() => t.close());

  it('exports every section, then erases the user’s part of each and nothing of the other user’s', async () => {
    const key = new NostrKey();
    const { id: userId } = await seedUser(t.backend, { nostrPubkey: key.pubkey, username: 'erin' });
    const token = (await t.backend.sessions.start(userId, 'extension')).access_token;
    // Premium sells only to an account with a linked Nostr key (the relay admits by that key).
    const other = await seedSession(t.backend, 'extension', { nostrPubkey: new NostrKey().pubkey });
    const otherToken = other.auth.access_token;

    // Grin relay: one entry each way.
    const slateOut = randomUUID();
    const slateIn = randomUUID();
    expect((await t.client.post(`${API}/wallet/grin/relay/create`, { recipient_user_id: other.userId, slate_id: slateOut, slatepack: SLATEPACK, amount_nanogrin: 7 }, { token })).status).to.equal(200);
    expect((await t.client.post(`${API}/wallet/grin/relay/create`, { recipient_user_id: userId, slate_id: slateIn, slatepack: SLATEPACK, amount_nanogrin: 8 }, { token: otherToken })).status).to.equal(200);
    // Tips: a draft by the user (over once cancelled by erasure rules: deleted) and one by the other user.
    const secret = shareSecret();
    const draft = await t.client.post(`${API}/tips/social`, { asset: 'ltc', amount: '50000', tip_address: tipAddress('ltc'), secret_hash: secret.hash, ciphertext: 'sealed-claim-key', draft: true }, { token });
    expect(draft.status, draft.text).to.equal(200);
    const othersTip = await t.client.post(`${API}/tips/social`, { asset: 'ltc', amount: '60000', tip_address: tipAddress('ltc'), secret_hash: shareSecret().hash, draft: true }, { token: otherToken });
    expect(othersTip.status, othersTip.text).to.equal(200);
    // Premium: one invoice each.
    const invoice = await t.client.post(`${API}/premium/invoice`, { plan: 'month' }, { token });
    expect(invoice.status, invoice.text).to.equal(200);
    expect((await t.client.post(`${API}/premium/invoice`, { plan: 'month' }, { token: otherToken })).status).to.equal(200);

    const exported = await t.client.post(`${API}/account/export`, await proof(t, key, 'erasure_export', `${API}/account/export`));
    expect(exported.status, exported.text).to.equal(200);
    const sections = exported.body.sections as Record<string, any>;
    expect(Object.keys(sections)).to.deep.equal(['core', 'grin-relay', 'tips', 'premium', 'erasure']);
    expect(sections['grin-relay'].entries.map((entry: any) => [entry.slate_id, entry.role, entry.amount_nanogrin])).to.deep.equal([
      [slateOut, 'sender', '7'],
      [slateIn, 'recipient', '8'],
    ]);
    expect(sections.tips.sent.map((tip: any) => [tip.tip_id, tip.status, tip.amount])).to.deep.equal([[draft.body.tip_id, 'draft', '50000']]);
    expect(sections.tips.received).to.deep.equal([]);
    expect(sections.premium).to.deep.include({ premium_until: null });
    expect(sections.premium.invoices.map((entry: any) => [entry.invoice_id, entry.plan, entry.activated_at])).to.deep.equal([[invoice.body.invoice_id, 'month', null]]);
    expect(sections.erasure).to.deep.equal({ requests: [] });
    const text = exported.text;
    for (const secretValue of [SLATEPACK.slice(20, 60), 'sealed-claim-key', secret.hash]) expect(text, 'no slatepack, ciphertext or secret hash').to.not.include(secretValue);

    const requested = await t.client.post(`${API}/account/erasure`, await proof(t, key, 'erasure_request', `${API}/account/erasure`));
    const confirmPath = `${API}/account/erasure/${requested.body.erasure_id}/confirm`;
    expect((await t.client.post(confirmPath, await proof(t, key, 'erasure_confirm', confirmPath))).status).to.equal(200);
    t.clock.advance(HOUR_MS);
    await t.backend.scheduler.runNow('erasure.sweep');

    const knex = t.backend.db.knex;
    expect(await knex('users').where({ id: userId }).first()).to.equal(undefined);
    // Relay: the user's sent entry is deleted; the entry to the user stays for its sender, unlinked and cancelled.
    expect(await knex('grin_relay_entries').where({ slate_id: slateOut }).first()).to.equal(undefined);
    expect(await knex('grin_relay_entries').where({ slate_id: slateIn }).first()).to.include({ recipient_user_id: null, status: 'cancelled', sender_user_id: other.userId });
    // Tips: the user's draft (over) is deleted; the other user's stays as it was.
    expect(await knex('social_tips').where({ id: draft.body.tip_id }).first()).to.equal(undefined);
    expect(await knex('social_tips').where({ id: othersTip.body.tip_id }).first()).to.include({ sender_user_id: other.userId, status: 'draft' });
    // Premium: the user's invoices are gone, the other user's stays.
    expect(await knex('premium_invoices').where({ user_id: userId })).to.deep.equal([]);
    expect(await knex('premium_invoices').where({ user_id: other.userId })).to.have.length(1);
    expect((await t.backend.setup.verifyAudit()).ok).to.equal(true);
  });
});
