/**
 * Monero and Wownero addresses: base58(varint tag ‖ spend(32) ‖ view(32) [‖ payment id(8)] ‖
 * keccak256(everything before)[0..4]), with each project's network tags.
 * @see monero-project/monero src/cryptonote_basic/cryptonote_basic_impl.cpp, cryptonote_config.h
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { base58Decode, base58Encode } from './base58.js';
import { decodeVarint, encodeVarint } from './varint.js';

/** The two CryptoNote assets the backend serves. */
export type CryptonoteAsset = 'xmr' | 'wow';
/** An address network. A regtest deployment uses mainnet addresses. */
export type CryptonoteNetwork = 'mainnet' | 'testnet' | 'stagenet';
/** What an address is. The backend accepts standard addresses and subaddresses as keys. */
export type CryptonoteAddressKind = 'standard' | 'integrated' | 'subaddress';

/** A decoded address: its network, kind and public spend / view keys. */
export interface CryptonoteAddress {
  asset: CryptonoteAsset;
  network: CryptonoteNetwork;
  kind: CryptonoteAddressKind;
  publicSpendKey: Uint8Array;
  publicViewKey: Uint8Array;
}

/** Address tags (cryptonote_config.h of each project). Wownero's test networks reuse Monero's. */
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

function isPoint(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The address of a public spend / view key pair on `network`: a standard address, or with
 * `kind: 'subaddress'` a subaddress whose keys these are.
 */
export function encodeCryptonoteAddress(input: {
  asset: CryptonoteAsset;
  network: CryptonoteNetwork;
  publicSpendKey: Uint8Array;
  publicViewKey: Uint8Array;
  kind?: 'standard' | 'subaddress';
}): string {
  if (input.publicSpendKey.length !== 32 || input.publicViewKey.length !== 32) throw new TypeError('public keys must be 32 bytes');
  const body = concatBytes(encodeVarint(TAGS[input.asset][input.network][input.kind ?? 'standard']), input.publicSpendKey, input.publicViewKey);
  return base58Encode(concatBytes(body, keccak_256(body).subarray(0, 4)));
}

/** Decodes an `asset` address, or null: unknown tag, bad checksum, wrong length, keys off the curve. */
export function decodeCryptonoteAddress(address: string, asset: CryptonoteAsset): CryptonoteAddress | null {
  if (address.length > 140) return null;
  const bytes = base58Decode(address);
  const tag = bytes === null ? null : decodeVarint(bytes);
  if (bytes === null || tag === null) return null;
  const owner = Object.entries(TAGS[asset]).flatMap(([network, kinds]) =>
    Object.entries(kinds).flatMap(([kind, value]) => (value === tag.value ? [{ network: network as CryptonoteNetwork, kind: kind as CryptonoteAddressKind }] : [])),
  )[0];
  if (owner === undefined) return null;
  const bodyLength = tag.length + 64 + (owner.kind === 'integrated' ? 8 : 0);
  if (bytes.length !== bodyLength + 4) return null;
  const checksum = keccak_256(bytes.subarray(0, bodyLength));
  if (!checksum.subarray(0, 4).every((byte, i) => byte === bytes[bodyLength + i])) return null;
  const publicSpendKey = bytes.slice(tag.length, tag.length + 32);
  const publicViewKey = bytes.slice(tag.length + 32, tag.length + 64);
  if (!isPoint(publicSpendKey) || !isPoint(publicViewKey)) return null;
  return { asset, ...owner, publicSpendKey, publicViewKey };
}
