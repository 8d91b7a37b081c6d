import { bytesToHex } from '@noble/hashes/utils.js';
import { cryptonoteNetworkOf, slatepackHrpOf, type Asset, type ChainNetwork } from '../chains/index.js';
import { compressedSecp256k1Hex, decodeCryptonoteAddress, decodeSlatepackAddress, isEd25519PublicKeyHex, looksLikeSlatepackAddress } from '../crypto/index.js';
import { directoryErrors } from './errors.js';

/** `primary` holds the signing/receiving key; Grin's slatepack address has its own row. */
export const KEY_TYPES = ['primary', 'slatepack_address'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export interface SubmittedKey {
  asset: Asset;
  public_key: string;
  public_spend_key?: string | null | undefined;
}

export interface ReceivingKey {
  asset: Asset;
  keyType: KeyType;
  publicKey: string;
  publicSpendKey: string | null;
}

function invalid(message: string): never {
  throw directoryErrors.create.key_invalid({ message });
}

/**
 * Validates a submitted key for its asset and network and puts it in its stored form (spec ›
 * Per-asset key). Grin values are routed by form, because shipped wallets send both kinds in
 * the same field: a bech32 `grin1…`/`tgrin1…` string is a slatepack address, anything else must
 * be the hex ed25519 primary key (hex cannot start with those letters).
 */
export function normaliseKey(key: SubmittedKey, network: ChainNetwork): ReceivingKey {
  const spendKey = key.public_spend_key ?? null;
  switch (key.asset) {
    case 'btc':
    case 'ltc': {
      if (spendKey !== null) invalid(`${key.asset} keys have no public_spend_key.`);
      // Stored compressed: an uncompressed key (Electrum/litecoind legacy wallets) is the same point.
      const compressed = compressedSecp256k1Hex(key.public_key);
      if (compressed === null) invalid(`A ${key.asset} key is a secp256k1 public key in hex: 66 characters starting 02 or 03, or 130 starting 04.`);
      return { asset: key.asset, keyType: 'primary', publicKey: compressed, publicSpendKey: null };
    }
    case 'xmr':
    case 'wow': {
      const address = decodeCryptonoteAddress(key.public_key, key.asset);
      if (address === null || address.kind === 'integrated') invalid(`A ${key.asset} key is a standard or subaddress ${key.asset} address.`);
      if (address.network !== cryptonoteNetworkOf(network)) invalid(`The ${key.asset} address is not a ${cryptonoteNetworkOf(network)} address.`);
      const decodedSpendKey = bytesToHex(address.publicSpendKey);
      if (spendKey !== null && spendKey.toLowerCase() !== decodedSpendKey) invalid('public_spend_key does not match the address.');
      return { asset: key.asset, keyType: 'primary', publicKey: key.public_key, publicSpendKey: decodedSpendKey };
    }
    case 'grin': {
      if (spendKey !== null) invalid('grin keys have no public_spend_key.');
      if (looksLikeSlatepackAddress(key.public_key)) {
        const address = decodeSlatepackAddress(key.public_key);
        if (address === null) invalid('The slatepack address is not valid bech32 of an ed25519 key.');
        if (address.hrp !== slatepackHrpOf(network)) invalid(`A slatepack address on this network starts with ${slatepackHrpOf(network)}1.`);
        return { asset: 'grin', keyType: 'slatepack_address', publicKey: key.public_key.toLowerCase(), publicSpendKey: null };
      }
      if (!isEd25519PublicKeyHex(key.public_key)) invalid('A grin primary key is a 64-hex ed25519 public key.');
      return { asset: 'grin', keyType: 'primary', publicKey: key.public_key.toLowerCase(), publicSpendKey: null };
    }
  }
}
