/**
 * What opening a targeted tip needs of the recipient's Nostr key: NIP-44 v2 decryption from a
 * sender's public key. NIP-07's `window.nostr` fits as it is (when it offers `nip44`), so the
 * recipient's secret key never reaches the client.
 */
export interface Nip44Decrypter {
  nip44: {
    /** The plaintext of a NIP-44 v2 `ciphertext` (base64 payload) from `pubkey` (x-only, 64 hex) to this key. */
    decrypt(pubkey: string, ciphertext: string): Promise<string> | string;
  };
}
