/**
 * Key proofs for `POST /api/v1/keys` (docs/wallet-integration.md §5, "Key proofs"): the key signs
 * a text naming the deployment, the account, the asset and the key, so the key becomes
 * **proven** (website login, Grin relay routing).
 * @module
 */
import { keyRegistrationMessage } from '../messages.js';
import { assertSignerAsset, type AssetBitcoinSigner, type MessageAsset } from './bitcoin-message.js';

/** The JSON body of `POST /api/v1/keys` with a proof. */
export interface KeyProofRequest {
  asset: MessageAsset;
  public_key: string;
  signature: string;
}

/** What {@link buildKeyProof} needs. */
export interface KeyProofInput {
  service: string;
  userId: string;
  asset: MessageAsset;
  /** The key to prove (magic of `asset`); its `publicKey()` is sent as `public_key` verbatim. */
  signer: AssetBitcoinSigner;
}

/**
 * A proven btc/ltc key registration: `{asset, public_key, signature}` with the Bitcoin message
 * signature (the asset's magic) over {@link keyRegistrationMessage}. A wrong signature is
 * `400 key_proof_invalid`.
 */
export async function buildKeyProof(input: KeyProofInput): Promise<KeyProofRequest> {
  assertSignerAsset(input.signer, input.asset);
  const publicKey = await input.signer.publicKey();
  const message = keyRegistrationMessage({ service: input.service, userId: input.userId }, input.asset, publicKey);
  return { asset: input.asset, public_key: publicKey, signature: await input.signer.signMessage(message) };
}
