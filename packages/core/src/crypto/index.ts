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
