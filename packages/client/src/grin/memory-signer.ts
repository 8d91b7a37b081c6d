import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { GrinSigner } from './signer.js';
import { bytes32 } from './bytes.js';

/**
 * A {@link GrinSigner} holding the ed25519 secret seed (32 bytes, hex or bytes; for a slatepack
 * key see `slatepackSecretSeed`) in memory, for Node wallets and tests. RFC 8032 is
 * deterministic: the same message gives the same signature.
 */
export function memoryGrinSigner(secretSeed: string | Uint8Array): GrinSigner {
  const seed = Uint8Array.from(bytes32(secretSeed, 'secretSeed'));
  const publicKey = bytesToHex(ed25519.getPublicKey(seed));
  return {
    publicKey: () => publicKey,
    signMessage: (message) => bytesToHex(ed25519.sign(utf8ToBytes(message), seed)),
  };
}
