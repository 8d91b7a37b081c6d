/**
 * The exact texts wallets sign (docs/wallet-integration.md gives each byte for byte). Lines are
 * joined with "\n", no trailing newline; `service` is PUBLIC_API_URL exactly as configured, so a
 * proof made for one deployment is useless at another.
 */

/** Accepted distance between a signed timestamp and the server clock, in seconds. */
export const SIGNED_TIMESTAMP_SKEW_SEC = 300;

export function extensionLoginMessage(service: string, pubkeyHash: string, timestamp: number): string {
  return ['Wallet Backend login', `service: ${service}`, `pubkey_hash: ${pubkeyHash}`, `timestamp: ${timestamp}`].join('\n');
}

export function keyRotationMessage(service: string, newPubkeyHash: string, timestamp: number): string {
  return ['Wallet Backend key rotation', `service: ${service}`, `new_pubkey_hash: ${newPubkeyHash}`, `timestamp: ${timestamp}`].join('\n');
}

/**
 * What a wallet's BTC identity key signs to bring an existing account into a Nostr registration
 * (`merge_signature`): bound to the npub being attached and to the register challenge's nonce,
 * so it proves nothing for another npub and is spent with the nonce.
 */
export function nostrMergeMessage(service: string, nostrPubkey: string, nonce: string): string {
  return ['Wallet Backend Nostr registration', `service: ${service}`, `nostr_pubkey: ${nostrPubkey}`, `nonce: ${nonce}`].join('\n');
}

export function websiteChallengeMessage(input: { origin: string; service: string; nonce: string; expiresAt: Date }): string {
  return [
    `${input.origin} asks you to sign in with your wallet.`,
    `service: ${input.service}`,
    `challenge: ${input.nonce}`,
    `expires: ${input.expiresAt.toISOString()}`,
  ].join('\n');
}
