/**
 * A Grin wallet's ed25519 key (the slatepack key), wherever it lives: the client builds every
 * message, the key only signs it.
 */
export interface GrinSigner {
  /** The ed25519 public key, 64 lower-case hex: the grin "primary key". */
  publicKey(): Promise<string> | string;
  /** RFC 8032 ed25519 over the message's UTF-8 bytes, 128 hex. */
  signMessage(message: string): Promise<string> | string;
}
