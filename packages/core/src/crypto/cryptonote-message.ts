/**
 * Monero / Wownero message signatures (`monero-wallet-cli sign`, wallet RPC `sign`), verified
 * by hand on @noble/curves because no maintained JS library does it.
 *
 *   signature = "SigV1" | "SigV2"  ‖  base58(c ‖ r)        c, r: 32-byte little-endian scalars
 *   V2 hash   h = Keccak256(D ‖ A ‖ B ‖ mode ‖ varint(len m) ‖ m)
 *               D = "MoneroMessageSignature\0" (Wownero: "WowneroMessageSignature\0"),
 *               A, B = the address's public spend / view keys, mode = 0 (spend) or 1 (view)
 *   V1 hash   h = Keccak256(m)                  (no domain, no keys, no mode)
 *   verify    P = A (spend) or B (view);  X = c·P + r·G;  X ≠ identity;
 *             accept iff  Keccak256(h ‖ P ‖ X) mod ℓ  ==  c,   with c, r < ℓ and c ≠ 0
 *
 * The hash does not commit to a network, so the same signature verifies against the same keys
 * on every network: the caller's network is checked against the address here.
 * @see monero-project/monero src/wallet/wallet2.cpp (get_message_hash, verify), src/crypto/crypto.cpp (check_signature)
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeCryptonoteAddress, type CryptonoteAsset, type CryptonoteNetwork } from './cryptonote-address.js';
import { cryptonoteBase58Decode, encodeVarint } from './cryptonote-base58.js';

/** ℓ, the order of the ed25519 prime-order subgroup. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const DOMAINS: Record<CryptonoteAsset, Uint8Array> = {
  xmr: utf8ToBytes('MoneroMessageSignature\0'),
  wow: utf8ToBytes('WowneroMessageSignature\0'),
};
const SIGNATURE = /^SigV([12])([1-9A-HJ-NP-Za-km-z]{88})$/;

export interface CryptonoteMessageInput {
  asset: CryptonoteAsset;
  network: CryptonoteNetwork;
  address: string;
  message: Uint8Array;
  signature: string;
  /** Accept a view-key signature too. Off by default: owning a wallet means holding its spend key. */
  allowViewKey?: boolean;
}

export type CryptonoteMessageResult = { ok: true; version: 1 | 2; mode: 'spend' | 'view' } | { ok: false; reason: string };

function littleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function messageHash(version: 1 | 2, input: CryptonoteMessageInput, spend: Uint8Array, view: Uint8Array, mode: 0 | 1): Uint8Array {
  if (version === 1) return keccak_256(input.message);
  return keccak_256(concatBytes(DOMAINS[input.asset], spend, view, Uint8Array.of(mode), encodeVarint(input.message.length), input.message));
}

/** Monero's check_signature: the Schnorr equation above for one key. */
function checkSignature(hash: Uint8Array, publicKey: Uint8Array, c: bigint, r: bigint): boolean {
  try {
    const P = ed25519.Point.fromBytes(publicKey);
    const X = P.multiplyUnsafe(c).add(ed25519.Point.BASE.multiplyUnsafe(r));
    if (X.equals(ed25519.Point.ZERO)) return false;
    return littleEndian(keccak_256(concatBytes(hash, publicKey, X.toBytes()))) % L === c;
  } catch {
    return false;
  }
}

/** Verifies a SigV1/SigV2 message signature for an address on `network`; never throws. */
export function verifyCryptonoteMessage(input: CryptonoteMessageInput): CryptonoteMessageResult {
  const match = SIGNATURE.exec(input.signature);
  if (match === null) return { ok: false, reason: 'not a SigV1/SigV2 signature' };
  const raw = cryptonoteBase58Decode(match[2]!);
  if (raw === null || raw.length !== 64) return { ok: false, reason: 'signature is not 64 bytes of base58' };
  const address = decodeCryptonoteAddress(input.address, input.asset);
  if (address === null) return { ok: false, reason: 'invalid address' };
  if (address.network !== input.network) return { ok: false, reason: `address is not on ${input.network}` };
  const c = littleEndian(raw.subarray(0, 32));
  const r = littleEndian(raw.subarray(32));
  if (c >= L || r >= L || c === 0n) return { ok: false, reason: 'non-canonical signature scalars' };
  const version = match[1] === '1' ? 1 : 2;
  const { publicSpendKey: spend, publicViewKey: view } = address;
  if (checkSignature(messageHash(version, input, spend, view, 0), spend, c, r)) return { ok: true, version, mode: 'spend' };
  if (input.allowViewKey === true && checkSignature(messageHash(version, input, spend, view, 1), view, c, r)) return { ok: true, version, mode: 'view' };
  return { ok: false, reason: 'signature does not verify' };
}
