import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createWalletClient, erasureApi, unwrap, WalletApiError } from '@wallet/client';
import { erasurePlugin } from '@wallet/erasure';
import { apiTypesOf, readPublishedDocument } from '../../packages/client/scripts/api-types.mjs';
import { createTestBackend, eachDialect, nostrWallet, rejectionOf, type TestBackend } from '../harness/index.js';

const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

describe('@wallet/client: the HTTP client’s types', () => {
  it('packages/client/src/http/api.ts is what openapi-typescript makes of docs/openapi.json (regenerate: npm run client:types)', async () => {
    const generated = await apiTypesOf(readPublishedDocument(at('docs/openapi.json')));
    expect(readFileSync(at('packages/client/src/http/api.ts'), 'utf8') === generated, 'the committed types drifted from docs/openapi.json: run npm run client:types').to.equal(true);
  });
});

eachDialect('@wallet/client: the typed HTTP client against a running server', (dialect) => {
  let t: TestBackend;
  before(async () => {
    t = await createTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true, gracePeriodHours: 24 })] });
  });
  after(async () => {
    await t.close();
  });

  it('answers a public route with the documented data', async () => {
    const api = createWalletClient({ baseUrl: t.client.baseUrl });
    const health = unwrap(await api.GET('/api/v1/health'));
    expect(health).to.have.property('status', 'ok');
  });

  it('a refusal is a WalletApiError with the stable code, the status and the request id', async () => {
    const api = createWalletClient({ baseUrl: t.client.baseUrl });
    const result = await api.GET('/api/v1/auth/me');
    expect(result.data).to.equal(undefined);
    expect(result.error?.error.code).to.equal('unauthorized');
    const err = (await rejectionOf(Promise.resolve().then(() => unwrap(result)))) as WalletApiError;
    expect(err).to.be.instanceOf(WalletApiError);
    expect([err.status, err.code]).to.deep.equal([401, 'unauthorized']);
    expect(err.requestId).to.match(/^[A-Za-z0-9._-]{8,128}$/);
  });

  it('sends the session’s access token when it has one', async () => {
    const { userId, token } = await nostrWallet(t);
    let current: string | null = null;
    const api = createWalletClient({ baseUrl: t.client.baseUrl, accessToken: () => current });
    expect((await api.GET('/api/v1/auth/me')).response.status).to.equal(401);
    current = token;
    const me = unwrap(await api.GET('/api/v1/auth/me'));
    expect(me.id).to.equal(userId);
    // A request's own Authorization (a NIP-98 login, here a wrong one) is sent as it is, not replaced by the session's token.
    const own = await api.GET('/api/v1/auth/me', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(own.response.status).to.equal(401);
  });

  it('erasure and export, typed by hand, match what the server answers key for key', async () => {
    const erasure = erasureApi({ baseUrl: t.client.baseUrl });
    const challenge = await erasure.challenge('erasure_export');
    expect(Object.keys(challenge).sort()).to.deep.equal(['expires_at', 'nonce', 'purpose']);
    expect(challenge.purpose).to.equal('erasure_export');
    expect(challenge.nonce).to.match(/^[0-9a-f]{64}$/);
    const refused = (await rejectionOf(erasure.challenge('nonsense' as never))) as WalletApiError;
    expect([refused.status, refused.code]).to.deep.equal([400, 'invalid_request']);
    const badProof = (await rejectionOf(erasure.exportAccount({ nostr_token: 'e30=', nonce: challenge.nonce }))) as WalletApiError;
    expect(badProof.status).to.equal(401);
    expect(badProof.code).to.be.a('string').and.not.match(/^http_/);
  });
});
