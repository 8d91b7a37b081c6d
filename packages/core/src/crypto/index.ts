export { createPeppers, type Peppers } from './pepper.js';
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
