/**
 * Signers that hold the key in memory: for tests, scripts and Node wallets. A browser wallet
 * would rather pass a hardware wallet or a NIP-07 extension; the builders take either.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import type { BitcoinMessageSigner, NostrEvent, NostrEventTemplate, NostrSigner } from '../signer.js';
import { bitcoinMessageDigest, type MessageAsset } from './bitcoin-message.js';

/** Options of {@link memoryBitcoinSigner}. */
export interface MemoryBitcoinSignerOptions {
  /** Whose message magic to sign with: `btc` (default, "Bitcoin Signed Message:\n") or `ltc` ("Litecoin Signed Message:\n"). */
  asset?: MessageAsset;
  /**
   * Compressed key (default): `publicKey()` is 33 bytes and headers are 31–34, as Electrum and
   * `signmessage` write for a compressed P2PKH key. `false`: the 65-byte `04…` key and headers
   * 27–30, as legacy Electrum and litecoind keys sign. The server requires the header to name the
   * encoding of the `public_key` sent.
   */
  compressed?: boolean;
  /**
   * Grind the nonce for a low R (r < 2^255) as Electrum does: RFC 6979 first, then with extra
   * entropy `counter` (32 bytes little-endian, from 1) until R is low. Default: `true` for btc
   * (Electrum's signatures, byte for byte), `false` for ltc (litecoind's `signmessage` signs plain
   * RFC 6979). The server accepts either.
   */
  lowR?: boolean;
}

/** A {@link BitcoinMessageSigner} bound to one asset's magic and one key encoding. */
export interface MemoryBitcoinSigner extends BitcoinMessageSigner {
  readonly asset: MessageAsset;
  readonly compressed: boolean;
  readonly lowR: boolean;
  publicKey(): string;
  signMessage(message: string): string;
}

/**
 * A BIP-137 message signer over a 32-byte secp256k1 private key: deterministic (RFC 6979, low-S,
 * and for btc Electrum's low-R grinding), base64 of `header ‖ r ‖ s` with header `27 + recid`
 * (+4 when compressed): byte for byte what Electrum (btc) and litecoind (ltc) `signmessage` give
 * for the same key and message.
 */
export function memoryBitcoinSigner(privateKey: Uint8Array, options: MemoryBitcoinSignerOptions = {}): MemoryBitcoinSigner {
  const asset = options.asset ?? 'btc';
  const compressed = options.compressed ?? true;
  const secret = Uint8Array.from(privateKey);
  const lowR = options.lowR ?? asset === 'btc';
  const publicKeyHex = bytesToHex(secp256k1.getPublicKey(secret, compressed));
  return {
    asset,
    compressed,
    lowR,
    publicKey: () => publicKeyHex,
    signMessage(message: string): string {
      const digest = bitcoinMessageDigest(asset, message);
      let recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
      // recovered = recid ‖ r ‖ s; a high R has the top bit of r's first byte set.
      for (let counter = 1; lowR && recovered[1]! >= 0x80; counter += 1) {
        const extraEntropy = new Uint8Array(32);
        new DataView(extraEntropy.buffer).setUint32(0, counter, true);
        recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered', extraEntropy });
      }
      const header = (compressed ? 31 : 27) + recovered[0]!;
      return base64.encode(concatBytes(Uint8Array.of(header), recovered.subarray(1)));
    },
  };
}

/** A {@link NostrSigner} over a 32-byte secret key, signing with nostr-tools' `finalizeEvent` (BIP-340). */
export function memoryNostrSigner(secretKey: Uint8Array): NostrSigner & { getPublicKey(): string; signEvent(event: NostrEventTemplate): NostrEvent } {
  const secret = Uint8Array.from(secretKey);
  const pubkey = getPublicKey(secret);
  return {
    getPublicKey: () => pubkey,
    signEvent(event: NostrEventTemplate): NostrEvent {
      const signed = finalizeEvent({ kind: event.kind, tags: event.tags.map((tag) => [...tag]), created_at: event.created_at, content: event.content }, secret);
      return { kind: signed.kind, tags: signed.tags, created_at: signed.created_at, content: signed.content, pubkey: signed.pubkey, id: signed.id, sig: signed.sig };
    },
  };
}
