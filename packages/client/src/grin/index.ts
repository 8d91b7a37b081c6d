// `@wallet/client/grin`: Grin proofs (website login, key proofs for the primary key and the
// slatepack address) and the ed25519 signer they need. A separate entry so wallets without a
// Grin key do not load this code.
export type { GrinSigner } from './signer.js';
export { memoryGrinSigner } from './memory-signer.js';
export { slatepackAddress, slatepackSecretSeed, type SlatepackHrp } from './slatepack.js';
export type { GrinKeyForm } from './key-form.js';
export { buildGrinWebsiteLogin, type GrinWebsiteLoginInput, type GrinWebsiteVerifyRequest } from './website-login.js';
export { buildGrinKeyProof, buildGrinKeyProofs, type GrinKeyProofInput, type GrinKeyProofRequest } from './key-proof.js';
export type { KeyProofContext, WebsiteChallenge, WebsiteLoginAudience } from '../messages.js';
