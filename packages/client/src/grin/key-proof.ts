import { grinPublicKeyValue, type GrinKeyForm } from './key-form.js';
import { keyRegistrationMessage, type KeyProofContext } from '../messages.js';
import type { SlatepackHrp } from './slatepack.js';
import type { GrinSigner } from './signer.js';

/** The JSON body of POST /api/v1/keys registering a grin key WITH its proof. */
export interface GrinKeyProofRequest {
  asset: 'grin';
  /** The primary key (64 hex) or the slatepack address, exactly as signed. */
  public_key: string;
  /** ed25519 over the key-registration text, 128 hex. */
  signature: string;
}

/** What {@link buildGrinKeyProof} needs: the deployment, the account, the key and its form. */
export interface GrinKeyProofInput extends KeyProofContext {
  signer: GrinSigner;
  /** The primary key (default) or the slatepack address. */
  key?: GrinKeyForm;
}

/**
 * A key proof for one form of the signer's key (docs section 5): the registration text naming
 * this deployment, account and key form, signed by the key. Post it to /api/v1/keys with the
 * account's bearer token. A wrong signature is `400 key_proof_invalid`.
 */
export async function buildGrinKeyProof(input: GrinKeyProofInput): Promise<GrinKeyProofRequest> {
  const publicKey = await grinPublicKeyValue(input.signer, input.key ?? { form: 'key' });
  const signature = await input.signer.signMessage(keyRegistrationMessage(input, 'grin', publicKey));
  return { asset: 'grin', public_key: publicKey, signature };
}

/**
 * Both proofs a Grin wallet sends ("Send both", docs section 5): the primary key, which logs in
 * on websites, then the slatepack address with the deployment's HRP, which routes relay entries.
 */
export async function buildGrinKeyProofs(input: KeyProofContext & { signer: GrinSigner; hrp: SlatepackHrp }): Promise<[GrinKeyProofRequest, GrinKeyProofRequest]> {
  const primary = await buildGrinKeyProof({ ...input, key: { form: 'key' } });
  return [primary, await buildGrinKeyProof({ ...input, key: { form: 'slatepack', hrp: input.hrp } })];
}
