/**
 * Monero / Wownero message signatures as `monero-wallet-cli sign` and wallet RPC `sign` make
 * them (SigV2, spend-key mode):
 *
 *   h = Keccak256(D ‖ A ‖ B ‖ 0x00 ‖ varint(len m) ‖ m)   D = "MoneroMessageSignature\0"
 *                                                          (Wownero: "WowneroMessageSignature\0")
 *   k random;  c = Keccak256(h ‖ A ‖ k·G) mod ℓ;  r = k − c·a mod ℓ
 *   signature = "SigV2" ‖ base58(c ‖ r)                  c, r: 32-byte little-endian
 *
 * A, B are the address's public spend and view keys and a the secret spend key.
 * @see monero-project/monero src/wallet/wallet2.cpp (get_message_hash, sign_message), src/crypto/crypto.cpp (generate_signature)
 * @module
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { CryptonoteAsset } from './address.js';
import { base58Encode } from './base58.js';
import { L, publicKeyOf, reduceScalar, scalarToBytes } from './scalar.js';
import { encodeVarint } from './varint.js';

const DOMAINS: Record<CryptonoteAsset, Uint8Array> = {
  xmr: utf8ToBytes('MoneroMessageSignature\0'),
  wow: utf8ToBytes('WowneroMessageSignature\0'),
};

/** The SigV2 message hash h, spend-key mode, over the exact message bytes. */
export function cryptonoteMessageHash(asset: CryptonoteAsset, publicSpendKey: Uint8Array, publicViewKey: Uint8Array, message: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(DOMAINS[asset], publicSpendKey, publicViewKey, Uint8Array.of(0), encodeVarint(message.length), message));
}

/**
 * Monero's generate_signature over `hash` with the secret spend scalar, as a "SigV2…" string.
 * `randomBytes` supplies the nonce (64 bytes, reduced mod ℓ); a zero nonce or challenge is drawn again.
 */
export function signCryptonoteHash(hash: Uint8Array, spendSecret: bigint, randomBytes: (length: number) => Uint8Array): string {
  const publicSpendKey = publicKeyOf(spendSecret);
  for (;;) {
    const k = reduceScalar(randomBytes(64));
    if (k === 0n) continue;
    const c = reduceScalar(keccak_256(concatBytes(hash, publicSpendKey, publicKeyOf(k))));
    if (c === 0n) continue;
    const r = (((k - c * spendSecret) % L) + L) % L;
    return `SigV2${base58Encode(concatBytes(scalarToBytes(c), scalarToBytes(r)))}`;
  }
}
