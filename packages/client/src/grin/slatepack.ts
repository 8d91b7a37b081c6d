/**
 * Grin slatepack addresses and keys, as grin-wallet makes them: the address is original bech32
 * (BIP-173, not bech32m) of the 32-byte ed25519 public key, HRP `grin` on mainnet and `tgrin`
 * on every other chain; the key's secret seed is BLAKE2b-256 of the wallet's secp256k1 child key
 * at m/0/1/<index>.
 * @see mimblewimble/grin-wallet libwallet/src/slatepack/address.rs, libwallet/src/address.rs
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { bytes32 } from './bytes.js';

/** `grin` on mainnet, `tgrin` on every other chain type. */
export type SlatepackHrp = 'grin' | 'tgrin';

/** The slatepack address (lower case) of a 64-hex ed25519 public key. */
export function slatepackAddress(publicKeyHex: string, hrp: SlatepackHrp): string {
  return bech32.encode(hrp, bech32.toWords(bytes32(publicKeyHex, 'publicKey')));
}

/**
 * The ed25519 secret seed of a slatepack key from grin-wallet's secp256k1 child key at
 * m/0/1/<index> (32 bytes, hex or bytes): BLAKE2b-256 of it, as address_from_derivation_path does.
 */
export function slatepackSecretSeed(childKey: string | Uint8Array): string {
  return bytesToHex(blake2b(bytes32(childKey, 'childKey'), { dkLen: 32 }));
}

