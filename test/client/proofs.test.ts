import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  altchaDeriveKey,
  bitcoinMessageDigest,
  buildErasureProof,
  buildExtensionLogin,
  buildKeyProof,
  buildNip98Event,
  buildNostrLink,
  buildNostrLogin,
  buildNostrRegister,
  buildSignedAction,
  buildWebsiteLogin,
  extensionLoginMessage,
  keyRegistrationMessage,
  keyRotationMessage,
  memoryBitcoinSigner,
  memoryNostrSigner,
  nostrMergeMessage,
  pubkeyHash,
  requestDescriptorHash,
  solveAltcha,
  type AltchaChallenge,
  type MessageAsset,
  type NostrEvent,
} from '@wallet/client';
import { erasurePlugin } from '@wallet/erasure';
import { verifyAssetSignature, verifyNip98 } from '../../packages/core/src/crypto/index.js';
import { eachDialect, rejectionOf, TEST_PUBLIC_API_URL, useTestBackend, type TestBackend } from '../harness/index.js';

/**
 * The client's proof builders against the real-wallet vectors (test/vectors), the worked examples
 * of docs/wallet-integration.md, and the server over HTTP. Every expected value comes from a vector
 * or the docs, never from the function under test.
 */

const DOC_SERVICE = 'https://wallet.example.com';
const DOC_TIME = 1767225600;
const DOC_BTC_SECRET = hexToBytes('038b01f79626f7b1d212867541b6808864d4b0b0adb631459f49adfae85eb54e');
const DOC_NOSTR_SECRET = hexToBytes('71e7da8e54c96d8530f8c87c96ab7af5367e9ceb6438d776de1c24e16742fa2a');
const DOC_NONCE = '257427bf9a5fe4507252e94151e3a16f88551d6ca9bb1b429b577a3dd7aa0be6';

interface BitcoinCase {
  id: string;
  network: string;
  address_type: string;
  pubkey: string;
  key_source?: string;
  message: string;
  message_utf8_hex: string;
  signature: string;
  signature_header_byte: number | null;
  expected_valid: boolean;
  negative_reason?: string;
}
interface NostrCase {
  id: string;
  key: string;
  public_key_hex: string;
  request: { url: string; method: string; body: string | null };
  event: NostrEvent | null;
  authorization_header_base64: string;
  expected_valid: boolean;
}

const vectors = <T>(name: string): T[] => (JSON.parse(readFileSync(new URL(`../vectors/${name}.json`, import.meta.url), 'utf8')) as { cases: T[] }).cases;
const decodeToken = (token: string): NostrEvent => JSON.parse(Buffer.from(token.replace(/^Nostr /, ''), 'base64').toString('utf8')) as NostrEvent;
const randomSecret = (): Uint8Array => secp256k1.utils.randomSecretKey();

/** The key that signed `signature` over `digest`, in the encoding its header names. */
function recoverHex(digest: Uint8Array, signature: string): string | null {
  try {
    const bytes = Uint8Array.from(Buffer.from(signature, 'base64'));
    const header = bytes[0]!;
    return secp256k1.Signature.fromBytes(bytes.slice(1), 'compact').addRecoveryBit((header - 27) & 3).recoverPublicKey(digest).toHex(header >= 31);
  } catch {
    return null;
  }
}

describe('@wallet/client proofs: real-wallet vectors and the docs', () => {
  describe('memoryBitcoinSigner', () => {
    // The BIP39 test mnemonic is public, so Electrum's signatures by its keys can be reproduced exactly (RFC 6979).
    const seed = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    const reproducible = vectors<BitcoinCase>('btc').filter(
      (c) => c.expected_valid && c.key_source?.startsWith('BIP39 test mnemonic') && c.signature_header_byte !== null && c.signature_header_byte >= 31 && c.signature_header_byte <= 34,
    );

    it('reproduces Electrum 4.3.4 signatures byte for byte for every BIP39-test-mnemonic case', () => {
      expect(reproducible.length).to.be.greaterThan(0);
      for (const c of reproducible) {
        const purpose = /m\/(\d+)'/.exec(c.key_source!)![1];
        const index = Number(/receiving index (\d+)/.exec(c.key_source!)![1]);
        const coin = c.network === 'mainnet' ? 0 : 1;
        const key = HDKey.fromMasterSeed(seed).derive(`m/${purpose}'/${coin}'/0'/0/${index}`);
        const signer = memoryBitcoinSigner(key.privateKey!);
        expect(signer.publicKey(), c.id).to.equal(c.pubkey);
        expect(signer.signMessage(c.message), c.id).to.equal(c.signature);
      }
    });

    it('btc signs low-R like Electrum (every Electrum vector is low-R); ltc signs plain RFC 6979 like litecoind (its vectors include high R)', () => {
      const rFirstByte = (signature: string): number => Buffer.from(signature, 'base64')[1]!;
      expect(vectors<BitcoinCase>('btc').filter((c) => c.expected_valid).every((c) => rFirstByte(c.signature) < 0x80)).to.equal(true);
      expect(vectors<BitcoinCase>('ltc').some((c) => c.expected_valid && rFirstByte(c.signature) >= 0x80)).to.equal(true);
      const secret = randomSecret();
      const btc = memoryBitcoinSigner(secret);
      const ltc = memoryBitcoinSigner(secret, { asset: 'ltc' });
      expect([btc.lowR, ltc.lowR]).to.deep.equal([true, false]);
      const messages = Array.from({ length: 40 }, (_, i) => `message ${i}`);
      expect(messages.every((m) => rFirstByte(btc.signMessage(m)) < 0x80)).to.equal(true);
      expect(messages.some((m) => rFirstByte(ltc.signMessage(m)) >= 0x80)).to.equal(true);
    });

    it('reproduces the docs worked examples (login, rotation, Nostr merge, website login)', () => {
      const signer = memoryBitcoinSigner(DOC_BTC_SECRET);
      expect(signer.publicKey()).to.equal('0206f2d1be23c38e681cdffef496c7c937d66f75f14d02c6653ab1cef2d0e9476c');
      expect(pubkeyHash(signer.publicKey())).to.equal('33b280400e4abf62a7c3886e8c632d171290a1fb');
      expect(signer.signMessage(keyRotationMessage(DOC_SERVICE, '5221545d2c5bf716dc963f95de1d99241e3d2ad3', DOC_TIME))).to.equal(
        'IAZSW2teXGSiO2Oz/E6XJOLe6rFebVIDZ443R3PPMQKVADyjd0creWjPeuAwkYNpspGqNhPeyOMCN3Ps5gWaUok=',
      );
      expect(nostrMergeMessage(DOC_SERVICE, '1af6ba49f34b2dd5e535d1e656a097c054f4a85f036b9955ad8d33b6e725ca87', DOC_NONCE)).to.equal(
        `Wallet Backend Nostr registration\nservice: https://wallet.example.com\nnostr_pubkey: 1af6ba49f34b2dd5e535d1e656a097c054f4a85f036b9955ad8d33b6e725ca87\nnonce: ${DOC_NONCE}`,
      );
      const challenge = `https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example.com\nchallenge: ${DOC_NONCE}\nexpires: 2026-01-01T00:05:00.000Z`;
      expect(signer.signMessage(challenge)).to.equal('HyXHC5syGWrbJEExY2NLaey2MGSFeW0fn3ucMwtMIe8YYObJxAVE1F9kDWqTYw10Ww0UioZdyaK0hH0hausI9k0=');
    });

    for (const asset of ['btc', 'ltc'] as const) {
      it(`hashes ${asset} messages exactly as the real wallet did: every valid P2PKH vector recovers its key`, () => {
        const cases = vectors<BitcoinCase>(asset).filter((c) => c.expected_valid && c.address_type === 'p2pkh');
        expect(cases.length).to.be.greaterThan(5);
        for (const c of cases) {
          expect(bytesToHex(utf8ToBytes(c.message)), c.id).to.equal(c.message_utf8_hex);
          expect(recoverHex(bitcoinMessageDigest(asset, c.message), c.signature), c.id).to.equal(c.pubkey.toLowerCase());
        }
      });

      it(`${asset}: the other chain's magic recovers another key (the vectors' cross-magic negatives)`, () => {
        const other: MessageAsset = asset === 'btc' ? 'ltc' : 'btc';
        const cross = vectors<BitcoinCase>(asset).filter((c) => !c.expected_valid && /litecoin|bitcoin|magic/i.test(c.negative_reason ?? '') && !/header/i.test(c.negative_reason ?? ''));
        expect(cross.length).to.be.greaterThan(0);
        for (const c of cross) {
          expect(recoverHex(bitcoinMessageDigest(asset, c.message), c.signature), c.id).to.not.equal(c.pubkey.toLowerCase());
          expect(recoverHex(bitcoinMessageDigest(other, c.message), c.signature), c.id).to.equal(c.pubkey.toLowerCase());
        }
      });

      it(`${asset}: signatures over every vector message, compressed and uncompressed, pass the server's verifier with the wallets' headers`, () => {
        for (const compressed of [true, false]) {
          const signer = memoryBitcoinSigner(randomSecret(), { asset, compressed });
          expect(signer.publicKey()).to.match(compressed ? /^0[23][0-9a-f]{64}$/ : /^04[0-9a-f]{128}$/);
          for (const c of vectors<BitcoinCase>(asset).filter((v) => v.expected_valid)) {
            const signature = signer.signMessage(c.message);
            const header = Buffer.from(signature, 'base64')[0]!;
            expect(header).to.be.within(compressed ? 31 : 27, compressed ? 34 : 30);
            expect(verifyAssetSignature({ asset, publicKey: signer.publicKey(), message: hexToBytes(c.message_utf8_hex), signature, cryptonoteNetwork: 'mainnet' }), c.id).to.equal(true);
            const otherAsset: MessageAsset = asset === 'btc' ? 'ltc' : 'btc';
            expect(verifyAssetSignature({ asset: otherAsset, publicKey: signer.publicKey(), message: hexToBytes(c.message_utf8_hex), signature, cryptonoteNetwork: 'mainnet' })).to.equal(false);
          }
        }
      });
    }
  });

  describe('NIP-98 and signed actions', () => {
    const nostrSecrets: Record<string, Uint8Array> = {
      sk1: new Uint8Array(32).fill(1),
      sk2: new Uint8Array(32).fill(2),
      sk3: new Uint8Array(32).fill(3),
      sk4: sha256(utf8ToBytes('nostr-nip98-test-vector-4')),
    };

    it('rebuilds every valid nostr-tools vector event: same JSON but for the (randomised) sig, and the sig verifies', async () => {
      const cases = vectors<NostrCase>('nostr').filter((c) => c.expected_valid && c.event !== null);
      expect(cases.length).to.be.greaterThan(3);
      for (const c of cases) {
        const signer = memoryNostrSigner(nostrSecrets[c.key]!);
        expect(signer.getPublicKey(), c.id).to.equal(c.public_key_hex);
        const proof = await buildNip98Event({ signer, url: c.request.url, method: c.request.method, createdAt: c.event!.created_at, ...(c.request.body === null ? {} : { body: c.request.body }) });
        expect(proof.event.id, c.id).to.equal(c.event!.id);
        const vectorJson = Buffer.from(c.authorization_header_base64, 'base64').toString('utf8');
        expect(Buffer.from(proof.token, 'base64').toString('utf8').replace(proof.event.sig, c.event!.sig), c.id).to.equal(vectorJson);
        expect(proof.authorization).to.equal(`Nostr ${proof.token}`);
        expect(schnorr.verify(hexToBytes(proof.event.sig), hexToBytes(proof.event.id), hexToBytes(proof.event.pubkey)), c.id).to.equal(true);
        const verified = verifyNip98({ authorization: proof.authorization, url: c.request.url, method: c.request.method, body: utf8ToBytes(c.request.body ?? ''), now: new Date(c.event!.created_at * 1000) });
        expect(verified.ok, c.id).to.equal(true);
      }
    });

    it('reproduces the docs Nostr login and link events (ids; sigs verify)', async () => {
      const signer = memoryNostrSigner(DOC_NOSTR_SECRET);
      expect(signer.getPublicKey()).to.equal('1af6ba49f34b2dd5e535d1e656a097c054f4a85f036b9955ad8d33b6e725ca87');
      const login = await buildNostrLogin({ signer, service: `${DOC_SERVICE}/`, createdAt: DOC_TIME });
      expect(login.event.id).to.equal('95b078010dbb97701cd00867f3a12e4e362beb280bcf51929be4d679917f7259');
      expect(login.event.tags).to.deep.equal([['u', 'https://wallet.example.com/api/v1/auth/nostr'], ['method', 'POST']]);
      const link = decodeToken((await buildNostrLink({ signer, service: DOC_SERVICE, nonce: DOC_NONCE, createdAt: DOC_TIME })).nostr_token);
      expect(link.id).to.equal('fe19a15c67dde7f67787af6f71110339a4458cbc3e33649f06eef625cc05467e');
      expect(link.tags.map((tag) => tag[0])).to.deep.equal(['u', 'method', 'nonce', 'purpose', 'descriptor']);
      expect(link.tags[4]![1]).to.equal('8d6aaf2ed65252d1be6090415915736c40d775b9f12ade15c3af71bc02cdcc49');
      for (const event of [login.event, link]) expect(schnorr.verify(hexToBytes(event.sig), hexToBytes(event.id), hexToBytes(event.pubkey))).to.equal(true);
    });

    it('computes the docs descriptor known answers', () => {
      expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/link' })).to.equal('8d6aaf2ed65252d1be6090415915736c40d775b9f12ade15c3af71bc02cdcc49');
      expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/register' })).to.equal('b694a26ef66a1bd79328a7d3224ad10574c207ca85a40c0d2ac37ce759825089');
      expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/demo/items/42/approve', query: 'mode=fast' })).to.equal('ff05e0451dcbeb243ac4a8433e2a63446c880010350fd778ee5ab0a1a7dff0f2');
      expect(requestDescriptorHash({ method: 'POST', path: '/api/v1/demo/items/42/approve' })).to.equal('7a8e45b20ceeb816199d3b0c91f3b38adcff2e0c267e5c1f07adb345bd7912ba');
      expect(requestDescriptorHash({ method: 'delete', path: '/api/v1/demo/items/42', query: 'mode=fast&x=1', body: '{"a":1}' })).to.equal('f98ffe2c0305c2d64bf300ea1c85dc4862d872072910b355d9d715a75027e5c3');
    });
  });

  describe('builders against the docs worked examples', () => {
    it('extension login: the docs request byte for byte', async () => {
      const body = await buildExtensionLogin({
        signer: memoryBitcoinSigner(DOC_BTC_SECRET),
        service: DOC_SERVICE,
        seedFingerprint: 'a1b2c3d4',
        keys: [
          { asset: 'btc', public_key: '0206f2d1be23c38e681cdffef496c7c937d66f75f14d02c6653ab1cef2d0e9476c' },
          { asset: 'grin', public_key: 'bad512b2ebbaffc70408bb7eeb43c2847d09bae46acad2ed92b21d653322ac71' },
        ],
        timestamp: DOC_TIME,
      });
      expect(JSON.stringify(body)).to.equal(
        JSON.stringify({
          pubkey_hash: '33b280400e4abf62a7c3886e8c632d171290a1fb',
          seed_fingerprint: 'a1b2c3d4',
          keys: [
            { asset: 'btc', public_key: '0206f2d1be23c38e681cdffef496c7c937d66f75f14d02c6653ab1cef2d0e9476c' },
            { asset: 'grin', public_key: 'bad512b2ebbaffc70408bb7eeb43c2847d09bae46acad2ed92b21d653322ac71' },
          ],
          timestamp: 1767225600,
          signature: 'HwV92Ntrra88hWyNSxGPCxFnKGyQdowlvNDvG6vuAAolGt8WqAc1oKpObPVxTvj/3GYvz+qp/2cWtzFoK5nhqHg=',
        }),
      );
    });

    it('Nostr register: the docs merge signature, and a signer of the wrong asset is refused', async () => {
      const body = await buildNostrRegister({ signer: memoryNostrSigner(DOC_NOSTR_SECRET), service: DOC_SERVICE, nonce: DOC_NONCE, seedFingerprint: 'a1b2c3d4', mergeSigner: memoryBitcoinSigner(DOC_BTC_SECRET), createdAt: DOC_TIME });
      expect(body.merge_signature).to.equal('IFMDbd3Msky2MZEiYBuG3+2uJr53/Y/h8FHsgkX+Q9PjINxbMrJ63rmdfcem7Ktkd/cyFwREtb+NcCjKYzLzOIc=');
      expect(decodeToken(body.nostr_token).tags[4]![1]).to.equal('b694a26ef66a1bd79328a7d3224ad10574c207ca85a40c0d2ac37ce759825089');
      let refused: unknown;
      await buildExtensionLogin({ signer: memoryBitcoinSigner(DOC_BTC_SECRET, { asset: 'ltc' }), service: DOC_SERVICE, seedFingerprint: 'a1b2c3d4' }).catch((err: unknown) => (refused = err));
      expect(refused).to.be.instanceOf(Error);
    });

    it('website login: the docs btc signature over the docs challenge', async () => {
      const challenge = `https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example.com\nchallenge: ${DOC_NONCE}\nexpires: 2026-01-01T00:05:00.000Z`;
      const body = await buildWebsiteLogin({ challenge: { challenge, challenge_id: DOC_NONCE }, asset: 'btc', signer: memoryBitcoinSigner(DOC_BTC_SECRET), expectedOrigin: 'https://shop.example', expectedService: DOC_SERVICE });
      expect(body).to.deep.equal({ challenge_id: DOC_NONCE, asset: 'btc', public_key: '0206f2d1be23c38e681cdffef496c7c937d66f75f14d02c6653ab1cef2d0e9476c', signature: 'HyXHC5syGWrbJEExY2NLaey2MGSFeW0fn3ucMwtMIe8YYObJxAVE1F9kDWqTYw10Ww0UioZdyaK0hH0hausI9k0=' });
    });

    it('website login signs only a login challenge for its challenge_id: a key-proof text or a challenge for another id is refused before the key is asked', async () => {
      let asked = 0;
      const inner = memoryBitcoinSigner(DOC_BTC_SECRET);
      const signer = { asset: 'btc' as const, publicKey: () => inner.publicKey(), signMessage: (message: string) => (asked++, inner.signMessage(message)) };
      const keyProofText = ['Wallet Backend key registration', 'service: https://wallet.example.com', 'user: 0b5c6b5e-4a4e-4d7a-9a0f-6a3c1f0e2d11', 'asset: btc', 'public_key: 02aa'].join('\n');
      const login = `https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example.com\nchallenge: ${DOC_NONCE}\nexpires: 2026-01-01T00:05:00.000Z`;
      for (const [challenge, id] of [[keyProofText, DOC_NONCE], [`${login}\n`, DOC_NONCE], [login, 'f'.repeat(64)]] as const) {
        expect(await rejectionOf(buildWebsiteLogin({ challenge: { challenge, challenge_id: id }, asset: 'btc', signer, expectedOrigin: 'https://shop.example', expectedService: DOC_SERVICE }))).to.be.instanceOf(TypeError);
      }
      expect(await rejectionOf(buildWebsiteLogin({ challenge: { challenge: login, challenge_id: DOC_NONCE }, asset: 'btc', signer, expectedOrigin: 'https://shop.example', expectedService: 'https://other.example' }))).to.be.instanceOf(TypeError);
      // A phishing page fetched a challenge naming shop.example: the wallet knows the page that asked is another origin.
      expect(await rejectionOf(buildWebsiteLogin({ challenge: { challenge: login, challenge_id: DOC_NONCE }, asset: 'btc', signer, expectedOrigin: 'https://shop.example.evil', expectedService: DOC_SERVICE }))).to.be.instanceOf(TypeError);
      expect(asked, 'the key was never asked to sign').to.equal(0);
    });

    it('a Nostr signer that signs with another key than it reports is refused, so no merge proof vouches for a stranger’s npub', async () => {
      const reported = memoryNostrSigner(hexToBytes('11'.repeat(32)));
      const actual = memoryNostrSigner(hexToBytes('22'.repeat(32)));
      const twoFaced = { getPublicKey: () => reported.getPublicKey(), signEvent: (template: Parameters<typeof actual.signEvent>[0]) => actual.signEvent(template) };
      const url = `${DOC_SERVICE}/api/v1/auth/nostr`;
      expect(await rejectionOf(buildNip98Event({ signer: twoFaced, url, method: 'POST' }))).to.be.instanceOf(Error);
      expect(await rejectionOf(buildNostrRegister({ signer: twoFaced, service: DOC_SERVICE, nonce: DOC_NONCE, seedFingerprint: 'a1b2c3d4', mergeSigner: memoryBitcoinSigner(DOC_BTC_SECRET) }))).to.be.instanceOf(Error);
      // A forged signature under the reported key is refused too.
      const forger = { getPublicKey: () => reported.getPublicKey(), signEvent: async (template: Parameters<typeof actual.signEvent>[0]) => ({ ...(await reported.signEvent(template)), sig: '00'.repeat(64) }) };
      expect(await rejectionOf(buildNip98Event({ signer: forger, url, method: 'POST' }))).to.be.instanceOf(Error);
      expect((await buildNip98Event({ signer: reported, url, method: 'POST' })).event.pubkey).to.equal(reported.getPublicKey());
    });

    it('no text a key signs can carry a forged line, and a signed action takes only its challenge’s nonce and a full /api/v1 path', async () => {
      expect(() => extensionLoginMessage(`${DOC_SERVICE}\npubkey_hash: 00`, '00', 1)).to.throw(TypeError);
      expect(() => keyRotationMessage(DOC_SERVICE, '', 1)).to.throw(TypeError);
      expect(() => nostrMergeMessage(DOC_SERVICE, 'ab\r', DOC_NONCE)).to.throw(TypeError);
      expect(() => keyRegistrationMessage({ service: DOC_SERVICE, userId: 'u\nasset: btc' }, 'ltc', '02aa')).to.throw(TypeError);
      const signer = memoryNostrSigner(hexToBytes('33'.repeat(32)));
      const action = { signer, service: DOC_SERVICE, method: 'POST', purpose: 'nostr_link', body: '' } as const;
      expect(await rejectionOf(buildSignedAction({ ...action, path: '/api/v1/auth/nostr/link', nonce: 'not-a-nonce' }))).to.be.instanceOf(TypeError);
      expect(await rejectionOf(buildSignedAction({ ...action, path: '/auth/nostr/link', nonce: DOC_NONCE }))).to.be.instanceOf(TypeError);
      expect(await rejectionOf(buildSignedAction({ ...action, path: '/api/v1/auth/nostr/link?x=1', nonce: DOC_NONCE }))).to.be.instanceOf(TypeError);
      expect((await buildSignedAction({ ...action, path: '/api/v1/auth/nostr/link', nonce: DOC_NONCE })).nonce).to.equal(DOC_NONCE);
    });

    it('ALTCHA: a challenge asking more than MAX_ALTCHA_COST hash rounds per attempt is refused before any work', async () => {
      const parameters = { algorithm: 'SHA-256', nonce: '00'.repeat(16), salt: '00'.repeat(16), cost: 1_001, keyLength: 32, keyPrefix: '00' };
      expect(((await rejectionOf(solveAltcha({ parameters, signature: '00'.repeat(32) }))) as Error).message).to.match(/cost/);
      expect((await solveAltcha({ parameters: { ...parameters, cost: 1 }, signature: '00'.repeat(32) })).derivedKey).to.match(/^00/);
    });

    it('key proof: the docs key-registration text (signed by a btc key the server verifies)', async () => {
      const signer = memoryBitcoinSigner(DOC_BTC_SECRET);
      const body = await buildKeyProof({ service: DOC_SERVICE, userId: '6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab', asset: 'btc', signer });
      const docText = `Wallet Backend key registration\nservice: https://wallet.example.com\nuser: 6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab\nasset: btc\npublic_key: ${signer.publicKey()}`;
      expect(verifyAssetSignature({ asset: 'btc', publicKey: body.public_key, message: utf8ToBytes(docText), signature: body.signature, cryptonoteNetwork: 'mainnet' })).to.equal(true);
    });

    it('ALTCHA: the docs derived key for counter 1234, and the solver finds it', async () => {
      const parameters = { algorithm: 'SHA-256', cost: 1, keyLength: 32, salt: '9edbdb6ab36a87577b146a4c435d0901', nonce: 'a8259484dff39986ac3298c827ad1b19', keyPrefix: '9a6b1e65b23918523e7c452436107512' };
      expect(bytesToHex(altchaDeriveKey(parameters, 1234))).to.equal('9a6b1e65b23918523e7c4524361075127b54a4f42b657cffa6e314190374318b');
      const challenge: AltchaChallenge = { parameters, signature: '00'.repeat(32) };
      const solved = await solveAltcha(challenge);
      expect(solved).to.include({ counter: 1234, attempts: 1235, derivedKey: '9a6b1e65b23918523e7c4524361075127b54a4f42b657cffa6e314190374318b' });
      expect(JSON.parse(Buffer.from(solved.payload, 'base64').toString('utf8'))).to.deep.equal({ challenge, solution: { counter: 1234, derivedKey: solved.derivedKey } });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// End to end: the server accepts what the client builds, on both dialects.

async function register(t: TestBackend, signer = memoryBitcoinSigner(randomSecret()), gates = {}): Promise<{ userId: string; token: string }> {
  const res = await t.client.post('/api/v1/auth/extension', await buildExtensionLogin({ signer, service: TEST_PUBLIC_API_URL, seedFingerprint: 'a1b2c3d4', timestamp: t.clock.now(), gates }));
  expect(res.status, res.text).to.equal(200);
  return { userId: res.body.user_id, token: res.body.access_token };
}

async function websiteChallenge(t: TestBackend): Promise<{ challenge: string; challenge_id: string }> {
  const issued = await t.client.post('/api/v1/auth/website/challenge', { origin: 'https://shop.example' });
  expect(issued.status, issued.text).to.equal(200);
  return issued.body;
}

eachDialect('@wallet/client proofs accepted by the server', (dialect) => {
  describe('core proofs', () => {
    const t = useTestBackend(dialect);

    it('extension: registers, logs in again, rotates; a tampered signature is refused', async () => {
      const secret = randomSecret();
      const first = await register(t, memoryBitcoinSigner(secret));
      t.clock.advance(1000);
      expect((await register(t, memoryBitcoinSigner(secret))).userId).to.equal(first.userId);
      t.clock.advance(1000);
      // The same key uncompressed (legacy wallets) is the same identity.
      expect((await register(t, memoryBitcoinSigner(secret, { compressed: false }))).userId).to.equal(first.userId);
      t.clock.advance(1000);
      const next = memoryBitcoinSigner(randomSecret());
      const rotated = await buildExtensionLogin({ signer: next, previousSigner: memoryBitcoinSigner(secret), service: TEST_PUBLIC_API_URL, seedFingerprint: 'a1b2c3d4', timestamp: t.clock.now() });
      const res = await t.client.post('/api/v1/auth/extension', rotated);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.user_id).to.equal(first.userId);
      t.clock.advance(1000);
      const tampered = await buildExtensionLogin({ signer: next, service: TEST_PUBLIC_API_URL, seedFingerprint: 'a1b2c3d4', timestamp: t.clock.now() });
      tampered.timestamp += 1;
      expect((await t.client.post('/api/v1/auth/extension', tampered)).status).to.equal(401);
    });

    it('keys: btc and ltc proofs (compressed and uncompressed) are stored proven; a tampered proof is key_proof_invalid', async () => {
      const { userId, token } = await register(t);
      for (const asset of ['btc', 'ltc'] as const) {
        for (const compressed of [true, false]) {
          const body = await buildKeyProof({ service: TEST_PUBLIC_API_URL, userId, asset, signer: memoryBitcoinSigner(randomSecret(), { asset, compressed }) });
          const res = await t.client.post('/api/v1/keys', body, { token });
          expect(res.status, `${asset} ${compressed} ${res.text}`).to.equal(200);
          expect(res.body.proven).to.equal(true);
        }
      }
      const forOther = await buildKeyProof({ service: TEST_PUBLIC_API_URL, userId: '00000000-0000-4000-8000-000000000000', asset: 'ltc', signer: memoryBitcoinSigner(randomSecret(), { asset: 'ltc' }) });
      const refused = await t.client.post('/api/v1/keys', forOther, { token });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal('key_proof_invalid');
    });

    it('website login: btc identity and proven btc/ltc keys, compressed and uncompressed; a tampered signature is refused', async () => {
      const identity = randomSecret();
      const { userId, token } = await register(t, memoryBitcoinSigner(identity));
      const login = async (signer: ReturnType<typeof memoryBitcoinSigner>): Promise<void> => {
        const body = await buildWebsiteLogin({ challenge: await websiteChallenge(t), asset: signer.asset, signer, expectedOrigin: 'https://shop.example', expectedService: TEST_PUBLIC_API_URL });
        const res = await t.client.post('/api/v1/auth/website/verify', body);
        expect(res.status, `${signer.asset} ${signer.compressed} ${res.text}`).to.equal(200);
        expect(res.body.user_id).to.equal(userId);
      };
      // The account's BTC identity, sent compressed and uncompressed.
      await login(memoryBitcoinSigner(identity));
      await login(memoryBitcoinSigner(identity, { compressed: false }));
      // Keys proven with a key proof (each proof replaces the asset's row, so log in right after it).
      for (const asset of ['btc', 'ltc'] as const) {
        for (const compressed of [true, false]) {
          const signer = memoryBitcoinSigner(randomSecret(), { asset, compressed });
          expect((await t.client.post('/api/v1/keys', await buildKeyProof({ service: TEST_PUBLIC_API_URL, userId, asset, signer }), { token })).status).to.equal(200);
          await login(signer);
        }
      }
      const ltc = memoryBitcoinSigner(randomSecret(), { asset: 'ltc' });
      expect((await t.client.post('/api/v1/keys', await buildKeyProof({ service: TEST_PUBLIC_API_URL, userId, asset: 'ltc', signer: ltc }), { token })).status).to.equal(200);
      const challenge = await websiteChallenge(t);
      // A text of the right shape that is not the one issued (another expiry): the server refuses the signature.
      const tampered = await buildWebsiteLogin({ challenge: { ...challenge, challenge: challenge.challenge.replace(/expires: .*$/, 'expires: 2099-01-01T00:00:00.000Z') }, asset: 'ltc', signer: ltc, expectedOrigin: 'https://shop.example', expectedService: TEST_PUBLIC_API_URL });
      const refused = await t.client.post('/api/v1/auth/website/verify', tampered);
      expect(refused.status).to.equal(401);
      expect(refused.body.error.message).to.equal('Invalid signature');
    });

    it('Nostr: link, login, register with a merge proof; tampered link and login are refused', async () => {
      const btc = memoryBitcoinSigner(randomSecret());
      const { userId, token } = await register(t, btc);
      const nostr = memoryNostrSigner(randomSecret());
      const linkNonce = async (): Promise<string> => (await t.client.get('/api/v1/auth/nostr/link-challenge', { token })).body.nonce;

      const wrongNonce = await buildNostrLink({ signer: nostr, service: TEST_PUBLIC_API_URL, nonce: await linkNonce(), createdAt: t.clock.now() });
      expect((await t.client.post('/api/v1/auth/nostr/link', { ...wrongNonce, nonce: await linkNonce() }, { token })).status).to.equal(401);
      const link = await t.client.post('/api/v1/auth/nostr/link', await buildNostrLink({ signer: nostr, service: TEST_PUBLIC_API_URL, nonce: await linkNonce(), createdAt: t.clock.now() }), { token });
      expect(link.status, link.text).to.equal(200);
      expect(link.body.nostr_pubkey).to.equal(nostr.getPublicKey());

      const login = await buildNostrLogin({ signer: nostr, service: TEST_PUBLIC_API_URL, createdAt: t.clock.now() });
      const res = await t.client.post('/api/v1/auth/nostr', undefined, { headers: { authorization: login.authorization } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.user_id).to.equal(userId);
      const forged = await buildNip98Event({ signer: nostr, url: `${TEST_PUBLIC_API_URL}/api/v1/auth/nostr/link`, method: 'POST', createdAt: t.clock.now().getTime() + 1000 });
      expect((await t.client.post('/api/v1/auth/nostr', undefined, { headers: { authorization: forged.authorization } })).status).to.equal(401);

      // A second wallet's npub joins the account its proven BTC key names.
      const other = memoryNostrSigner(randomSecret());
      const secondBtc = memoryBitcoinSigner(randomSecret());
      const second = await register(t, secondBtc);
      const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce;
      const joined = await t.client.post('/api/v1/auth/nostr/register', await buildNostrRegister({ signer: other, service: TEST_PUBLIC_API_URL, nonce, seedFingerprint: 'a1b2c3d4', mergeSigner: secondBtc, createdAt: t.clock.now() }));
      expect(joined.status, joined.text).to.equal(200);
      expect(joined.body.user_id).to.equal(second.userId);
    });
  });

  describe('erasure signed actions', () => {
    const t = useTestBackend(dialect, { plugins: [erasurePlugin({ enabled: true })] });

    it('request, confirm, cancel and export are accepted; a proof bound to another request is refused', async () => {
      const { token } = await register(t);
      const nostr = memoryNostrSigner(randomSecret());
      const linkNonce = (await t.client.get('/api/v1/auth/nostr/link-challenge', { token })).body.nonce;
      expect((await t.client.post('/api/v1/auth/nostr/link', await buildNostrLink({ signer: nostr, service: TEST_PUBLIC_API_URL, nonce: linkNonce, createdAt: t.clock.now() }), { token })).status).to.equal(200);

      const nonceFor = async (purpose: string): Promise<string> => {
        const res = await t.client.post('/api/v1/account/erasure/challenge', { purpose });
        expect(res.status, res.text).to.equal(200);
        return res.body.nonce;
      };
      const proof = async (action: 'request' | 'confirm' | 'cancel' | 'export', erasureId?: string) =>
        buildErasureProof({ signer: nostr, service: TEST_PUBLIC_API_URL, action, nonce: await nonceFor(`erasure_${action}`), createdAt: t.clock.now(), ...(erasureId === undefined ? {} : { erasureId }) });

      const exported = await t.client.post('/api/v1/account/export', await proof('export'));
      expect(exported.status, exported.text).to.equal(200);
      expect(exported.body.format).to.equal('wallet-backend-export/1');

      const requested = await t.client.post('/api/v1/account/erasure', await proof('request'));
      expect(requested.status, requested.text).to.equal(200);
      const id = requested.body.erasure_id as string;

      // A request proof sent to export: bound to another path and purpose.
      expect((await t.client.post('/api/v1/account/export', await proof('request'))).status).to.equal(401);

      const confirmed = await t.client.post(`/api/v1/account/erasure/${id}/confirm`, await proof('confirm', id));
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(confirmed.body.status).to.equal('confirmed');
      const cancelled = await t.client.delete(`/api/v1/account/erasure/${id}`, await proof('cancel', id));
      expect(cancelled.status, cancelled.text).to.equal(200);
      expect(cancelled.body.status).to.equal('cancelled');
    });
  });

  describe('ALTCHA gate', () => {
    const t = useTestBackend(dialect, { settings: { registrationRequirePow: true, powDifficulty: 2_000 } });

    it('a solved challenge registers a new wallet; a tampered solution is pow_invalid', async () => {
      const issue = async (): Promise<AltchaChallenge> => (await t.client.post('/api/v1/auth/pow-challenge')).body;
      const solved = await solveAltcha(await issue());
      expect(solved.attempts).to.equal(solved.counter + 1);
      await register(t, undefined, { altcha_solution: solved.payload });

      const other = await solveAltcha(await issue());
      const payload = JSON.parse(Buffer.from(other.payload, 'base64').toString('utf8'));
      payload.solution.derivedKey = payload.solution.derivedKey.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a'));
      const body = await buildExtensionLogin({ signer: memoryBitcoinSigner(randomSecret()), service: TEST_PUBLIC_API_URL, seedFingerprint: 'a1b2c3d4', timestamp: t.clock.now(), gates: { altcha_solution: Buffer.from(JSON.stringify(payload)).toString('base64') } });
      const refused = await t.client.post('/api/v1/auth/extension', body);
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal('pow_invalid');
    });
  });
});
