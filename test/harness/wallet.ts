import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import {
  cryptonoteBase58Encode,
  hash160,
  messageDigest,
  MESSAGE_NETWORKS,
  nostrEventId,
  NIP98_KIND,
} from '../../packages/core/src/crypto/index.js';
import { requestDescriptorHash } from '../../packages/core/src/auth/index.js';
import { extensionLoginMessage, keyRotationMessage } from '../../packages/core/src/identity/index.js';
import { TEST_PUBLIC_API_URL } from './backend.js';

/**
 * A wallet as the tests play it: real keys, real signatures in the formats wallets send
 * (docs/wallet-integration.md), so every proof the server checks was made independently of
 * the server's verifier.
 */

const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

function leToBigInt(bytes: Uint8Array): bigint {
  return BigInt(`0x${bytesToHex(Uint8Array.from(bytes).reverse()) || '0'}`);
}
function bigIntToLe32(value: bigint): Uint8Array {
  const hex = value.toString(16).padStart(64, '0');
  return Uint8Array.from(Buffer.from(hex, 'hex').reverse());
}
function varint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A BTC (or LTC) key that signs Bitcoin messages the way Electrum does (compressed P2PKH header 31–34). */
export class BtcKey {
  readonly secret = secp256k1.utils.randomSecretKey();
  readonly publicKey = secp256k1.getPublicKey(this.secret, true);
  readonly publicKeyHex = bytesToHex(this.publicKey);
  readonly pubkeyHash = bytesToHex(hash160(this.publicKey));

  /** The same key uncompressed (`04…`), as legacy Electrum and litecoind wallets hold it. */
  readonly uncompressedHex = bytesToHex(secp256k1.getPublicKey(this.secret, false));

  /** Header 31–34 (compressed key), or 27–30 with `uncompressed` (legacy P2PKH keys). */
  signMessage(message: string, magic: 'btc' | 'ltc' = 'btc', options: { uncompressed?: boolean } = {}): string {
    const network = MESSAGE_NETWORKS[magic === 'btc' ? 'btc-mainnet' : 'ltc-mainnet'];
    const recovered = secp256k1.sign(messageDigest(network.magic, utf8ToBytes(message)), this.secret, { prehash: false, format: 'recovered' });
    const compact = concatBytes(Uint8Array.of((options.uncompressed ? 27 : 31) + recovered[0]!), recovered.slice(1));
    return Buffer.from(compact).toString('base64');
  }
}

/** A Nostr key making NIP-98 tokens and signed actions. */
export class NostrKey {
  readonly secret = schnorr.utils.randomSecretKey();
  readonly pubkey = bytesToHex(schnorr.getPublicKey(this.secret));
  /** The same key as NIP-19 `npub1…`. */
  readonly npub = bech32.encode('npub', bech32.toWords(schnorr.getPublicKey(this.secret)));

  event(tags: string[][], createdAt: number, content = ''): string {
    const unsigned = { pubkey: this.pubkey, created_at: createdAt, kind: NIP98_KIND, tags, content };
    const id = nostrEventId(unsigned);
    const sig = bytesToHex(schnorr.sign(Buffer.from(id, 'hex'), this.secret));
    return Buffer.from(JSON.stringify({ ...unsigned, id, sig })).toString('base64');
  }

  /** `Authorization: Nostr …` for a request to PUBLIC_API_URL + path. */
  nip98(path: string, now: Date, options: { method?: string; body?: string } = {}): string {
    const tags = [['u', `${TEST_PUBLIC_API_URL}${path}`], ['method', options.method ?? 'POST']];
    if (options.body !== undefined) tags.push(['payload', bytesToHex(sha256(utf8ToBytes(options.body)))]);
    return `Nostr ${this.event(tags, Math.floor(now.getTime() / 1000))}`;
  }

  /** A signed action: NIP-98 plus nonce, purpose and the empty-body request descriptor. */
  signedAction(path: string, nonce: string, purpose: string, now: Date, overrides: { descriptorPath?: string; method?: string } = {}): string {
    const method = overrides.method ?? 'POST';
    const tags = [
      ['u', `${TEST_PUBLIC_API_URL}${path}`],
      ['method', method],
      ['nonce', nonce],
      ['purpose', purpose],
      ['descriptor', requestDescriptorHash({ method, path: overrides.descriptorPath ?? path })],
    ];
    return this.event(tags, Math.floor(now.getTime() / 1000));
  }
}

/** A Grin ed25519 key: hex primary key and its slatepack address. */
export class GrinKey {
  readonly secret = ed25519.utils.randomSecretKey();
  readonly publicKeyHex = bytesToHex(ed25519.getPublicKey(this.secret));
  /** The same key as a mainnet slatepack address (bech32, HRP `grin`). */
  readonly slatepackAddress = bech32.encode('grin', bech32.toWords(ed25519.getPublicKey(this.secret)));

  sign(message: string): string {
    return bytesToHex(ed25519.sign(utf8ToBytes(message), this.secret));
  }
}

const XMR_TAGS = { xmr: { mainnet: 18, testnet: 53, stagenet: 24 }, wow: { mainnet: 4146, testnet: 53, stagenet: 24 } } as const;
const DOMAINS = { xmr: 'MoneroMessageSignature\0', wow: 'WowneroMessageSignature\0' } as const;

/** A Monero/Wownero wallet's key pair, its standard address and a SigV2 signer (spend key). */
export class CryptonoteKey {
  readonly spendSecret: bigint;
  readonly viewSecret: bigint;
  readonly publicSpendKey: Uint8Array;
  readonly publicViewKey: Uint8Array;

  constructor(readonly asset: 'xmr' | 'wow' = 'xmr') {
    this.spendSecret = leToBigInt(ed25519.utils.randomSecretKey()) % ED25519_L;
    this.viewSecret = leToBigInt(ed25519.utils.randomSecretKey()) % ED25519_L;
    this.publicSpendKey = ed25519.Point.BASE.multiply(this.spendSecret).toBytes();
    this.publicViewKey = ed25519.Point.BASE.multiply(this.viewSecret).toBytes();
  }

  /** The private view key as wallets export it: 32 little-endian bytes, hex. */
  get viewKeyHex(): string {
    return bytesToHex(bigIntToLe32(this.viewSecret));
  }

  address(network: 'mainnet' | 'testnet' | 'stagenet' = 'mainnet'): string {
    const body = concatBytes(varint(XMR_TAGS[this.asset][network]), this.publicSpendKey, this.publicViewKey);
    return cryptonoteBase58Encode(concatBytes(body, keccak_256(body).slice(0, 4)));
  }

  /** SigV2 with the spend key: c = Hs(h ‖ A ‖ k·G), r = k − c·a. */
  sign(message: string, asset: 'xmr' | 'wow' = this.asset): string {
    const msg = utf8ToBytes(message);
    const h = keccak_256(concatBytes(utf8ToBytes(DOMAINS[asset]), this.publicSpendKey, this.publicViewKey, Uint8Array.of(0), varint(msg.length), msg));
    const k = (leToBigInt(ed25519.utils.randomSecretKey()) % (ED25519_L - 1n)) + 1n;
    const kG = ed25519.Point.BASE.multiply(k).toBytes();
    const c = leToBigInt(keccak_256(concatBytes(h, this.publicSpendKey, kG))) % ED25519_L;
    const r = (((k - c * this.spendSecret) % ED25519_L) + ED25519_L) % ED25519_L;
    return `SigV2${cryptonoteBase58Encode(concatBytes(bigIntToLe32(c), bigIntToLe32(r)))}`;
  }
}

/** The body of a POST /auth/extension for `btc`, signed now. */
export function extensionBody(btc: BtcKey, now: Date, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    pubkey_hash: btc.pubkeyHash,
    seed_fingerprint: 'a1b2c3d4',
    keys: [{ asset: 'btc', public_key: btc.publicKeyHex }],
    timestamp,
    signature: btc.signMessage(extensionLoginMessage(TEST_PUBLIC_API_URL, btc.pubkeyHash, timestamp)),
    ...fields,
  };
}

/** A rotation proof: the OLD key signs the new pubkey_hash and the request's timestamp. */
export function rotationSignature(oldKey: BtcKey, newPubkeyHash: string, timestamp: number): string {
  return oldKey.signMessage(keyRotationMessage(TEST_PUBLIC_API_URL, newPubkeyHash, timestamp));
}

/**
 * The join proof of a Nostr registration (docs/wallet-integration.md, "Register"): the BTC key an
 * account proved signs the npub and the register challenge's nonce. Written out here, not taken
 * from the server, so a test fails if the server's text drifts from the doc.
 */
export function mergeSignature(btc: BtcKey, nostrPubkey: string, nonce: string): string {
  return btc.signMessage(`Wallet Backend Nostr registration\nservice: ${TEST_PUBLIC_API_URL}\nnostr_pubkey: ${nostrPubkey}\nnonce: ${nonce}`);
}

/**
 * The key-registration proof text (docs/wallet-integration.md, "Key proofs"), written out here
 * rather than taken from the server, so a test fails if the server's text drifts from the doc.
 */
export function keyProofMessage(userId: string, asset: string, publicKey: string): string {
  return `Wallet Backend key registration\nservice: ${TEST_PUBLIC_API_URL}\nuser: ${userId}\nasset: ${asset}\npublic_key: ${publicKey}`;
}

/** A wallet key of any asset: the value it registers and how it signs. */
export interface SigningKey {
  asset: 'btc' | 'ltc' | 'xmr' | 'wow' | 'grin';
  publicKey: string;
  sign(message: string): string;
}

/** The POST /keys body that registers `key` for `userId` WITH its proof of possession. */
export function provenKeyBody(key: SigningKey, userId: string): Record<string, unknown> {
  return { asset: key.asset, public_key: key.publicKey, signature: key.sign(keyProofMessage(userId, key.asset, key.publicKey)) };
}

/**
 * One signing key of every kind a website login accepts, each with the registered value. BTC
 * comes last so the indices of the others stay put; it is here because a BTC key that is not
 * the account's identity resolves logins through its key proof like any other asset.
 */
export function signingKeysOfEveryAsset(): SigningKey[] {
  const btc = new BtcKey();
  const legacyBtc = new BtcKey();
  const ltc = new BtcKey();
  const legacyLtc = new BtcKey();
  const xmr = new CryptonoteKey('xmr');
  const wow = new CryptonoteKey('wow');
  const grin = new GrinKey();
  const grinAddress = new GrinKey();
  return [
    { asset: 'ltc', publicKey: ltc.publicKeyHex, sign: (m) => ltc.signMessage(m, 'ltc') },
    { asset: 'ltc', publicKey: legacyLtc.uncompressedHex, sign: (m) => legacyLtc.signMessage(m, 'ltc', { uncompressed: true }) },
    { asset: 'xmr', publicKey: xmr.address(), sign: (m) => xmr.sign(m) },
    { asset: 'wow', publicKey: wow.address(), sign: (m) => wow.sign(m) },
    { asset: 'grin', publicKey: grin.publicKeyHex, sign: (m) => grin.sign(m) },
    { asset: 'grin', publicKey: grinAddress.slatepackAddress, sign: (m) => grinAddress.sign(m) },
    { asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) },
    { asset: 'btc', publicKey: legacyBtc.uncompressedHex, sign: (m) => legacyBtc.signMessage(m, 'btc', { uncompressed: true }) },
  ];
}
