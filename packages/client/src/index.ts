// The browser-light entry: signer interfaces, the BTC/LTC and Nostr proofs, signed actions,
// ALTCHA and tip claims. Monero/Wownero and Grin are `@wallet/client/cryptonote` and
// `@wallet/client/grin`, so a wallet that does not hold those keys does not load their code.
export type { BitcoinMessageSigner, NostrSigner, NostrEvent, NostrEventTemplate } from './signer.js';
export { assertWebsiteChallenge, extensionLoginMessage, keyRegistrationMessage, keyRotationMessage, nostrMergeMessage, parseWebsiteChallenge, type KeyProofContext, type ParsedWebsiteChallenge, type WebsiteChallenge, type WebsiteLoginAudience } from './messages.js';
export * from './http/index.js';
export * from './proofs/index.js';
export * from './tips/index.js';
