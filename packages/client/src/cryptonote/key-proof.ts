import type { CryptonoteAsset } from './address.js';
import { keyRegistrationMessage, type KeyProofContext } from '../messages.js';
import type { CryptonoteSigner } from './signer.js';

/** The JSON body of POST /api/v1/keys registering an xmr or wow address WITH its proof. */
export interface CryptonoteKeyProofRequest {
  asset: CryptonoteAsset;
  /** The address, exactly as signed. */
  public_key: string;
  /** SigV2 by the spend key over the key-registration text. */
  signature: string;
}

/** What {@link buildCryptonoteKeyProof} needs: the deployment, the account and the key. */
export interface CryptonoteKeyProofInput extends KeyProofContext {
  signer: CryptonoteSigner;
}

/**
 * A key proof for the signer's address (docs section 5): the registration text naming this
 * deployment, account, asset and address, signed by the spend key. Post it to /api/v1/keys
 * with the account's bearer token; the address then logs in on websites. A wrong signature is
 * `400 key_proof_invalid`.
 */
export async function buildCryptonoteKeyProof(input: CryptonoteKeyProofInput): Promise<CryptonoteKeyProofRequest> {
  const { signer } = input;
  const address = await signer.address();
  const signature = await signer.signMessage(keyRegistrationMessage(input, signer.asset, address));
  return { asset: signer.asset, public_key: address, signature };
}
