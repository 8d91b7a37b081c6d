// The proofs a wallet signs for the server, byte for byte (docs/wallet-integration.md). Every
// builder takes a signer, never a key; the memory signers are for tests and Node wallets.
export { MESSAGE_MAGIC, bitcoinMessageDigest, compressPublicKey, pubkeyHash, type AssetBitcoinSigner, type MessageAsset } from './bitcoin-message.js';
export { memoryBitcoinSigner, memoryNostrSigner, type MemoryBitcoinSigner, type MemoryBitcoinSignerOptions } from './memory-signers.js';
export type { GateInputs, SubmittedKey } from './gates.js';
export { buildExtensionLogin, seedFingerprint, type ExtensionLoginInput, type ExtensionLoginRequest } from './extension.js';
export { buildWebsiteLogin, type WebsiteLoginInput, type WebsiteVerifyRequest } from './website-login.js';
export { buildKeyProof, type KeyProofInput, type KeyProofRequest } from './key-proof.js';
export { NIP98_KIND, NOSTR_LOGIN_PATH, buildNip98Event, buildNostrLogin, nip98Token, type Nip98Input, type Nip98Proof, type NostrLoginInput } from './nip98.js';
export {
  SIGNED_ACTION_PURPOSES,
  buildSignedAction,
  requestDescriptorHash,
  requestDescriptorText,
  signedActionBody,
  type RequestDescriptor,
  type SignedActionInput,
  type SignedActionProof,
  type SignedActionPurpose,
} from './signed-action.js';
export { NOSTR_LINK_PATH, NOSTR_REGISTER_PATH, buildNostrLink, buildNostrRegister, type NostrActionInput, type NostrLinkRequest, type NostrRegisterInput, type NostrRegisterRequest } from './nostr-account.js';
export { buildErasureProof, erasureActionTarget, type ErasureAction, type ErasureProofInput } from './erasure.js';
export { MAX_ALTCHA_COST, altchaDeriveKey, solveAltcha, type AltchaChallenge, type AltchaSolution, type SolveAltchaOptions } from './altcha.js';
