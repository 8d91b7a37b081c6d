import type { CryptonoteAsset } from './address.js';

/**
 * A Monero or Wownero wallet's key, wherever it lives (memory, a hardware wallet, a wallet RPC):
 * the client builds every message, the key only signs it.
 */
export interface CryptonoteSigner {
  /** `xmr` or `wow`: which domain separator the signature uses. */
  readonly asset: CryptonoteAsset;
  /** The address the key signs for (standard address or subaddress), as it is registered. */
  address(): Promise<string> | string;
  /**
   * The message's UTF-8 bytes signed as `monero-wallet-cli sign --spend` / wallet RPC `sign`
   * sign them: "SigV2…" by the address's SPEND key (the server refuses a view-key signature).
   */
  signMessage(message: string): Promise<string> | string;
}
