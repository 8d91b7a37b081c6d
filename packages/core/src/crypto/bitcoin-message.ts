/**
 * Bitcoin-style message signatures (BTC and LTC key control): a 65-byte compact signature
 * `header || r || s`, base64, over `SHA256(SHA256(magic || CompactSize(len) || message))`.
 * The signer's public key is recovered from the signature and compared with the claimed
 * address (or public key).
 *
 * Accepted header bytes follow the reference wallets (vectors in test/vectors):
 * - 27–30: uncompressed key, P2PKH only.
 * - 31–34: compressed key; Electrum writes this range for every address type, so BTC accepts it
 *   for P2PKH, P2WPKH-in-P2SH and P2WPKH. litecoind verifies P2PKH only, so LTC does too.
 * - 35–38 / 39–42: BIP-137's P2WPKH-in-P2SH / P2WPKH ranges, accepted only for that type
 *   (stricter ranges than BIP-137 itself is not: a mismatched range is refused).
 * @see https://github.com/bitcoin/bips/blob/master/bip-0137.mediawiki
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { equalBytes } from '@noble/curves/utils.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58check, bech32 } from '@scure/base';

export type MessageAddressType = 'p2pkh' | 'p2wpkh-p2sh' | 'p2wpkh';

export interface MessageNetwork {
  /** The magic string without its length byte, e.g. `Bitcoin Signed Message:\n`. */
  magic: string;
  p2pkhVersion: number;
  /** Every P2SH version byte the chain's reference software accepts. */
  p2shVersions: readonly number[];
  bech32Hrp: string;
  /** Address types whose signatures this chain's reference verifier accepts. */
  verifiableTypes: readonly MessageAddressType[];
}

const BITCOIN_MAGIC = 'Bitcoin Signed Message:\n';
const LITECOIN_MAGIC = 'Litecoin Signed Message:\n';
const ALL_TYPES: readonly MessageAddressType[] = ['p2pkh', 'p2wpkh-p2sh', 'p2wpkh'];

export const MESSAGE_NETWORKS = {
  'btc-mainnet': { magic: BITCOIN_MAGIC, p2pkhVersion: 0x00, p2shVersions: [0x05], bech32Hrp: 'bc', verifiableTypes: ALL_TYPES },
  'btc-testnet': { magic: BITCOIN_MAGIC, p2pkhVersion: 0x6f, p2shVersions: [0xc4], bech32Hrp: 'tb', verifiableTypes: ALL_TYPES },
  'btc-regtest': { magic: BITCOIN_MAGIC, p2pkhVersion: 0x6f, p2shVersions: [0xc4], bech32Hrp: 'bcrt', verifiableTypes: ALL_TYPES },
  'ltc-mainnet': { magic: LITECOIN_MAGIC, p2pkhVersion: 0x30, p2shVersions: [0x32, 0x05], bech32Hrp: 'ltc', verifiableTypes: ['p2pkh'] },
  'ltc-testnet': { magic: LITECOIN_MAGIC, p2pkhVersion: 0x6f, p2shVersions: [0x3a, 0xc4], bech32Hrp: 'tltc', verifiableTypes: ['p2pkh'] },
  'ltc-regtest': { magic: LITECOIN_MAGIC, p2pkhVersion: 0x6f, p2shVersions: [0x3a, 0xc4], bech32Hrp: 'rltc', verifiableTypes: ['p2pkh'] },
} as const satisfies Record<string, MessageNetwork>;

const b58 = base58check(sha256);

/** Bitcoin's CompactSize length prefix. */
function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
}

/** SHA256(SHA256(CompactSize(len(magic)) || magic || CompactSize(len(message)) || message)). */
export function messageDigest(magic: string, message: Uint8Array): Uint8Array {
  const magicBytes = utf8ToBytes(magic);
  return sha256(sha256(concatBytes(compactSize(magicBytes.length), magicBytes, compactSize(message.length), message)));
}

export function hash160(bytes: Uint8Array): Uint8Array {
  return ripemd160(sha256(bytes));
}

/** The address type and the 20-byte hash it commits to, or null when it is not one of this network's. */
export function decodeMessageAddress(address: string, network: MessageNetwork): { type: MessageAddressType; hash: Uint8Array } | null {
  try {
    if (address.toLowerCase().startsWith(`${network.bech32Hrp}1`)) {
      const { prefix, words } = bech32.decode(address as `${string}1${string}`);
      if (prefix !== network.bech32Hrp || words[0] !== 0) return null;
      const program = bech32.fromWords(words.slice(1));
      return program.length === 20 ? { type: 'p2wpkh', hash: program } : null;
    }
    const payload = b58.decode(address);
    if (payload.length !== 21) return null;
    const version = payload[0]!;
    if (version === network.p2pkhVersion) return { type: 'p2pkh', hash: payload.slice(1) };
    if (network.p2shVersions.includes(version)) return { type: 'p2wpkh-p2sh', hash: payload.slice(1) };
    return null;
  } catch {
    return null;
  }
}

/** The hash an address of `type` would commit to for this public key. */
function addressHashOf(type: MessageAddressType, publicKey: Uint8Array): Uint8Array {
  const keyHash = hash160(publicKey);
  return type === 'p2wpkh-p2sh' ? hash160(concatBytes(Uint8Array.of(0x00, 0x14), keyHash)) : keyHash;
}

/**
 * The address types a header byte names. `header` is 27–42 (recoverMessageSigner refuses the
 * rest). Headers 27–30 name an uncompressed key, which only P2PKH can commit to: segwit
 * programs hash the compressed key.
 */
function headerAllows(header: number, type: MessageAddressType): boolean {
  if (header <= 30) return type === 'p2pkh';
  if (header <= 34) return true;
  if (header <= 38) return type === 'p2wpkh-p2sh';
  return type === 'p2wpkh';
}

/**
 * The public key that made `signature` over `message`, in the encoding the header names
 * (33-byte compressed or 65-byte uncompressed), with the header; null when the signature is
 * malformed or recovers nothing.
 */
export function recoverMessageSigner(message: Uint8Array, signature: string, network: MessageNetwork): { publicKey: Uint8Array; header: number } | null {
  try {
    if (!/^[A-Za-z0-9+/]{86}[AEIMQUYcgkosw048]=$/.test(signature)) return null;
    const bytes = Uint8Array.from(Buffer.from(signature, 'base64'));
    const header = bytes[0]!;
    if (header < 27 || header > 42) return null;
    const recovery = (header - 27) & 3;
    const compressed = header >= 31;
    const point = secp256k1.Signature.fromBytes(bytes.slice(1), 'compact').addRecoveryBit(recovery).recoverPublicKey(messageDigest(network.magic, message));
    return { publicKey: point.toBytes(compressed), header };
  } catch {
    return null;
  }
}

/**
 * Does `signature` prove control of `address` for `message` on `network`? Returns a boolean and
 * never throws (fails closed on any malformed input).
 */
export function verifyMessageSignature(address: string, message: Uint8Array, signature: string, network: MessageNetwork): boolean {
  const decoded = decodeMessageAddress(address, network);
  if (decoded === null || !network.verifiableTypes.includes(decoded.type)) return false;
  const signer = recoverMessageSigner(message, signature, network);
  if (signer === null || !headerAllows(signer.header, decoded.type)) return false;
  return equalBytes(addressHashOf(decoded.type, signer.publicKey), decoded.hash);
}
