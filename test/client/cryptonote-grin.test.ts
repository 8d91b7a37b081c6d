import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  buildCryptonoteKeyProof,
  buildCryptonoteWebsiteLogin,
  cryptonoteMessageHash,
  decodeCryptonoteAddress,
  encodeCryptonoteAddress,
  memoryCryptonoteSigner,
  type CryptonoteNetwork,
  type CryptonoteSigner,
} from '@wallet/client/cryptonote';
import { buildGrinKeyProof, buildGrinKeyProofs, buildGrinWebsiteLogin, memoryGrinSigner, slatepackAddress, slatepackSecretSeed, type GrinSigner } from '@wallet/client/grin';
import { expect } from 'chai';
import { cryptonoteBase58Decode, verifyCryptonoteMessage, verifyGrinMessage } from '../../packages/core/src/crypto/index.js';
import { eachDialect, extensionWallet, loadVectors, REPO_ROOT, TEST_PUBLIC_API_URL, useTestBackend, type TestBackend } from '../harness/index.js';

/** The page that asked to sign in, and this deployment: what the wallet checks a challenge against. */
const AUDIENCE = { expectedOrigin: 'https://shop.example', expectedService: TEST_PUBLIC_API_URL };

/**
 * @wallet/client's Monero/Wownero and Grin entries: their output against real-wallet vectors
 * and the worked examples of docs/wallet-integration.md, then against the server over HTTP.
 */

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const NETWORKS: CryptonoteNetwork[] = ['mainnet', 'stagenet', 'testnet'];
const hex32 = (n: bigint) => bytesToHex(numberToBytesLE(n, 32));
const randomScalarHex = () => hex32((bytesToNumberLE(ed25519.utils.randomSecretKey()) % (L - 1n)) + 1n);
const freshXmr = (asset: 'xmr' | 'wow', network: CryptonoteNetwork = 'mainnet') => memoryCryptonoteSigner({ asset, spendKey: randomScalarHex(), viewKey: randomScalarHex(), network });

/** A signature with one character of its base58 body changed (still well-formed). */
function tamperCryptonote(signature: string): string {
  const last = signature.at(-2) === 'a' ? 'b' : 'a';
  return `${signature.slice(0, -2)}${last}${signature.at(-1)!}`;
}
function tamperHex(signature: string): string {
  return `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`;
}

/** Monero's check_signature, written here from the spec so the client's hash is checked against real wallet signatures. */
function checkSpendSignature(hash: Uint8Array, publicSpendKey: Uint8Array, signature: string): boolean {
  const raw = /^SigV2/.test(signature) ? cryptonoteBase58Decode(signature.slice(5)) : null;
  if (raw === null || raw.length !== 64) return false;
  const c = bytesToNumberLE(raw.subarray(0, 32));
  const r = bytesToNumberLE(raw.subarray(32));
  if (c === 0n || c >= L || r >= L) return false;
  try {
    const X = ed25519.Point.fromBytes(publicSpendKey).multiplyUnsafe(c).add(ed25519.Point.BASE.multiplyUnsafe(r));
    return bytesToNumberLE(keccak_256(concatBytes(hash, publicSpendKey, X.toBytes()))) % L === c;
  } catch {
    return false;
  }
}

interface XmrCase {
  id: string;
  network: CryptonoteNetwork;
  address: string;
  address_kind: string;
  signing_mode: 'spend' | 'view';
  message_utf8_hex: string;
  signature: string;
  expected_valid: boolean;
  address_public_spend_key: string;
  address_public_view_key: string;
}
interface XmrVectors {
  wallets_public: Record<CryptonoteNetwork, Record<string, { address: string; subaddress_0_1: string; public_spend_key: string; public_view_key: string }>>;
  cases: XmrCase[];
}
interface SlatepackVectors {
  encode_decode: { id: string; public_key: string; address_grin: string; address_tgrin: string; derivation?: { secp256k1_child_key?: string; ed25519_secret_seed: string } }[];
}

describe('client: cryptonote against monero-wallet-cli vectors (test/vectors/xmr.json)', () => {
  const vectors = loadVectors<XmrVectors>('xmr.json');

  it("encodes each wallet's public keys to the address the wallet printed, and decodes it back", () => {
    let checked = 0;
    for (const network of NETWORKS) {
      for (const wallet of Object.values(vectors.wallets_public[network])) {
        const keys = { publicSpendKey: hexToBytes(wallet.public_spend_key), publicViewKey: hexToBytes(wallet.public_view_key) };
        expect(encodeCryptonoteAddress({ asset: 'xmr', network, ...keys })).to.equal(wallet.address);
        const decoded = decodeCryptonoteAddress(wallet.address, 'xmr')!;
        expect({ network: decoded.network, kind: decoded.kind, spend: bytesToHex(decoded.publicSpendKey) }).to.deep.equal({ network, kind: 'standard', spend: wallet.public_spend_key });
        expect(decodeCryptonoteAddress(wallet.subaddress_0_1, 'xmr')).to.include({ network, kind: 'subaddress' });
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('decodes every case address to the keys the vector records, and re-encodes subaddresses', () => {
    for (const c of vectors.cases) {
      const decoded = decodeCryptonoteAddress(c.address, 'xmr')!;
      expect(decoded, c.id).to.not.equal(null);
      expect(bytesToHex(decoded.publicSpendKey), c.id).to.equal(c.address_public_spend_key);
      expect(bytesToHex(decoded.publicViewKey), c.id).to.equal(c.address_public_view_key);
      const kind = c.address_kind === 'primary' ? 'standard' : 'subaddress';
      expect(encodeCryptonoteAddress({ asset: 'xmr', network: c.network, kind, publicSpendKey: decoded.publicSpendKey, publicViewKey: decoded.publicViewKey }), c.id).to.equal(c.address);
    }
  });

  it("hashes each message exactly as the wallet did: the wallet's spend-key signatures check against the client's hash", () => {
    const spendCases = vectors.cases.filter((c) => c.signing_mode === 'spend');
    expect(spendCases.filter((c) => c.expected_valid)).to.not.be.empty;
    expect(spendCases.filter((c) => !c.expected_valid)).to.not.be.empty;
    for (const c of spendCases) {
      const A = hexToBytes(c.address_public_spend_key);
      const hash = cryptonoteMessageHash('xmr', A, hexToBytes(c.address_public_view_key), hexToBytes(c.message_utf8_hex));
      expect(checkSpendSignature(hash, A, c.signature), c.id).to.equal(c.expected_valid);
      // Wownero's domain separator makes a different hash: the same signature does not check.
      if (c.expected_valid) expect(checkSpendSignature(cryptonoteMessageHash('wow', A, hexToBytes(c.address_public_view_key), hexToBytes(c.message_utf8_hex)), A, c.signature), c.id).to.equal(false);
    }
  });
});

describe('client: cryptonote memory signer', () => {
  it('reproduces the worked SigV2 example of docs/wallet-integration.md section 4 with its fixed nonce', async () => {
    // The doc's secrets: SHA-256 of a label, read little-endian and reduced mod ℓ (test/docs/integration-examples.ts).
    const secret = (label: string) => sha256(utf8ToBytes(`wallet-backend example ${label}`));
    const challenge =
      'https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example.com\nchallenge: 257427bf9a5fe4507252e94151e3a16f88551d6ca9bb1b429b577a3dd7aa0be6\nexpires: 2026-01-01T00:05:00.000Z';
    const signer = memoryCryptonoteSigner({
      asset: 'xmr',
      spendKey: hex32(bytesToNumberLE(secret('xmr spend')) % L),
      viewKey: hex32(bytesToNumberLE(secret('xmr view')) % L),
      randomBytes: (length) => concatBytes(secret('xmr nonce'), new Uint8Array(length - 32)),
    });
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'wallet-integration.md'), 'utf8');
    expect(docs).to.include(challenge);
    const address = '426qMdeBzzcVrYQ3QChSYUEXSEASSFKphjdJ73oTtEACYJZkUK186v25o9WsGQZt4ScJLGFL4W3XBBAzv181NFfPLKeqL9j';
    const signature = 'SigV2SCX8TRB4M8c8KcXuRyZTNh5sWvKLbSp2egetJL5S4u9TiUkc4wp3YYR9arTPaTs8wiHtDFfVLrtbH67p3q9PEM95';
    for (const value of [address, signature, '108b5eeeec5720ac31d5065a833ca34a84ad483b3f252abad9ba833a7b632cab']) expect(docs).to.include(value);
    expect(signer.address()).to.equal(address);
    const decoded = decodeCryptonoteAddress(address, 'xmr')!;
    expect(bytesToHex(cryptonoteMessageHash('xmr', decoded.publicSpendKey, decoded.publicViewKey, utf8ToBytes(challenge)))).to.equal('108b5eeeec5720ac31d5065a833ca34a84ad483b3f252abad9ba833a7b632cab');
    const body = await buildCryptonoteWebsiteLogin({ challenge: { challenge, challenge_id: '257427bf9a5fe4507252e94151e3a16f88551d6ca9bb1b429b577a3dd7aa0be6' }, signer, expectedOrigin: 'https://shop.example', expectedService: 'https://wallet.example.com' });
    expect(body).to.deep.equal({ challenge_id: '257427bf9a5fe4507252e94151e3a16f88551d6ca9bb1b429b577a3dd7aa0be6', asset: 'xmr', public_key: address, signature });
  });

  it("makes randomized SigV2 signatures the server's verifier accepts for xmr and wow on every network, and refuses tampered", () => {
    for (const asset of ['xmr', 'wow'] as const) {
      for (const network of NETWORKS) {
        const signer = freshXmr(asset, network);
        const address = signer.address() as string;
        const message = `héllo ${asset} ${network}\n${'x'.repeat(200)}`;
        const signature = signer.signMessage(message) as string;
        expect(signature).to.match(/^SigV2[1-9A-HJ-NP-Za-km-z]{88}$/);
        expect(signer.signMessage(message)).to.not.equal(signature);
        const input = { asset, network, address, message: utf8ToBytes(message) };
        expect(verifyCryptonoteMessage({ ...input, signature }), `${asset} ${network}`).to.deep.include({ ok: true, version: 2, mode: 'spend' });
        expect(verifyCryptonoteMessage({ ...input, signature: tamperCryptonote(signature) }).ok).to.equal(false);
        expect(verifyCryptonoteMessage({ ...input, message: utf8ToBytes(`${message}!`), signature }).ok).to.equal(false);
        const other = asset === 'xmr' ? 'wow' : 'xmr';
        if (network === 'mainnet') expect(decodeCryptonoteAddress(address, other)).to.equal(null);
        else expect(verifyCryptonoteMessage({ ...input, asset: other, signature }).ok, 'domain separator').to.equal(false);
      }
    }
  });

  it('signs for a given address whose spend key it holds, and refuses keys that do not fit', () => {
    const spendKey = randomScalarHex();
    const viewKey = randomScalarHex();
    const address = memoryCryptonoteSigner({ asset: 'wow', spendKey, viewKey, network: 'stagenet' }).address() as string;
    expect(decodeCryptonoteAddress(address, 'wow')).to.include({ network: 'stagenet', kind: 'standard' });
    const byAddress = memoryCryptonoteSigner({ asset: 'wow', spendKey, address });
    expect(byAddress.address()).to.equal(address);
    expect(verifyCryptonoteMessage({ asset: 'wow', network: 'stagenet', address, message: utf8ToBytes('m'), signature: byAddress.signMessage('m') as string }).ok).to.equal(true);
    expect(() => memoryCryptonoteSigner({ asset: 'wow', spendKey: randomScalarHex(), address })).to.throw(/spend key/);
    expect(() => memoryCryptonoteSigner({ asset: 'wow', spendKey, viewKey: randomScalarHex(), address })).to.throw(/view key/);
    expect(() => memoryCryptonoteSigner({ asset: 'wow', spendKey, address, network: 'mainnet' })).to.throw(/mainnet/);
    // Wownero's test networks share Monero's tags, so only a mainnet address tells the assets apart.
    const wowMainnet = memoryCryptonoteSigner({ asset: 'wow', spendKey, viewKey }).address() as string;
    expect(() => memoryCryptonoteSigner({ asset: 'xmr', spendKey, address: wowMainnet })).to.throw(/address/);
    expect(() => memoryCryptonoteSigner({ asset: 'xmr', spendKey })).to.throw(/viewKey or address/);
    expect(() => memoryCryptonoteSigner({ asset: 'xmr', spendKey: hex32(L), viewKey })).to.throw(/canonical/);
    expect(() => memoryCryptonoteSigner({ asset: 'xmr', spendKey: 'zz', viewKey })).to.throw(/64 hex/);
  });

  it('refuses to sign anything but a website-login challenge for the given challenge_id and service', async () => {
    const signer = freshXmr('xmr');
    const id = 'ab'.repeat(32);
    const text = `https://shop.example asks you to sign in with your wallet.\nservice: ${TEST_PUBLIC_API_URL}\nchallenge: ${id}\nexpires: 2026-01-01T00:05:00.000Z`;
    const proofText = `Wallet Backend key registration\nservice: ${TEST_PUBLIC_API_URL}\nuser: someone-else\nasset: xmr\npublic_key: ${signer.address() as string}`;
    for (const [challenge, service] of [
      [{ challenge: proofText, challenge_id: id }, undefined],
      [{ challenge: `${text}\n`, challenge_id: id }, undefined],
      [{ challenge: text, challenge_id: 'cd'.repeat(32) }, undefined],
      [{ challenge: text, challenge_id: id }, 'https://other.example'],
    ] as const) {
      let error: unknown;
      await buildCryptonoteWebsiteLogin({ challenge, signer, expectedOrigin: 'https://shop.example', expectedService: service ?? TEST_PUBLIC_API_URL }).catch((err: unknown) => (error = err));
      expect(error, challenge.challenge.slice(0, 40)).to.be.instanceOf(TypeError);
    }
    expect((await buildCryptonoteWebsiteLogin({ challenge: { challenge: text, challenge_id: id }, signer, expectedOrigin: 'https://shop.example', expectedService: TEST_PUBLIC_API_URL })).challenge_id).to.equal(id);
  });
});

describe('client: grin against grin-wallet vectors (test/vectors/grin/slatepack-address.json) and the docs', () => {
  const vectors = loadVectors<SlatepackVectors>('grin/slatepack-address.json');

  it('derives each seed from its child key, the public key from the seed, and both slatepack addresses', () => {
    const derived = vectors.encode_decode.filter((c) => c.derivation?.ed25519_secret_seed !== undefined);
    expect(derived).to.not.be.empty;
    for (const c of derived) {
      const { secp256k1_child_key: child, ed25519_secret_seed: seed } = c.derivation!;
      if (child !== undefined) expect(slatepackSecretSeed(child), c.id).to.equal(seed);
      expect(memoryGrinSigner(seed).publicKey(), c.id).to.equal(c.public_key);
    }
    for (const c of vectors.encode_decode) {
      expect(slatepackAddress(c.public_key, 'grin'), c.id).to.equal(c.address_grin);
      expect(slatepackAddress(c.public_key, 'tgrin'), c.id).to.equal(c.address_tgrin);
    }
  });

  it('reproduces the grin website-login and key-proof examples of docs sections 4 and 5 byte for byte', async () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'wallet-integration.md'), 'utf8');
    const seed = 'f4f329fb1ed55c9dfebce09499a6ab0ea2c2bdd81b6178c8ea6f9247fe33aad5';
    const publicKey = 'bad512b2ebbaffc70408bb7eeb43c2847d09bae46acad2ed92b21d653322ac71';
    const loginSignature = '537da8d5d28e0526c07b874ea3fac50a1d835677729735ee99b1f981c6ab4bace0eec76868704abed3b401c52b92170adaa4025ac6501cc92bd7a324b8cf7103';
    const proofSignature = '1f1ccef5a0d4d8963892f9dcfde162c6a69809df1a3800d82ea286eb22d5485692f94349cb775dcc1bc61be223bccdc404a5ddfcfa7a668cdebd2a0316c79700';
    const challengeId = '257427bf9a5fe4507252e94151e3a16f88551d6ca9bb1b429b577a3dd7aa0be6';
    const challenge = `https://shop.example asks you to sign in with your wallet.\nservice: https://wallet.example.com\nchallenge: ${challengeId}\nexpires: 2026-01-01T00:05:00.000Z`;
    for (const value of [seed, publicKey, loginSignature, proofSignature, challenge]) expect(docs).to.include(value);
    const signer = memoryGrinSigner(seed);
    expect(signer.publicKey()).to.equal(publicKey);
    expect(await buildGrinWebsiteLogin({ challenge: { challenge, challenge_id: challengeId }, signer, expectedOrigin: 'https://shop.example', expectedService: 'https://wallet.example.com' })).to.deep.equal({ challenge_id: challengeId, asset: 'grin', public_key: publicKey, signature: loginSignature });
    const proof = await buildGrinKeyProof({ service: 'https://wallet.example.com', userId: '6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab', signer });
    expect(proof).to.deep.equal({ asset: 'grin', public_key: publicKey, signature: proofSignature });
  });

  it('signs the slatepack form with the key the address encodes, accepted by the server verifier', async () => {
    const signer = memoryGrinSigner(ed25519.utils.randomSecretKey());
    const [primary, slatepack] = await buildGrinKeyProofs({ service: TEST_PUBLIC_API_URL, userId: 'u-1', signer, hrp: 'tgrin' });
    expect(slatepack.public_key).to.equal(slatepackAddress(signer.publicKey() as string, 'tgrin')).and.match(/^tgrin1/);
    for (const proof of [primary, slatepack]) {
      const message = utf8ToBytes(`Wallet Backend key registration\nservice: ${TEST_PUBLIC_API_URL}\nuser: u-1\nasset: grin\npublic_key: ${proof.public_key}`);
      expect(verifyGrinMessage(signer.publicKey() as string, message, proof.signature)).to.equal(true);
      expect(verifyGrinMessage(signer.publicKey() as string, message, tamperHex(proof.signature))).to.equal(false);
    }
    expect(() => memoryGrinSigner('abc')).to.throw(/64 hex/);
  });
});

async function postKey(t: TestBackend, token: string, body: object) {
  return t.client.post('/api/v1/keys', body, { token });
}

async function challengeOf(t: TestBackend) {
  const issued = await t.client.post('/api/v1/auth/website/challenge', { origin: 'https://shop.example' });
  expect(issued.status).to.equal(200);
  return issued.body as { challenge: string; challenge_id: string };
}

eachDialect('client: cryptonote and grin proofs over HTTP', (dialect) => {
  const t = useTestBackend(dialect);
  const context = (userId: string) => ({ service: TEST_PUBLIC_API_URL, userId });

  it('proves xmr and wow addresses with key proofs, then logs in on a website with each', async () => {
    const { userId, token } = await extensionWallet(t);
    for (const signer of [freshXmr('xmr'), freshXmr('wow')] satisfies CryptonoteSigner[]) {
      const proof = await buildCryptonoteKeyProof({ ...context(userId), signer });
      const registered = await postKey(t, token, proof);
      expect(registered.status, registered.text).to.equal(200);
      expect(registered.body).to.include({ asset: signer.asset, public_key: signer.address(), proven: true });
      const login = await t.client.post('/api/v1/auth/website/verify', await buildCryptonoteWebsiteLogin({ challenge: await challengeOf(t), signer, ...AUDIENCE }));
      expect(login.status, login.text).to.equal(200);
      expect(login.body).to.include({ user_id: userId, platform: 'web' });
    }
  });

  it('proves both grin forms with key proofs, then logs in with the primary key and with the slatepack address', async () => {
    const { userId, token } = await extensionWallet(t);
    const signer: GrinSigner = memoryGrinSigner(ed25519.utils.randomSecretKey());
    for (const proof of await buildGrinKeyProofs({ ...context(userId), signer, hrp: 'grin' })) {
      const registered = await postKey(t, token, proof);
      expect(registered.status, registered.text).to.equal(200);
      expect(registered.body).to.include({ asset: 'grin', public_key: proof.public_key, proven: true });
    }
    for (const key of [{ form: 'key' } as const, { form: 'slatepack', hrp: 'grin' } as const]) {
      const login = await t.client.post('/api/v1/auth/website/verify', await buildGrinWebsiteLogin({ challenge: await challengeOf(t), signer, key, ...AUDIENCE }));
      expect(login.status, `${key.form}: ${login.text}`).to.equal(200);
      expect(login.body).to.include({ user_id: userId, platform: 'web' });
    }
  });

  it('refuses tampered key proofs with key_proof_invalid, a proof for another account, and tampered logins with Invalid signature', async () => {
    const { userId, token } = await extensionWallet(t);
    const other = await extensionWallet(t);
    const xmr = freshXmr('xmr');
    const wow = freshXmr('wow');
    const grin = memoryGrinSigner(ed25519.utils.randomSecretKey());
    const proofs = [await buildCryptonoteKeyProof({ ...context(userId), signer: xmr }), await buildCryptonoteKeyProof({ ...context(userId), signer: wow }), ...(await buildGrinKeyProofs({ ...context(userId), signer: grin, hrp: 'grin' }))];
    for (const proof of proofs) {
      const tampered = { ...proof, signature: proof.asset === 'grin' ? tamperHex(proof.signature) : tamperCryptonote(proof.signature) };
      for (const [bearer, body] of [[token, tampered], [other.token, proof]] as const) {
        const res = await postKey(t, bearer, body);
        expect(res.status, `${proof.public_key}: ${res.text}`).to.equal(400);
        expect(res.body.error.code).to.equal('key_proof_invalid');
      }
      expect((await postKey(t, token, proof)).status).to.equal(200);
    }
    const logins = [
      await buildCryptonoteWebsiteLogin({ challenge: await challengeOf(t), signer: xmr, ...AUDIENCE }),
      await buildCryptonoteWebsiteLogin({ challenge: await challengeOf(t), signer: wow, ...AUDIENCE }),
      await buildGrinWebsiteLogin({ challenge: await challengeOf(t), signer: grin, ...AUDIENCE }),
    ];
    for (const login of logins) {
      const res = await t.client.post('/api/v1/auth/website/verify', { ...login, signature: login.asset === 'grin' ? tamperHex(login.signature) : tamperCryptonote(login.signature) });
      expect(res.status, `${login.asset}: ${res.text}`).to.equal(401);
      expect(res.body.error.message).to.equal('Invalid signature');
    }
  });

  it('does not log in with a key that was registered without a proof', async () => {
    const { token } = await extensionWallet(t);
    const signer = freshXmr('wow');
    expect((await postKey(t, token, { asset: 'wow', public_key: signer.address() })).body).to.include({ proven: false });
    const res = await t.client.post('/api/v1/auth/website/verify', await buildCryptonoteWebsiteLogin({ challenge: await challengeOf(t), signer, ...AUDIENCE }));
    expect(res.status).to.equal(401);
    expect(res.body.error.message).to.equal('Unknown wallet');
  });
});
