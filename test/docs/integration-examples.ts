import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { requestDescriptorHash } from '../../packages/core/src/auth/index.js';
import { cryptonoteBase58Encode, hash160, messageDigest, MESSAGE_NETWORKS, nostrEventId } from '../../packages/core/src/crypto/index.js';
import { extensionLoginMessage, keyRotationMessage, nostrMergeMessage, websiteChallengeMessage } from '../../packages/core/src/identity/index.js';

/**
 * The worked examples of docs/wallet-integration.md, rebuilt from their fixed secrets. Every
 * signature here is deterministic (RFC 6979, BIP-340 with zero aux, RFC 8032, a fixed Monero
 * nonce), so the doc's values can be checked byte for byte.
 */
export const SERVICE = 'https://wallet.example.com';
export const TIMESTAMP = 1767225600; // 2026-01-01T00:00:00Z
const secret = (label: string) => sha256(utf8ToBytes(`wallet-backend example ${label}`));

function bitcoinMessageSignature(message: string, secretKey: Uint8Array, network: 'btc-mainnet' | 'ltc-mainnet'): string {
  const recovered = secp256k1.sign(messageDigest(MESSAGE_NETWORKS[network].magic, utf8ToBytes(message)), secretKey, { prehash: false, format: 'recovered' });
  return Buffer.from(concatBytes(Uint8Array.of(31 + recovered[0]!), recovered.slice(1))).toString('base64');
}

function nostrEvent(secretKey: Uint8Array, tags: string[][]) {
  const pubkey = bytesToHex(schnorr.getPublicKey(secretKey));
  const unsigned = { pubkey, created_at: TIMESTAMP, kind: 27235, tags, content: '' };
  const id = nostrEventId(unsigned);
  const sig = bytesToHex(schnorr.sign(Buffer.from(id, 'hex'), secretKey, new Uint8Array(32)));
  const event = { ...unsigned, id, sig };
  return { event, base64: Buffer.from(JSON.stringify(event)).toString('base64') };
}

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le = (bytes: Uint8Array) => BigInt(`0x${bytesToHex(Uint8Array.from(bytes).reverse())}`);
const le32 = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse());

export function examples() {
  const btcSecret = secret('btc');
  const btcPublic = secp256k1.getPublicKey(btcSecret, true);
  const pubkeyHash = bytesToHex(hash160(btcPublic));
  const loginMessage = extensionLoginMessage(SERVICE, pubkeyHash, TIMESTAMP);

  const newSecret = secret('btc rotated');
  const newPubkeyHash = bytesToHex(hash160(secp256k1.getPublicKey(newSecret, true)));
  const rotationMessage = keyRotationMessage(SERVICE, newPubkeyHash, TIMESTAMP);

  const nostrSecret = secret('nostr');
  const login = nostrEvent(nostrSecret, [['u', `${SERVICE}/api/v1/auth/nostr`], ['method', 'POST']]);
  const nonce = bytesToHex(secret('nonce'));
  const descriptor = requestDescriptorHash({ method: 'POST', path: '/api/v1/auth/nostr/link' });
  const link = nostrEvent(nostrSecret, [
    ['u', `${SERVICE}/api/v1/auth/nostr/link`],
    ['method', 'POST'],
    ['nonce', nonce],
    ['purpose', 'nostr_link'],
    ['descriptor', descriptor],
  ]);

  const mergeMessage = nostrMergeMessage(SERVICE, link.event.pubkey, nonce);

  const challenge = websiteChallengeMessage({ origin: 'https://shop.example', service: SERVICE, nonce, expiresAt: new Date((TIMESTAMP + 300) * 1000) });
  const grinSeed = secret('grin');
  const grinPublic = bytesToHex(ed25519.getPublicKey(grinSeed));

  // Monero SigV2 with a fixed nonce k (wallets use a random one; any k gives a valid signature).
  const spend = le(secret('xmr spend')) % L;
  const view = le(secret('xmr view')) % L;
  const A = ed25519.Point.BASE.multiply(spend).toBytes();
  const B = ed25519.Point.BASE.multiply(view).toBytes();
  const addressBody = concatBytes(Uint8Array.of(18), A, B);
  const xmrAddress = cryptonoteBase58Encode(concatBytes(addressBody, keccak_256(addressBody).slice(0, 4)));
  const msg = utf8ToBytes(challenge);
  const h = keccak_256(concatBytes(utf8ToBytes('MoneroMessageSignature\0'), A, B, Uint8Array.of(0), Uint8Array.of(...varint(msg.length)), msg));
  const k = le(secret('xmr nonce')) % L;
  const c = le(keccak_256(concatBytes(h, A, ed25519.Point.BASE.multiply(k).toBytes()))) % L;
  const r = (((k - c * spend) % L) + L) % L;

  return {
    btc: {
      secret: bytesToHex(btcSecret),
      publicKey: bytesToHex(btcPublic),
      pubkeyHash,
      loginMessage,
      loginSignature: bitcoinMessageSignature(loginMessage, btcSecret, 'btc-mainnet'),
      newPubkeyHash,
      rotationMessage,
      rotationSignature: bitcoinMessageSignature(rotationMessage, btcSecret, 'btc-mainnet'),
      websiteSignature: bitcoinMessageSignature(challenge, btcSecret, 'btc-mainnet'),
      mergeMessage,
      mergeSignature: bitcoinMessageSignature(mergeMessage, btcSecret, 'btc-mainnet'),
    },
    nostr: { secret: bytesToHex(nostrSecret), login, nonce, descriptor, link },
    website: {
      challenge,
      grinSecretSeed: bytesToHex(grinSeed),
      grinPublicKey: grinPublic,
      grinSignature: bytesToHex(ed25519.sign(msg, grinSeed)),
      xmrAddress,
      xmrSignature: `SigV2${cryptonoteBase58Encode(concatBytes(le32(c), le32(r)))}`,
      xmrMessageHash: bytesToHex(h),
    },
  };
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

if (process.argv[1]?.endsWith('integration-examples.ts')) console.log(JSON.stringify(examples(), null, 2));
