// `@wallet/client/cryptonote`: Monero and Wownero proofs (website login, key proofs) and the
// SigV2 signer they need. A separate entry so wallets without these keys do not load this code.
export type { CryptonoteSigner } from './signer.js';
export { memoryCryptonoteSigner, type MemoryCryptonoteSignerOptions } from './memory-signer.js';
export { buildCryptonoteWebsiteLogin, type CryptonoteWebsiteLoginInput, type CryptonoteWebsiteVerifyRequest } from './website-login.js';
export { buildCryptonoteKeyProof, type CryptonoteKeyProofInput, type CryptonoteKeyProofRequest } from './key-proof.js';
export type { KeyProofContext, WebsiteChallenge, WebsiteLoginAudience } from '../messages.js';
export {
  encodeCryptonoteAddress,
  decodeCryptonoteAddress,
  type CryptonoteAddress,
  type CryptonoteAddressKind,
  type CryptonoteAsset,
  type CryptonoteNetwork,
} from './address.js';
export { cryptonoteMessageHash } from './message-signature.js';
