import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeCryptonoteAddress, encodeCryptonoteAddress, type CryptonoteAsset, type CryptonoteNetwork } from './address.js';
import { cryptonoteMessageHash, signCryptonoteHash } from './message-signature.js';
import { publicKeyOf, secretScalar } from './scalar.js';
import type { CryptonoteSigner } from './signer.js';

/** What {@link memoryCryptonoteSigner} needs: the secret spend key and either the view key or the address. */
export interface MemoryCryptonoteSignerOptions {
  asset: CryptonoteAsset;
  /** The secret spend key, as `spendkey` prints it: 64 hex (32 little-endian bytes), or the bytes. */
  spendKey: string | Uint8Array;
  /** The secret view key (64 hex or bytes): the signer then signs for the standard address on `network`. */
  viewKey?: string | Uint8Array;
  /** The address to sign for; its public spend key must be `spendKey`'s (for a subaddress: pass the subaddress's spend secret). */
  address?: string;
  /** The network of the address made from `viewKey`, or the one `address` must be on. Default mainnet. */
  network?: CryptonoteNetwork;
  /** The nonce source (default: the platform's CSPRNG). Only for reproducible tests. */
  randomBytes?: (length: number) => Uint8Array;
}

function resolveAddress(options: MemoryCryptonoteSignerOptions, publicSpendKey: Uint8Array): string {
  const publicViewKey = options.viewKey === undefined ? undefined : publicKeyOf(secretScalar(options.viewKey, 'viewKey'));
  if (options.address === undefined) {
    if (publicViewKey === undefined) throw new TypeError('memoryCryptonoteSigner needs viewKey or address');
    return encodeCryptonoteAddress({ asset: options.asset, network: options.network ?? 'mainnet', publicSpendKey, publicViewKey });
  }
  const decoded = decodeCryptonoteAddress(options.address, options.asset);
  if (decoded === null || decoded.kind === 'integrated') throw new TypeError(`not a standard ${options.asset} address or subaddress`);
  if (options.network !== undefined && decoded.network !== options.network) throw new TypeError(`the address is not a ${options.network} address`);
  if (bytesToHex(decoded.publicSpendKey) !== bytesToHex(publicSpendKey)) throw new TypeError("spendKey is not the address's spend key");
  // A subaddress's view key is derived, so only a standard address can be checked against viewKey.
  if (publicViewKey !== undefined && decoded.kind === 'standard' && bytesToHex(decoded.publicViewKey) !== bytesToHex(publicViewKey)) {
    throw new TypeError("viewKey is not the address's view key");
  }
  return options.address;
}

/**
 * A {@link CryptonoteSigner} holding the secret spend key in memory, for Node wallets and tests.
 * Throws at once on a malformed key or a key that does not belong to the address.
 */
export function memoryCryptonoteSigner(options: MemoryCryptonoteSignerOptions): CryptonoteSigner {
  const spendSecret = secretScalar(options.spendKey, 'spendKey');
  const address = resolveAddress(options, publicKeyOf(spendSecret));
  const { publicSpendKey, publicViewKey } = decodeCryptonoteAddress(address, options.asset)!;
  const random = options.randomBytes ?? randomBytes;
  return {
    asset: options.asset,
    address: () => address,
    signMessage: (message) => signCryptonoteHash(cryptonoteMessageHash(options.asset, publicSpendKey, publicViewKey, utf8ToBytes(message)), spendSecret, random),
  };
}
