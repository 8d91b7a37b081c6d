/**
 * ed25519 scalars as Monero writes them: 32 bytes, little-endian, canonical (below ℓ).
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { hexToBytes } from '@noble/hashes/utils.js';

/** ℓ, the order of the ed25519 prime-order subgroup. */
export const L = ed25519.Point.Fn.ORDER;

/** The 32 little-endian bytes of a scalar. */
export function scalarToBytes(value: bigint): Uint8Array {
  return numberToBytesLE(value, 32);
}

/** Any little-endian bytes reduced mod ℓ (Monero's sc_reduce / hash_to_scalar after Keccak). */
export function reduceScalar(bytes: Uint8Array): bigint {
  return bytesToNumberLE(bytes) % L;
}

/**
 * A secret key as wallets export it (`spendkey` / `viewkey`: 64 hex of 32 little-endian bytes,
 * or the bytes): must be canonical and non-zero, as Monero's sc_check requires.
 */
export function secretScalar(key: string | Uint8Array, name: string): bigint {
  const bytes = typeof key === 'string' ? (/^[0-9a-fA-F]{64}$/.test(key) ? hexToBytes(key) : null) : key;
  if (bytes === null || bytes.length !== 32) throw new TypeError(`${name} must be 32 bytes (64 hex characters)`);
  const value = bytesToNumberLE(bytes);
  if (value === 0n || value >= L) throw new RangeError(`${name} is not a canonical non-zero scalar`);
  return value;
}

/** The public key a·G of a secret scalar (Monero: no clamping, no hashing of the secret). */
export function publicKeyOf(secret: bigint): Uint8Array {
  return ed25519.Point.BASE.multiply(secret).toBytes();
}
