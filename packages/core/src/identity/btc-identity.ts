import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { MESSAGE_NETWORKS, recoverMessageSigner } from '../crypto/index.js';

/**
 * The BTC key that signed `message`, compressed, or null. pubkey_hash is HASH160 of the
 * compressed key; a signature with an uncompressed header (27–30, Electrum and litecoind legacy
 * keys) is the same key's, so it is accepted and compressed.
 */
export function btcSigner(message: string, signature: string): Uint8Array | null {
  const signer = recoverMessageSigner(utf8ToBytes(message), signature, MESSAGE_NETWORKS['btc-mainnet']);
  return signer === null ? null : secp256k1.Point.fromBytes(signer.publicKey).toBytes(true);
}

/** Where an account's proven BTC primary key `publicKeyHex` is looked up (`KeyRepository.provenOwner`). */
export function btcPrimary(publicKeyHex: string): { asset: 'btc'; keyTypes: ['primary']; publicKey: string } {
  return { asset: 'btc', keyTypes: ['primary'], publicKey: publicKeyHex };
}
