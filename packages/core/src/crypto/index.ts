export { createPeppers, type Peppers } from './pepper.js';
export { deriveKey } from './derive.js';
export { randomHex, newId } from './random.js';
export {
  verifyMessageSignature,
  recoverMessageSigner,
  decodeMessageAddress,
  messageDigest,
  hash160,
  MESSAGE_NETWORKS,
  type MessageNetwork,
  type MessageAddressType,
} from './bitcoin-message.js';
export { verifyNip98, nostrEventId, NIP98_KIND, NIP98_WINDOW_SEC, type NostrEvent, type Nip98Request, type Nip98Result } from './nip98.js';
export { cryptonoteBase58Encode, cryptonoteBase58Decode } from './cryptonote-base58.js';
export { decodeCryptonoteAddress, viewKeyMatches, type CryptonoteAddress, type CryptonoteAsset, type CryptonoteNetwork } from './cryptonote-address.js';
export { verifyCryptonoteMessage } from './cryptonote-message.js';
export { decodeSlatepackAddress, encodeSlatepackAddress, looksLikeSlatepackAddress, isEd25519PublicKeyHex, verifyGrinMessage } from './grin-keys.js';
export { grinRewindHash, grinRewindNonce, parseRewindHash, rewindBulletproof, rewoundValue, decodeGrinOutputMessage, scanGrinOutputs, type RewoundOutput, type RewindFailure, type ChainOutput, type ScannedOutput } from './grin-rewind.js';
export { verifyAssetSignature, assetSignatureShapeOk, compressedSecp256k1Hex, type AssetSignatureInput, type SigningAsset } from './asset-signature.js';
export { createIntegrity, type Integrity } from './integrity.js';
export { parseNostrPubkey } from './nostr-keys.js';
export { receivedWithTxKey, txKeyOutputsOf, type TxKeyOutput, type TxKeyReceipt } from './cryptonote-tx-key.js';
