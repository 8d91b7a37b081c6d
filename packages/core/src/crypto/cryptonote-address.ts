import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { cryptonoteBase58Decode, decodeVarint } from './cryptonote-base58.js';

export type CryptonoteAsset = 'xmr' | 'wow';
export type CryptonoteNetwork = 'mainnet' | 'testnet' | 'stagenet';
export type CryptonoteAddressKind = 'standard' | 'integrated' | 'subaddress';

export interface CryptonoteAddress {
  asset: CryptonoteAsset;
  network: CryptonoteNetwork;
  kind: CryptonoteAddressKind;
  publicSpendKey: Uint8Array;
  publicViewKey: Uint8Array;
}

/** Address network tags (cryptonote_config.h of each project). Wownero's test networks reuse Monero's tags. */
const TAGS: Record<CryptonoteAsset, Record<CryptonoteNetwork, Record<CryptonoteAddressKind, number>>> = {
  xmr: {
    mainnet: { standard: 18, integrated: 19, subaddress: 42 },
    testnet: { standard: 53, integrated: 54, subaddress: 63 },
    stagenet: { standard: 24, integrated: 25, subaddress: 36 },
  },
  wow: {
    mainnet: { standard: 4146, integrated: 6810, subaddress: 12208 },
    testnet: { standard: 53, integrated: 54, subaddress: 63 },
    stagenet: { standard: 24, integrated: 25, subaddress: 36 },
  },
};

function tagOwner(asset: CryptonoteAsset, tag: number): { network: CryptonoteNetwork; kind: CryptonoteAddressKind } | null {
  for (const [network, kinds] of Object.entries(TAGS[asset])) {
    for (const [kind, value] of Object.entries(kinds)) if (value === tag) return { network: network as CryptonoteNetwork, kind: kind as CryptonoteAddressKind };
  }
  return null;
}

function isPoint(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes a Monero or Wownero address: base58(varint tag ‖ spend(32) ‖ view(32) [‖ payment id(8)]
 * ‖ keccak256(everything before)[0..4]). Null for anything else: unknown tag, bad checksum,
 * trailing bytes or keys that are not curve points.
 */
export function decodeCryptonoteAddress(address: string, asset: CryptonoteAsset): CryptonoteAddress | null {
  if (address.length > 140) return null;
  const bytes = cryptonoteBase58Decode(address);
  if (bytes === null) return null;
  const tag = decodeVarint(bytes);
  if (tag === null) return null;
  const owner = tagOwner(asset, tag.value);
  if (owner === null) return null;
  const bodyLength = tag.length + 64 + (owner.kind === 'integrated' ? 8 : 0);
  if (bytes.length !== bodyLength + 4) return null;
  const checksum = keccak_256(bytes.subarray(0, bodyLength)).subarray(0, 4);
  if (!checksum.every((byte, i) => byte === bytes[bodyLength + i])) return null;
  const publicSpendKey = bytes.slice(tag.length, tag.length + 32);
  const publicViewKey = bytes.slice(tag.length + 32, tag.length + 64);
  if (!isPoint(publicSpendKey) || !isPoint(publicViewKey)) return null;
  return { asset, ...owner, publicSpendKey, publicViewKey };
}

const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * Does the private view key (64 hex, a little-endian scalar below ℓ) belong to this public view
 * key, i.e. is B = b·G? Lets a server refuse a mismatched address/view-key pair before any
 * light-wallet call. The key is only used for this multiplication.
 */
export function viewKeyMatches(viewKeyHex: string, publicViewKey: Uint8Array): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(viewKeyHex)) return false;
  const bytes = Uint8Array.from(Buffer.from(viewKeyHex, 'hex'));
  let scalar = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) scalar = (scalar << 8n) | BigInt(bytes[i]!);
  if (scalar === 0n || scalar >= ED25519_L) return false;
  const derived = ed25519.Point.BASE.multiply(scalar).toBytes();
  return derived.length === publicViewKey.length && derived.every((byte, i) => byte === publicViewKey[i]);
}
