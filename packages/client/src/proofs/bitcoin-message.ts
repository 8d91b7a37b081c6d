/**
 * Bitcoin message signing as the server verifies it (docs/wallet-integration.md §1): the
 * asset's magic, `SHA256d(len(magic) ‖ magic ‖ CompactSize(len) ‖ message)`, a 65-byte compact
 * recoverable signature `header ‖ r ‖ s`, base64.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { BitcoinMessageSigner } from '../signer.js';

/** The assets whose keys sign Bitcoin-style messages. */
export type MessageAsset = 'btc' | 'ltc';

/**
 * Each asset's message magic, without its length byte. The server hashes BTC proofs with
 * `"\x18Bitcoin Signed Message:\n"` and LTC proofs with `"\x19Litecoin Signed Message:\n"`
 * (what Electrum and litecoind use); a signature under the other magic is refused.
 */
export const MESSAGE_MAGIC: Readonly<Record<MessageAsset, string>> = {
  btc: 'Bitcoin Signed Message:\n',
  ltc: 'Litecoin Signed Message:\n',
};

/** A Bitcoin-message signer that says which asset's magic it signs with (the memory signer does). */
export interface AssetBitcoinSigner extends BitcoinMessageSigner {
  readonly asset?: MessageAsset;
}

/** Bitcoin's CompactSize length prefix (the server's encoding). */
function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
}

/**
 * The 32 bytes a Bitcoin message signature signs for `asset`:
 * `SHA256(SHA256(CompactSize(len(magic)) ‖ magic ‖ CompactSize(len(message)) ‖ message))`,
 * the message as its UTF-8 bytes, exactly as given (no trailing newline is added).
 */
export function bitcoinMessageDigest(asset: MessageAsset, message: string | Uint8Array): Uint8Array {
  const magic = utf8ToBytes(MESSAGE_MAGIC[asset]);
  const body = typeof message === 'string' ? utf8ToBytes(message) : message;
  return sha256(sha256(concatBytes(compactSize(magic.length), magic, compactSize(body.length), body)));
}

/** The compressed (33-byte) hex form of a secp256k1 public key given compressed or uncompressed. */
export function compressPublicKey(publicKeyHex: string): string {
  return secp256k1.Point.fromHex(publicKeyHex.toLowerCase()).toHex(true);
}

/**
 * `pubkey_hash` as the server keys BTC identities: HASH160 (RIPEMD-160 of SHA-256) of the
 * **compressed** public key, 40 lower-case hex; an uncompressed key is compressed first.
 */
export function pubkeyHash(publicKeyHex: string): string {
  return bytesToHex(ripemd160(sha256(hexToBytes(compressPublicKey(publicKeyHex)))));
}

/**
 * Throws when `signer` declares an asset other than `asset`: its signatures would carry the
 * wrong magic and the server would refuse them. Signers that declare nothing are trusted.
 */
export function assertSignerAsset(signer: AssetBitcoinSigner, asset: MessageAsset): void {
  if (signer.asset !== undefined && signer.asset !== asset) {
    throw new Error(`this proof needs a ${asset} signer (message magic ${JSON.stringify(MESSAGE_MAGIC[asset])}), got a ${signer.asset} signer`);
  }
}
