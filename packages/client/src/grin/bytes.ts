import { hexToBytes } from '@noble/hashes/utils.js';

/** A 32-byte value given as 64 hex characters or as bytes; throws naming `name` otherwise. */
export function bytes32(value: string | Uint8Array, name: string): Uint8Array {
  const bytes = typeof value === 'string' ? (/^[0-9a-fA-F]{64}$/.test(value) ? hexToBytes(value) : null) : value;
  if (bytes === null || bytes.length !== 32) throw new TypeError(`${name} must be 32 bytes (64 hex characters)`);
  return bytes;
}
