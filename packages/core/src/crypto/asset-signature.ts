/**
 * "This key signed these bytes", for every asset, in the scheme its wallets use. The one place
 * website login and key-registration proofs check a key's signature, so the real-wallet vector
 * tests exercise the code that logins run.
 *
 * - btc / ltc: a Bitcoin message signature (65-byte compact, base64) with the chain's magic.
 *   The key may be given compressed (`02`/`03`, headers 31–42) or uncompressed (`04`, headers
 *   27–30: Electrum and litecoind sign with uncompressed keys too). The header must name the
 *   encoding given, as litecoind and Electrum require; there is no address, so the segwit
 *   header ranges carry no meaning here beyond "compressed".
 * - xmr / wow: SigV1/SigV2 by the address's SPEND key. A view-key signature is refused: the view
 *   key is shared with light-wallet servers (and passes through this backend), so it proves
 *   nothing about who owns the wallet.
 * - grin: ed25519 (hex) by the 64-hex primary key, or by the key inside a slatepack address.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { MESSAGE_NETWORKS, recoverMessageSigner } from './bitcoin-message.js';
import type { CryptonoteNetwork } from './cryptonote-address.js';
import { verifyCryptonoteMessage } from './cryptonote-message.js';
import { decodeSlatepackAddress, looksLikeSlatepackAddress, verifyGrinMessage } from './grin-keys.js';

export type SigningAsset = 'btc' | 'ltc' | 'xmr' | 'wow' | 'grin';

export interface AssetSignatureInput {
  asset: SigningAsset;
  /** btc/ltc: hex public key; xmr/wow: the address; grin: hex key or slatepack address. */
  publicKey: string;
  message: Uint8Array;
  signature: string;
  /** The network xmr/wow addresses must belong to. */
  cryptonoteNetwork: CryptonoteNetwork;
}

const SECP_HEX = /^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/;
const BASE64_COMPACT = /^[A-Za-z0-9+/]{86}[AEIMQUYcgkosw048]=$/;
const CRYPTONOTE_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{95,110}$/;
const CRYPTONOTE_SIGNATURE = /^SigV[12][1-9A-HJ-NP-Za-km-z]{88}$/;
const GRIN_HEX_KEY = /^[0-9a-fA-F]{64}$/;
const GRIN_SIGNATURE = /^[0-9a-fA-F]{128}$/;
/** A slatepack address of a 32-byte key: (t)grin1, 52 data and 6 checksum bech32 characters. */
const SLATEPACK_ADDRESS = /^t?grin1[02-9ac-hj-np-z]{58}$/i;

/**
 * The compressed hex form of a secp256k1 public key given compressed or uncompressed, or null
 * when it is not a point on the curve. btc/ltc keys are stored, compared and hashed in this form.
 */
export function compressedSecp256k1Hex(value: string): string | null {
  if (!SECP_HEX.test(value)) return null;
  try {
    return secp256k1.Point.fromHex(value.toLowerCase()).toHex(true);
  } catch {
    return null;
  }
}

/** Do the key and signature have the right shape for the asset? (Shape only: says nothing about validity.) */
export function assetSignatureShapeOk(asset: SigningAsset, publicKey: string, signature: string): boolean {
  switch (asset) {
    case 'btc':
    case 'ltc':
      return SECP_HEX.test(publicKey) && BASE64_COMPACT.test(signature);
    case 'xmr':
    case 'wow':
      return CRYPTONOTE_ADDRESS.test(publicKey) && CRYPTONOTE_SIGNATURE.test(signature);
    case 'grin':
      return (GRIN_HEX_KEY.test(publicKey) || SLATEPACK_ADDRESS.test(publicKey)) && GRIN_SIGNATURE.test(signature);
  }
}

/** Does `signature` prove control of `publicKey` over `message`? Never throws; fails closed. */
export function verifyAssetSignature(input: AssetSignatureInput): boolean {
  const { asset, publicKey, message, signature } = input;
  switch (asset) {
    case 'btc':
    case 'ltc': {
      const signer = recoverMessageSigner(message, signature, MESSAGE_NETWORKS[asset === 'btc' ? 'btc-mainnet' : 'ltc-mainnet']);
      // The recovered key's hex is a valid SEC encoding of a point, so a key equal to it needs no separate shape or point check.
      return signer !== null && bytesToHex(signer.publicKey) === publicKey.toLowerCase();
    }
    case 'xmr':
    case 'wow':
      return verifyCryptonoteMessage({ asset, network: input.cryptonoteNetwork, address: publicKey, message, signature }).ok;
    case 'grin': {
      if (!looksLikeSlatepackAddress(publicKey)) return verifyGrinMessage(publicKey, message, signature);
      const address = decodeSlatepackAddress(publicKey);
      return address !== null && verifyGrinMessage(bytesToHex(address.publicKey), message, signature);
    }
  }
}
