/**
 * What a wallet's key does for the client. The client builds every message and event; the key
 * only signs, wherever it lives: in memory, in a hardware wallet, or behind a NIP-07 browser
 * extension. No builder ever takes a private key.
 */

/** Bitcoin and Litecoin keys: a BIP-137 message signature over the exact message given. */
export interface BitcoinMessageSigner {
  /** The public key, hex: 33 bytes compressed or 65 bytes uncompressed (the address type follows it). */
  publicKey(): Promise<string> | string;
  /**
   * The message signed the way Electrum and `signmessage` sign (BIP-137: the asset's message
   * prefix, double SHA-256, a recoverable signature), base64 of the 65-byte compact signature.
   */
  signMessage(message: string): Promise<string> | string;
}

/** An unsigned Nostr event, as NIP-07's `signEvent` takes it. */
export interface NostrEventTemplate {
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
}

/** A signed Nostr event (NIP-01). */
export interface NostrEvent extends NostrEventTemplate {
  id: string;
  pubkey: string;
  sig: string;
}

/** A Nostr key: NIP-07's `window.nostr` fits as it is. */
export interface NostrSigner {
  /** The x-only public key, 64 lower-case hex characters. */
  getPublicKey(): Promise<string> | string;
  signEvent(event: NostrEventTemplate): Promise<NostrEvent> | NostrEvent;
}
