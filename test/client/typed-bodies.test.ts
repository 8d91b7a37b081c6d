import { expect } from 'chai';
import {
  buildExtensionLogin,
  buildKeyProof,
  buildNostrLink,
  buildNostrRegister,
  buildWebsiteLogin,
  createWalletClient,
  memoryBitcoinSigner,
  memoryNostrSigner,
  seedFingerprint,
  type WalletApi,
} from '@wallet/client';
import { buildCryptonoteKeyProof, buildCryptonoteWebsiteLogin, memoryCryptonoteSigner } from '@wallet/client/cryptonote';
import { buildGrinKeyProof, buildGrinWebsiteLogin, memoryGrinSigner } from '@wallet/client/grin';

/**
 * What the builders return is what the typed client's routes take: these calls are type-checked
 * by `tsc -p test` (CI's typecheck), so a builder whose body drifts from the OpenAPI document's
 * request schema fails the build. The function is compiled, never called.
 */
export async function everyBuilderFitsItsRoute(api: WalletApi, service: string, userId: string, nonce: string): Promise<void> {
  const btc = memoryBitcoinSigner(new Uint8Array(32).fill(1));
  const ltc = memoryBitcoinSigner(new Uint8Array(32).fill(2), { asset: 'ltc' });
  const nostr = memoryNostrSigner(new Uint8Array(32).fill(3));
  const xmr = memoryCryptonoteSigner({ asset: 'xmr', spendKey: new Uint8Array(32).fill(4), viewKey: new Uint8Array(32).fill(5) });
  const grin = memoryGrinSigner(new Uint8Array(32).fill(6));
  const challenge = { challenge: '', challenge_id: '' };
  const audience = { expectedOrigin: 'https://shop.example', expectedService: service };
  await api.POST('/api/v1/auth/extension', { body: await buildExtensionLogin({ signer: btc, service, seedFingerprint: seedFingerprint(new Uint8Array(64)) }) });
  await api.POST('/api/v1/auth/nostr/register', { body: await buildNostrRegister({ signer: nostr, service, nonce, seedFingerprint: seedFingerprint(new Uint8Array(64)) }) });
  await api.POST('/api/v1/auth/nostr/link', { body: await buildNostrLink({ signer: nostr, service, nonce }) });
  await api.POST('/api/v1/keys', { body: await buildKeyProof({ service, userId, asset: 'ltc', signer: ltc }) });
  await api.POST('/api/v1/keys', { body: await buildCryptonoteKeyProof({ service, userId, signer: xmr }) });
  await api.POST('/api/v1/keys', { body: await buildGrinKeyProof({ service, userId, signer: grin }) });
  await api.POST('/api/v1/auth/website/verify', { body: await buildWebsiteLogin({ challenge, asset: 'btc', signer: btc, ...audience }) });
  await api.POST('/api/v1/auth/website/verify', { body: await buildCryptonoteWebsiteLogin({ challenge, signer: xmr, ...audience }) });
  await api.POST('/api/v1/auth/website/verify', { body: await buildGrinWebsiteLogin({ challenge, signer: grin, ...audience }) });
}

describe('@wallet/client: builders fit the typed routes', () => {
  it('is checked by the compiler (this file compiles under tsc -p test)', () => {
    expect(everyBuilderFitsItsRoute).to.be.a('function');
    expect(createWalletClient).to.be.a('function');
  });
});
